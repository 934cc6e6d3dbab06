"""What the local model reads and writes as text: the conversation rendered as chat messages, and the
shell blocks of its replies read back as `bash` tool calls.

A small model cannot emit structured tool calls reliably, so when the context offers `bash` the model is
told to write a command in a ```bash block, and the provider turns each such block of a finished reply
into a call whose id starts with `CALL_PREFIX`. Other tools are not offered. Earlier tool calls and
their results are replayed as text, so the conversation stays readable to the model.
"""

from __future__ import annotations

import re
from typing import Literal, TypedDict

from rein.ai._messages import (
    AssistantMessage,
    Context,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserContent,
    UserMessage,
)
from rein.ai.providers import replayable

BASH_PROMPT = (
    "To run a shell command, write it in a ```bash code block; rein runs it and shows you the output."
)
CALL_PREFIX = "local-"
"""The id prefix of the calls made from ```bash blocks."""
_NO_IMAGE = "[image omitted: the local model reads text only]"


class ChatMessage(TypedDict):
    """One message of an OpenAI-style chat request, as the model's chat template reads it."""

    role: Literal["system", "user", "assistant"]
    content: str


_SHELL_BLOCK = re.compile(r"^```(?:bash|sh|shell)[ \t]*\n(.*?)^```", re.MULTILINE | re.DOTALL)


def shell_commands(text: str) -> list[str]:
    """The commands of the ```bash (or sh, shell) blocks of a reply, in order. A block of only comments
    and blank lines runs nothing, so it is no call."""
    return [
        block.strip()
        for block in _SHELL_BLOCK.findall(text)
        if any(line.strip() and not line.lstrip().startswith("#") for line in block.splitlines())
    ]


def offers_bash(context: Context) -> bool:
    return any(tool.name == "bash" for tool in context.tools)


def chat_messages(context: Context) -> list[ChatMessage]:
    """The conversation as chat-template messages; tool calls and results become text."""
    messages: list[ChatMessage] = []
    system = "\n\n".join(p for p in (context.system_prompt, BASH_PROMPT if offers_bash(context) else "") if p)
    if system:
        messages.append({"role": "system", "content": system})
    for message in replayable(context.messages):
        if isinstance(message, UserMessage):
            messages.append({"role": "user", "content": _plain(message.content)})
        elif isinstance(message, ToolResultMessage):
            outcome = "failed" if message.is_error else "returned"
            text = f"[tool {message.tool_name} {outcome}]\n{_plain(message.content)}"
            messages.append({"role": "user", "content": text})
        elif content := _assistant_text(message):
            messages.append({"role": "assistant", "content": content})
    return messages


def _plain(content: tuple[UserContent, ...]) -> str:
    return "".join(b.text if isinstance(b, TextContent) else _NO_IMAGE for b in content)


def _assistant_text(message: AssistantMessage) -> str:
    parts: list[str] = []
    for block in message.content:
        match block:
            case TextContent():
                parts.append(block.text)
            case ThinkingContent():
                pass  # a local model's own thinking is not sent back
            case ToolCall() if block.id.startswith(CALL_PREFIX):
                pass  # made from a ```bash block that the text already holds
            case ToolCall():
                arguments = block.arguments_text
                parts.append(f"\n[tool call {block.name} {arguments}]")
    return "".join(parts).strip()
