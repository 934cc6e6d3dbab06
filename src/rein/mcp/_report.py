"""The MCP servers as people read them, for `rein mcp list` and `/mcp`: each server, where it was
configured, how it stands, and its tools (as the model sees their names)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from rein.mcp._config import tool_name
from rein.mcp._sources import Configured

if TYPE_CHECKING:
    from rein.mcp._servers import ServerSet


def report(configured: Configured, servers: ServerSet | None, *, width: int = 100) -> list[str]:
    """One block per server (`name  (source)  transport: target`, its state, then a line per tool),
    then the servers switched off. `servers` None: not started (states are not known)."""
    lines: list[str] = []
    for config in configured.servers:
        lines.append(f"{config.name}  ({config.source})  {config.transport}: {config.target}")
        connection = servers.connections.get(config.name) if servers is not None else None
        if connection is None:
            lines.append("  not started")
            continue
        if connection.state != "ok":
            lines.append(f"  {connection.state}: {connection.reason or 'stopped'}")
            continue
        count = len(connection.tools)
        lines.append(f"  ok: {count} {'tool' if count == 1 else 'tools'}")
        for tool in connection.tools:
            name = tool_name(config.name, tool.name)
            about = " ".join((tool.description or "").split())
            line = f"    {name}  {about}".rstrip()
            lines.append(line if len(line) <= width else line[: width - 3] + "...")
    lines += [f"{name}  switched off (enabled = false)" for name in configured.disabled]
    return lines


def failures(servers: ServerSet) -> Sequence[str]:
    """One line per server that did not start: `MCP server NAME (SOURCE) failed to start: REASON`."""
    return [
        f"MCP server {c.config.name} ({c.config.source}) failed to start: {c.reason}"
        for c in servers.connections.values()
        if c.state == "failed"
    ]
