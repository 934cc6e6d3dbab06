"""MCP benchmark: what rein adds to an MCP tool call, against calling the SDK directly.

    python -m bench.mcp [CALLS]

The demo server of the tests (`tests/mcp/demo_server.py`, a real MCP server on the SDK) is started
over stdio and over streamable HTTP (uvicorn on 127.0.0.1). Each call is `add(a, b)`, timed two ways
on one connection: through rein's tool (`mcp__demo__add`: rein's `Tool.execute`, the abort wiring and
the result's conversion to text) and through the SDK `Client` under it (`client.call_tool`). Rounds
alternate so both see the same machine and the same server process; the figures are per call, median
and p90.
"""

from __future__ import annotations

import asyncio
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable, Mapping

import mcp_types
from rich.console import Console
from rich.table import Table
from tests.mcp.conftest import DEMO, free_port

from bench._common import percentile
from rein.agent import ToolContext
from rein.ai import AbortSignal
from rein.mcp import McpTool, ServerConfig, ServerSet

ROUNDS = 10


async def timed(call: Callable[[], Awaitable[object]], count: int) -> list[float]:
    samples = []
    for _ in range(count):
        start = time.perf_counter()
        await call()
        samples.append(time.perf_counter() - start)
    return samples


async def measure(config: ServerConfig, calls: int) -> tuple[list[float], list[float]]:
    servers = ServerSet([config], cwd=".")
    await servers.start()
    (tool,) = [tool for tool in servers.tools() if tool.name == "mcp__demo__add"]
    client = servers.connections["demo"]._client  # the SDK client rein's tool calls through
    assert client is not None, servers.connections["demo"].reason
    context = ToolContext(cwd=".", abort=AbortSignal())
    args = {"a": 2, "b": 40}

    async def through_rein() -> object:
        return await tool.execute(args, context)

    async def through_sdk() -> object:
        return await client.call_tool("add", args)

    rein_samples: list[float] = []
    sdk_samples: list[float] = []
    try:
        await timed(through_rein, 20)  # warm up both paths
        await timed(through_sdk, 20)
        for _ in range(ROUNDS):
            rein_samples += await timed(through_rein, calls // ROUNDS)
            sdk_samples += await timed(through_sdk, calls // ROUNDS)
    finally:
        await servers.stop()
    return rein_samples, sdk_samples


class Canned:
    """A connection that answers at once: what is left of a call is rein's own work."""

    def __init__(self, config: ServerConfig) -> None:
        self.config = config
        self.result = mcp_types.CallToolResult(content=[mcp_types.TextContent(type="text", text="42")])

    async def call(self, tool: str, args: Mapping[str, object]) -> mcp_types.CallToolResult:
        return self.result


async def rein_share(config: ServerConfig, calls: int) -> float:
    """Median seconds of rein's tool around a call that costs nothing."""
    listed = mcp_types.Tool(name="add", input_schema={"type": "object"})
    tool = McpTool(Canned(config), listed, lambda _connection: None)  # type: ignore[arg-type]
    context = ToolContext(cwd=".", abort=AbortSignal())

    async def call() -> object:
        return await tool.execute({"a": 2, "b": 40}, context)

    return statistics.median(await timed(call, calls))


def wait_for_port(port: int) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.1)
    raise RuntimeError("the demo MCP server did not start")


def main() -> None:
    calls = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    stdio = ServerConfig(
        name="demo", transport="stdio", source="bench", command=sys.executable, args=(str(DEMO),)
    )
    port = free_port()
    server = subprocess.Popen([sys.executable, str(DEMO), "http", str(port)])
    try:
        wait_for_port(port)
        url = f"http://127.0.0.1:{port}/mcp"
        http = ServerConfig(name="demo", transport="http", source="bench", url=url)
        cases = {
            "stdio": asyncio.run(measure(stdio, calls)),
            "streamable HTTP": asyncio.run(measure(http, calls)),
        }
    finally:
        server.terminate()
        server.wait(10)
    table = Table(title=f"mcp: {calls} calls of add(a, b) per transport and path", header_style="bold")
    for column in ("transport", "SDK direct, median", "rein tool, median", "overhead", "SDK p90", "rein p90"):
        table.add_column(column, justify="left" if column == "transport" else "right")
    for name, (rein_samples, sdk_samples) in cases.items():
        sdk, rein = statistics.median(sdk_samples), statistics.median(rein_samples)
        table.add_row(
            name,
            f"{sdk * 1000:.3f} ms",
            f"{rein * 1000:.3f} ms",
            f"{(rein - sdk) * 1e6:+.0f} us",
            f"{percentile(sdk_samples, 0.9) * 1000:.3f} ms",
            f"{percentile(rein_samples, 0.9) * 1000:.3f} ms",
        )
    Console().print(table)
    share = asyncio.run(rein_share(stdio, calls))
    print(f"rein's own work per call (a server that answers at once): {share * 1e6:.1f} us")


if __name__ == "__main__":
    main()
