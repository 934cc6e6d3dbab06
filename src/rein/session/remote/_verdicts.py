"""The server's steering verdicts on the client: a bash call the server's rules blocked does not run,
and the model reads the server's reason, as it reads a local steering block."""

from __future__ import annotations

from rein.agent import Block
from rein.extensions import ExtensionAPI, ExtensionContext, Factory, ToolCallEvent


def server_verdicts(blocked: dict[str, str]) -> Factory:
    """An extension whose `tool_call` handler blocks the calls in `blocked` (tool call id -> reason;
    `ServerProvider.blocked`, filled from each reply's `done` event), each once."""

    def extension(rein: ExtensionAPI) -> None:
        async def on_tool_call(event: object, ctx: ExtensionContext) -> Block | None:
            if not isinstance(event, ToolCallEvent):
                return None
            reason = blocked.pop(event.info.call.id, None)
            return None if reason is None else Block(reason=reason)

        rein.on("tool_call", on_tool_call)

    return extension
