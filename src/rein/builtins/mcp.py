"""MCP servers in rein's agent, as a built-in extension: the servers configured for the session's
directory (`rein.mcp.configured_servers`) and those an editor passes over ACP (`add_editor_servers`)
start at session start, all at once, each within `[mcp] startup_timeout` seconds; their tools are
registered as `mcp__<server>__<tool>`; they stop at session end (and `/new`, `/resume` start them
again for the next session).

A server that fails to start, or dies, is one line naming it (a notice on screen; stderr in print
and JSON modes) and the session goes on: its tools answer an error naming the server. A session with
no server configured never loads the SDK. `/mcp` lists the servers, their state and their tools.

Approval asks before each MCP tool call as it does for bash (`rein.builtins.approval`).
"""

from __future__ import annotations

import sys
import weakref
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from rein import mcp  # its SDK half loads on first use (`mcp.ServerSet`): only when servers exist
from rein.agent import ExecutionMode, ToolContext, ToolError, ToolOutput
from rein.extensions import ExtensionAPI, ExtensionContext, Level, SessionShutdownEvent, SessionStartEvent
from rein.mcp import START_TIMEOUT, Configured, ServerConfig, configured_servers, failures, report
from rein.session import AgentSession

if TYPE_CHECKING:
    from rein.mcp import Connection, McpTool, ServerSet

_BY_SESSION: weakref.WeakKeyDictionary[AgentSession, McpExtension] = weakref.WeakKeyDictionary()
"""The extension of each session, for `add_editor_servers` (the ACP agent builds sessions through a
factory that knows nothing of MCP)."""


def add_editor_servers(
    session: AgentSession, servers: Sequence[ServerConfig], problems: Sequence[str] = ()
) -> None:
    """Servers an editor passed for `session` (ACP's `mcpServers`), started with the configured ones
    at session start (one of the same name replaces the configured one); `problems`, one line each
    for those rein cannot run, are told then too."""
    extension = _BY_SESSION.get(session)
    if extension is not None:
        extension.editor = list(servers)
        extension.editor_problems = list(problems)


class McpExtension:
    def __init__(
        self,
        rein: ExtensionAPI,
        session: AgentSession,
        *,
        home: str,
        settings: Mapping[str, object],
        interactive: bool,
    ) -> None:
        self.rein = rein
        self.session = session
        self.home = home
        self.interactive = interactive
        timeout = settings.get("startup_timeout")
        self.timeout = float(timeout) if isinstance(timeout, int) and timeout > 0 else START_TIMEOUT
        self.editor: list[ServerConfig] = []
        self.editor_problems: list[str] = []
        self.configured = Configured()
        self.servers: ServerSet | None = None
        self.slots: dict[str, _Slot] = {}
        """Every MCP tool registered in this session by name; a slot outlives its server."""
        self._gone: set[str] = set()
        _BY_SESSION[session] = self
        rein.on("session_start", self.on_session_start)
        rein.on("session_shutdown", self.on_session_shutdown)
        rein.register_command("mcp", "List the MCP servers, their state and their tools", self.command)

    async def on_session_start(self, event: SessionStartEvent, ctx: ExtensionContext) -> None:
        if self.servers is not None:
            return  # the same session reloaded: its servers run on
        cwd = Path(self.session.cwd)
        self.configured = configured_servers(cwd, Path(self.home), extra=self.editor)
        for problem in [*self.configured.problems, *self.editor_problems]:
            self._say(ctx, f"mcp: {problem}", "warning")
        if not self.configured.servers:
            return
        servers = mcp.ServerSet(self.configured.servers, cwd=str(cwd))
        self.servers = servers
        self._gone.clear()
        await servers.start(self.timeout)
        for line in failures(servers):
            self._say(ctx, f"mcp: {line}; the session goes on without its tools", "warning")
        started = [c for c in servers.connections.values() if c.state == "ok"]
        for slot in self.slots.values():
            slot.bind(None)
        for tool in servers.tools(lambda connection: self._on_gone(connection, ctx)):
            if tool.name not in self.slots:
                self.slots[tool.name] = _Slot(tool.name, tool.connection.config.name)
                self.rein.register_tool(self.slots[tool.name])
            self.slots[tool.name].bind(tool)
        if started and self.interactive:
            listed = ", ".join(f"{c.config.name} ({len(c.tools)} tools)" for c in started)
            ctx.ui.notify(f"mcp: {listed}")

    async def on_session_shutdown(self, event: SessionShutdownEvent, ctx: ExtensionContext) -> None:
        servers, self.servers = self.servers, None
        if servers is not None:
            await servers.stop()

    def command(self, args: str, ctx: ExtensionContext) -> None:
        """`/mcp`: each server, where it is configured, its state and its tools."""
        lines = report(self.configured, self.servers)
        ctx.ui.notify("\n".join(lines) if lines else "mcp: no servers configured (see docs/mcp.md)")

    def _on_gone(self, connection: Connection, ctx: ExtensionContext) -> None:
        if connection.config.name in self._gone:
            return
        self._gone.add(connection.config.name)
        reason = connection.reason or connection.state
        self._say(
            ctx, f"mcp: MCP server {connection.config.name} stopped ({reason}); its tools answer an error"
        )

    def _say(self, ctx: ExtensionContext, message: str, level: Level = "warning") -> None:
        if self.interactive:
            ctx.ui.notify(message, level)
        else:  # print and JSON modes: stdout is the reply (or the events)
            print(f"rein: {message}", file=sys.stderr)


class _Slot:
    """A registered MCP tool whose server may be restarted (another session) or gone: it runs the
    current server's tool, or answers an error naming the server. Implements `rein.agent.Tool`."""

    def __init__(self, name: str, server: str) -> None:
        self.name = name
        self.server = server
        self.tool: McpTool | None = None
        self.description = f"(MCP server {server} is not running)"
        self.parameters: Mapping[str, object] = {"type": "object", "properties": {}}
        self.execution_mode: ExecutionMode = "parallel"

    def bind(self, tool: McpTool | None) -> None:
        self.tool = tool
        if tool is not None:
            self.description = tool.description
            self.parameters = tool.parameters
            self.execution_mode = tool.execution_mode

    def mutates(self, args: Mapping[str, object], cwd: str) -> str | None:
        return None

    async def execute(self, args: Mapping[str, object], context: ToolContext) -> ToolOutput:
        if self.tool is None:
            raise ToolError(f"MCP server {self.server} is not running in this session")
        return await self.tool.execute(args, context)
