"""The MCP servers an editor passes with `session/new` and `session/load` (ACP's `mcpServers`), as
rein's server configurations: stdio and streamable HTTP ones; an SSE or ACP-transported server is
refused with one line naming it (the session starts without it)."""

from __future__ import annotations

from collections.abc import Sequence

from acp.schema import AcpMcpServer, HttpMcpServer, McpServerStdio, SseMcpServer

from rein.mcp import ServerConfig

McpServer = HttpMcpServer | SseMcpServer | AcpMcpServer | McpServerStdio
SOURCE = "the editor"


def editor_servers(servers: Sequence[McpServer] | None) -> tuple[list[ServerConfig], list[str]]:
    """The servers rein can run, and a line for each it cannot."""
    configs: list[ServerConfig] = []
    problems: list[str] = []
    for server in servers or ():
        if isinstance(server, McpServerStdio):
            env = {variable.name: variable.value for variable in server.env}
            configs.append(
                ServerConfig(
                    name=server.name,
                    transport="stdio",
                    source=SOURCE,
                    command=server.command,
                    args=tuple(server.args),
                    env=env,
                )
            )
        elif isinstance(server, HttpMcpServer):
            headers = {header.name: header.value for header in server.headers}
            configs.append(
                ServerConfig(
                    name=server.name, transport="http", source=SOURCE, url=server.url, headers=headers
                )
            )
        else:
            kind = "SSE" if isinstance(server, SseMcpServer) else "ACP-transported"
            problems.append(
                f"MCP server {server.name} ({SOURCE}): {kind} servers are not supported (stdio and"
                " streamable HTTP are); the session goes on without it"
            )
    return configs, problems
