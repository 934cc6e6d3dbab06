"""A rein session on the faux provider with the built-in extensions, in a tmp project and home whose
`.mcp.json` names the demo server (`tests/mcp/demo_server.py`, a real MCP server on the SDK)."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

import httpx2
import pytest

from rein.agent.tools import builtin_tools
from rein.ai import FauxProvider, Model
from rein.builtins import ApproveMode, load_extensions
from rein.session import AgentSession, Session
from tests.builtins.conftest import RecordingUI, Script

DEMO = Path(__file__).with_name("demo_server.py")


def stdio_entry() -> dict[str, object]:
    return {"command": sys.executable, "args": [str(DEMO)]}


def write_mcp_json(folder: Path, servers: Mapping[str, object]) -> None:
    (folder / ".mcp.json").write_text(json.dumps({"mcpServers": servers}), encoding="utf-8")


@dataclass
class Harness:
    project: Path
    home: Path
    session: AgentSession
    ui: RecordingUI
    faux: FauxProvider


MakeHarness = Callable[..., Harness]


@pytest.fixture
def project(tmp_path: Path) -> tuple[Path, Path]:
    home = tmp_path / "home"
    project = home / "project"
    project.mkdir(parents=True)
    return project, home


@pytest.fixture
def harness(project: tuple[Path, Path]) -> MakeHarness:
    cwd, home = project

    def make(
        script: Script,
        *,
        approve: ApproveMode | None = "auto",
        interactive: bool = True,
        settings: dict[str, dict[str, object]] | None = None,
    ) -> Harness:
        ui = RecordingUI()
        faux = FauxProvider(script, chunk_size=8)
        session = AgentSession(
            store=Session.create(str(cwd), home=home),
            provider=faux,
            model=Model(provider="faux", id="faux-1"),
            cwd=str(cwd),
            ui=ui,
            tools=builtin_tools(),
        )
        load_extensions(
            session,
            cwd=str(cwd),
            home=str(home),
            settings=settings or {},
            discovered=False,
            approve=approve,
            interactive=interactive,
        )
        return Harness(cwd, home, session, ui, faux)

    return make


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
