"""One message as summarizer input: a labelled transcript line, never a message to answer.

The summarizer gets the conversation as text ("[User]: ...", "[Assistant tool call] bash: {...}") inside
one user message, as pi does, so the model summarizes a transcript rather than continuing the
conversation or calling the tools it sees.
"""

from __future__ import annotations

import json

from rein.agent import AgentMessage, CustomMessage
from rein.ai import (
    AssistantMessage,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserContent,
    UserMessage,
)

IMAGE = "[image]"


def serialize(message: AgentMessage) -> str:
    """`message` as transcript text, one labelled line (or paragraph) per block, in block order."""
    if isinstance(message, CustomMessage):
        return f"[Context {message.custom_type}]: {message.content}"
    if isinstance(message, UserMessage):
        return f"[User]: {_user_text(message.content)}"
    if isinstance(message, ToolResultMessage):
        error = " (error)" if message.is_error else ""
        return f"[Tool result {message.tool_name}{error}]: {_user_text(message.content)}"
    return _assistant(message)


def _user_text(content: tuple[UserContent, ...]) -> str:
    return "\n".join(block.text if isinstance(block, TextContent) else IMAGE for block in content)


def _assistant(message: AssistantMessage) -> str:
    lines: list[str] = []
    for block in message.content:
        if isinstance(block, TextContent):
            if block.text:
                lines.append(f"[Assistant]: {block.text}")
        elif isinstance(block, ThinkingContent):
            if block.thinking:  # a redacted block has no readable text to summarize
                lines.append(f"[Assistant thinking]: {block.thinking}")
        else:
            lines.append(f"[Assistant tool call] {block.name}: {_arguments(block)}")
    if message.stop_reason in ("error", "aborted") and message.error_message:
        # The failure is part of what happened: a summary must be able to say the request failed.
        lines.append(f"[Assistant {message.stop_reason}]: {message.error_message}")
    return "\n".join(lines) if lines else "[Assistant]: (no content)"


def _arguments(call: ToolCall) -> str:
    # Decoded arguments re-encoded compactly (streamed JSON may carry odd spacing); the raw text when
    # it did not decode, since that is what the model sent.
    if call.arguments_error is not None or not call.arguments:
        return call.raw_arguments or "{}"
    return json.dumps(dict(call.arguments), ensure_ascii=False)
