"""The MCP servers of one session: started together (each within the timeout), their tools, stopped
together. A server that fails is a state with a reason, never an exception: the others go on."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence

from rein.mcp._client import Connection
from rein.mcp._config import START_TIMEOUT, ServerConfig
from rein.mcp._tool import McpTool


class ServerSet:
    """Connections by server name, in the order configured."""

    def __init__(self, configs: Sequence[ServerConfig], *, cwd: str) -> None:
        self.connections = {config.name: Connection(config, cwd=cwd) for config in configs}

    async def start(self, timeout: float = START_TIMEOUT) -> None:
        """Start every server at once; returns when each is running or has failed."""
        await asyncio.gather(*(connection.start(timeout) for connection in self.connections.values()))

    def tools(self, on_gone: Callable[[Connection], None] = lambda _connection: None) -> list[McpTool]:
        """The tools of the servers that started; `on_gone` is told when a call finds its server gone."""
        return [
            McpTool(connection, tool, on_gone)
            for connection in self.connections.values()
            if connection.state == "ok"
            for tool in connection.tools
        ]

    async def stop(self) -> None:
        await asyncio.gather(*(connection.stop() for connection in self.connections.values()))
