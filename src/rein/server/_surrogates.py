"""What the model gets of a client's text: a lone UTF-16 surrogate (half an emoji the client cut,
which `JSON.stringify` writes as `\\ud83d`) is dropped, as pi-ai's providers drop it
(`sanitizeSurrogates`): no UTF-8 encoder takes it, so the provider's request would fail. The stored
entry keeps it; only the model's copy is cleaned."""

from __future__ import annotations

import dataclasses
import re

from rein.ai import AssistantContent, Message, TextContent, ThinkingContent, UserContent


def model_safe(message: Message) -> Message:
    """`message` with `model_text` of every text and thinking block (the same object when none has a
    lone surrogate: the usual case costs an ASCII check per block)."""
    blocks = tuple(_safe_block(block) for block in message.content)
    if all(new is old for new, old in zip(blocks, message.content, strict=True)):
        return message
    return dataclasses.replace(message, content=blocks)  # type: ignore[arg-type]


def _safe_block(block: AssistantContent | UserContent) -> AssistantContent | UserContent:
    if isinstance(block, TextContent) and _lone(block.text):
        return dataclasses.replace(block, text=model_text(block.text))
    if isinstance(block, ThinkingContent) and _lone(block.thinking):
        return dataclasses.replace(block, thinking=model_text(block.thinking))
    return block


def _lone(text: str) -> bool:
    """Whether `text` holds a lone surrogate: an ASCII check, else a UTF-8 encode (five times faster
    than a regex scan of the same text)."""
    if text.isascii():
        return False
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def model_text(text: str) -> str:
    """`text` as the model gets it: a lone UTF-16 surrogate (half an emoji the client cut) dropped, as
    pi-ai's providers drop it (`sanitizeSurrogates`); no UTF-8 encoder takes it. The entry keeps it."""
    return _SURROGATE.sub("", text) if _lone(text) else text


_SURROGATE = re.compile("[\\ud800-\\udfff]")
