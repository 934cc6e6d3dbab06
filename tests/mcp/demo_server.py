"""A real MCP server written with the SDK, for the tests and the bench: `demo`, with tools that add,
fail, answer with an image, and kill their own process.

    python -m tests.mcp.demo_server stdio
    python -m tests.mcp.demo_server http PORT     # streamable HTTP on 127.0.0.1:PORT/mcp
"""

from __future__ import annotations

import base64
import os
import sys

import uvicorn
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ImageContent, TextContent, ToolAnnotations

server = MCPServer("demo")

PNG = bytes.fromhex("89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489")


@server.tool(annotations=ToolAnnotations(read_only_hint=True))
def add(a: int, b: int) -> str:
    """Add two numbers."""
    return str(a + b)


@server.tool()
def fail(message: str) -> str:
    """Always fails with the message."""
    raise ToolError(message)


@server.tool()
def picture() -> list[TextContent | ImageContent]:
    """A caption and a tiny PNG."""
    data = base64.b64encode(PNG).decode()
    return [
        TextContent(type="text", text="a dot"),
        ImageContent(type="image", data=data, mime_type="image/png"),
    ]


@server.tool()
def crash() -> str:
    """Ends the server's process at once."""
    os._exit(3)


def main(argv: list[str]) -> None:
    if argv[:1] == ["http"]:
        app = server.streamable_http_app()
        uvicorn.run(app, host="127.0.0.1", port=int(argv[1]), log_level="warning")
    else:
        server.run("stdio")


if __name__ == "__main__":
    main(sys.argv[1:])
