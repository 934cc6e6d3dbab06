"""Token estimates: four characters a token, as pi estimates when the provider has not counted.

An estimate is only used where no provider count exists (messages after the last reply, summarizer
input); it errs large for code, which keeps what it plans inside the window.
"""

from __future__ import annotations

from collections.abc import Iterable

from rein.agent import AgentMessage, CustomMessage
from rein.ai import AssistantMessage, ImageContent, TextContent, ThinkingContent, ToolCall

CHARS_PER_TOKEN = 4
IMAGE_TOKENS = 1200
MESSAGE_OVERHEAD = 4
"""Role and framing tokens every message costs."""


def text_tokens(text: str) -> int:
    return -(-len(text) // CHARS_PER_TOKEN)


def message_tokens(message: AgentMessage) -> int:
    """The estimated size of one message as a request carries it."""
    if isinstance(message, CustomMessage):
        return MESSAGE_OVERHEAD + text_tokens(message.content)
    total = MESSAGE_OVERHEAD
    for block in message.content:
        if isinstance(block, TextContent):
            total += text_tokens(block.text)
        elif isinstance(block, ThinkingContent):
            total += text_tokens(block.thinking)
        elif isinstance(block, ToolCall):
            total += text_tokens(block.name) + text_tokens(block.raw_arguments)
        elif isinstance(block, ImageContent):
            total += IMAGE_TOKENS
    return total


def messages_tokens(messages: Iterable[AgentMessage]) -> int:
    return sum(message_tokens(message) for message in messages)


def context_tokens(messages: list[AgentMessage], usage_from: int = 0) -> int:
    """The context's size: the last successful reply's reported usage (what the provider counted for
    everything up to it) plus estimates for the messages after it; all estimated when no reply
    reported usage. Replies before `usage_from` are not asked: they were counted before a compaction."""
    for index in range(len(messages) - 1, usage_from - 1, -1):
        message = messages[index]
        if isinstance(message, AssistantMessage) and message.stop_reason not in ("error", "aborted"):
            usage = message.usage
            counted = usage.input + usage.output + usage.cache_read + usage.cache_write
            if counted > 0:
                return counted + messages_tokens(messages[index + 1 :])
    return messages_tokens(messages)
