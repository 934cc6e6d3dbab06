"""A rein session on the faux provider with the built-in extensions (the builtins' harness), in a tmp
project and home whose `.mcp.json` names the demo server (`tests/mcp/demo_server.py`, a real MCP
server on the SDK)."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping
from pathlib import Path

import httpx2
import pytest

# the builtins' session harness, as these tests' fixtures too
from tests.builtins.conftest import Harness, MakeHarness, harness, project

__all__ = [
    "DEMO",
    "Harness",
    "MakeHarness",
    "harness",
    "http_demo",
    "project",
    "stdio_entry",
    "write_mcp_json",
]

DEMO = Path(__file__).with_name("demo_server.py")


def stdio_entry() -> dict[str, object]:
    return {"command": sys.executable, "args": [str(DEMO)]}


def write_mcp_json(folder: Path, servers: Mapping[str, object]) -> None:
    (folder / ".mcp.json").write_text(json.dumps({"mcpServers": servers}), encoding="utf-8")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@pytest.fixture
def http_demo() -> Iterator[str]:
    """The demo server over streamable HTTP (uvicorn on 127.0.0.1, a free port): its URL."""
    port = free_port()
    process = subprocess.Popen([sys.executable, str(DEMO), "http", str(port)])
    url = f"http://127.0.0.1:{port}/mcp"
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                httpx2.get(f"http://127.0.0.1:{port}/", timeout=1)
                break
            except httpx2.TransportError:
                if time.monotonic() > deadline or process.poll() is not None:
                    raise RuntimeError("the demo MCP server did not start") from None
                time.sleep(0.1)
        yield url
    finally:
        process.terminate()
        process.wait(10)
