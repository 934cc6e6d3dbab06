"""MCP servers for rein's agent: their configuration (`.mcp.json`, `~/.claude.json`, `[mcp]` in rein's
settings, an editor's), and their tools as rein tools (`mcp__<server>__<tool>`) on the official SDK.

    configured = configured_servers(cwd, home)
    servers = ServerSet(configured.servers, cwd=str(cwd))
    await servers.start()          # each within the timeout; a failure is a state, not a raise
    tools = servers.tools()        # rein `Tool`s: approval, steering and the loop treat them as any other
    await servers.stop()

Reading the configuration needs the standard library only; the SDK (about a second to import) loads
on the first use of `ServerSet`, `McpTool` or `Connection` (PEP 562), so a session without servers
never pays for it.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from rein.mcp._config import (
    PREFIX,
    START_TIMEOUT,
    ConfigProblem,
    ServerConfig,
    Transport,
    parse_server,
    tool_name,
)
from rein.mcp._report import failures, report
from rein.mcp._sources import MCP_JSON, Configured, configured_servers, git_root

if TYPE_CHECKING:
    from rein.mcp._client import Connection, ServerGone
    from rein.mcp._servers import ServerSet
    from rein.mcp._tool import McpTool, result_text

_LAZY: dict[str, str] = {
    "Connection": "rein.mcp._client",
    "ServerGone": "rein.mcp._client",
    "ServerSet": "rein.mcp._servers",
    "McpTool": "rein.mcp._tool",
    "result_text": "rein.mcp._tool",
}

__all__ = [
    "MCP_JSON",
    "PREFIX",
    "START_TIMEOUT",
    "ConfigProblem",
    "Configured",
    "Connection",
    "McpTool",
    "ServerConfig",
    "ServerGone",
    "ServerSet",
    "Transport",
    "configured_servers",
    "failures",
    "git_root",
    "parse_server",
    "report",
    "result_text",
    "tool_name",
]


def __getattr__(name: str) -> object:
    """Load the module behind a public name on first use."""
    if name not in _LAZY:
        raise AttributeError(f"module 'rein.mcp' has no attribute {name!r}")
    return getattr(importlib.import_module(_LAZY[name]), name)
