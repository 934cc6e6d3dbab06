"""One MCP server, live, on the official SDK (`mcp`): started, listed, called, stopped.

The SDK's client is an anyio context (a task group inside), which must be left in the task that
entered it; sessions start in one handler and end in another, so each server gets a task of its own
that holds the client open until `stop`. Calls are made from any task: the client sends them over its
streams. A stdio server's stderr goes to a temporary file, never to rein's screen; its last line is
the reason shown when the server fails to start.

Every SDK exception is translated here into a state and a one-line reason (`ServerGone` for a call).
"""

from __future__ import annotations

import asyncio
import tempfile
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from typing import IO, Literal

import httpx2
import mcp_types
from mcp import Client, MCPError, StdioServerParameters, stdio_client
from mcp.client import Transport
from mcp.client._transport import TransportStreams
from mcp.client.streamable_http import streamable_http_client

from rein import __version__
from rein.mcp._config import ServerConfig

State = Literal["starting", "ok", "failed", "stopped"]
STOP_WAIT = 5.0
"""Seconds a server is given to end before its task is cancelled."""


class ServerGone(Exception):
    """The server is not running (never started, died, stopped); the message says why in one line."""


class Connection:
    """A server's client, held open by its own task. `state` and `reason` say how it stands; `tools`
    is what it listed when it started."""

    def __init__(self, config: ServerConfig, *, cwd: str) -> None:
        self.config = config
        self.cwd = cwd
        self.state: State = "starting"
        self.reason = ""
        self.tools: tuple[mcp_types.Tool, ...] = ()
        self._client: Client | None = None
        self._ready = asyncio.Event()
        self._stop = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._errlog: IO[str] | None = None

    async def start(self, timeout: float) -> None:
        """Start the server and list its tools, within `timeout` seconds. Never raises: a failure is
        `state == "failed"` with the reason."""
        self._task = asyncio.create_task(self._hold(), name=f"mcp server {self.config.name}")
        try:
            await asyncio.wait_for(self._ready.wait(), timeout)
        except TimeoutError:
            self._fail(f"did not start within {timeout:g} s")
            await self.stop()

    async def call(self, tool: str, args: Mapping[str, object]) -> mcp_types.CallToolResult:
        """Call one of its tools. Raises `ServerGone` when the server is not there (or goes away
        during the call), `MCPError` for an error the server answered."""
        client = self._client
        if client is None or self.state != "ok":
            raise ServerGone(self._gone())
        try:
            return await client.call_tool(tool, dict(args))
        except MCPError as error:
            if error.code != mcp_types.CONNECTION_CLOSED:
                raise
            self._fail(f"the connection closed ({self._stderr_tail() or error.message})")
            raise ServerGone(self._gone()) from None

    async def stop(self) -> None:
        """End the server (its process, for stdio) and wait for that, briefly. Never raises."""
        if self.state in ("ok", "starting"):
            self.state = "stopped"
        self._stop.set()
        task = self._task
        if task is not None and not task.done():
            done, _ = await asyncio.wait({task}, timeout=STOP_WAIT)
            if not done:
                task.cancel()
                await asyncio.wait({task})
        if self._errlog is not None:
            self._errlog.close()
            self._errlog = None

    def _fail(self, reason: str) -> None:
        if self.state != "failed":
            self.state = "failed"
            self.reason = reason

    def _gone(self) -> str:
        why = self.reason if self.state == "failed" else self.state
        return f"MCP server {self.config.name} is not running ({why})"

    async def _hold(self) -> None:
        try:
            async with Client(self._transport(), client_info=_INFO) as client:
                self.tools = await _all_tools(client)
                if self.state != "starting":
                    return  # it came too late: the start already failed (or was stopped)
                self._client = client
                self.state = "ok"
                self._ready.set()
                await self._stop.wait()
        except Exception as error:  # the SDK's edge (anyio's groups included): any failure is a reason
            self._fail(self._describe(error))
        finally:
            self._client = None
            self._ready.set()

    def _transport(self) -> Transport:
        config = self.config
        if config.transport == "http":
            return _http(config)
        # Kept open while the server runs (its stderr), closed by `stop`.
        self._errlog = tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace")  # noqa: SIM115
        params = StdioServerParameters(
            command=config.command, args=list(config.args), env=dict(config.env) or None, cwd=self.cwd
        )
        return stdio_client(params, errlog=self._errlog)

    def _describe(self, error: BaseException) -> str:
        while isinstance(error, BaseExceptionGroup) and error.exceptions:
            error = error.exceptions[0]
        if isinstance(error, FileNotFoundError) and self.config.transport == "stdio":
            return f"command not found: {self.config.command}"
        if isinstance(error, MCPError) and error.code == mcp_types.CONNECTION_CLOSED:
            tail = self._stderr_tail()
            return f"it closed the connection{f': {tail}' if tail else ''}"
        text = " ".join(str(error).split()) or type(error).__name__
        return text if len(text) <= 200 else text[:197] + "..."

    def _stderr_tail(self) -> str:
        """The server's last line on stderr, if it wrote one."""
        if self._errlog is None:
            return ""
        try:
            self._errlog.flush()
            self._errlog.seek(0)
            lines = [line.strip() for line in self._errlog.read().splitlines() if line.strip()]
        except (OSError, ValueError):
            return ""
        return lines[-1][:200] if lines else ""


_INFO = mcp_types.Implementation(name="rein", version=__version__)
HTTP_TIMEOUT = httpx2.Timeout(30.0, read=300.0)
"""The SDK's own: a server may hold a response stream open for minutes."""


@asynccontextmanager
async def _http(config: ServerConfig) -> AsyncIterator[TransportStreams]:
    """Streamable HTTP with the configured headers (the SDK leaves a client it was given open)."""
    http = httpx2.AsyncClient(headers=dict(config.headers), timeout=HTTP_TIMEOUT)
    async with http, streamable_http_client(config.url, http_client=http) as streams:
        yield streams


async def _all_tools(client: Client) -> tuple[mcp_types.Tool, ...]:
    tools: list[mcp_types.Tool] = []
    cursor: str | None = None
    for _ in range(100):  # a server that pages forever cannot hang the start
        page = await client.list_tools(cursor=cursor)
        tools += page.tools
        cursor = page.next_cursor
        if cursor is None:
            break
    return tuple(tools)
