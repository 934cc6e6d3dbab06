"""An MCP server's tool as a rein `Tool`: `mcp__<server>__<tool>` (Claude Code's naming, so hook rules
and habits carry over), the server's input schema as its parameters, its result as the tool's output.

The result's text content is the output; an image, audio or a binary resource is one line saying what
it was (the model gets text); `isError` is a tool error. A call that finds the server gone is a tool
error naming the server, and the session goes on. A tool the server marks `readOnlyHint` may run beside
others (`parallel`); any other is a barrier, since it may change what the next call sees.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Mapping

import mcp_types
from mcp import MCPError

from rein.agent import ExecutionMode, ToolContext, ToolError, ToolOutput
from rein.mcp._client import Connection, ServerGone
from rein.mcp._config import tool_name

MAX_TEXT = 100_000
"""Characters of a result the model reads; the rest is cut with a note (one result must not fill
the context)."""


class McpTool:
    """One tool of one server. Implements `rein.agent.Tool`."""

    def __init__(
        self, connection: Connection, tool: mcp_types.Tool, on_gone: Callable[[Connection], None]
    ) -> None:
        self.connection = connection
        self.remote_name = tool.name
        self.name = tool_name(connection.config.name, tool.name)
        self.description = tool.description or tool.title or tool.name
        self.parameters: Mapping[str, object] = tool.input_schema or {"type": "object", "properties": {}}
        read_only = tool.annotations is not None and tool.annotations.read_only_hint is True
        self.read_only = read_only
        self.execution_mode: ExecutionMode = "parallel" if read_only else "sequential"
        self._on_gone = on_gone

    def mutates(self, args: Mapping[str, object], cwd: str) -> str | None:
        return None

    async def execute(self, args: Mapping[str, object], context: ToolContext) -> ToolOutput:
        call = asyncio.ensure_future(self.connection.call(self.remote_name, args))

        def cancel() -> None:
            call.cancel()

        unregister = context.abort.on_abort(cancel)
        try:
            result = await call
        except asyncio.CancelledError:
            if not context.abort.aborted:
                raise
            raise ToolError(f"{self.name}: aborted") from None
        except ServerGone as gone:
            self._on_gone(self.connection)
            raise ToolError(str(gone)) from None
        except MCPError as error:
            raise ToolError(f"{self.name}: the server answered an error: {error.message}") from None
        finally:
            unregister()
        text = result_text(result)
        return ToolOutput(
            text=text, is_error=bool(result.is_error), details={"server": self.connection.config.name}
        )


def result_text(result: mcp_types.CallToolResult) -> str:
    """What the model reads of a result."""
    parts = [_content_text(block) for block in result.content]
    if not parts and result.structured_content is not None:
        parts = [json.dumps(result.structured_content, ensure_ascii=False)]
    text = "\n".join(parts) if parts else "(no output)"
    if len(text) > MAX_TEXT:
        text = text[:MAX_TEXT] + f"\n[... {len(text) - MAX_TEXT} more characters cut by rein]"
    return text


def _content_text(block: object) -> str:
    match block:
        case mcp_types.TextContent(text=text):
            return text
        case mcp_types.ImageContent(mime_type=mime, data=data):
            return f"[image: {mime}, {_decoded_size(data)} bytes, not shown]"
        case mcp_types.AudioContent(mime_type=mime, data=data):
            return f"[audio: {mime}, {_decoded_size(data)} bytes, not shown]"
        case mcp_types.ResourceLink(uri=uri, name=name):
            return f"[resource link: {name} {uri}]"
        case mcp_types.EmbeddedResource(resource=mcp_types.TextResourceContents(text=text)):
            return text
        case mcp_types.EmbeddedResource(resource=resource):
            return f"[resource: {resource.uri} {resource.mime_type or ''}, not shown]".replace(" ,", ",")
        case _:
            return f"[{type(block).__name__}, not shown]"


def _decoded_size(data: str) -> int:
    return len(data) * 3 // 4 - data[-2:].count("=")
