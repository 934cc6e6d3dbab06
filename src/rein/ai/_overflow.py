"""Context overflow: whether a failed reply means "the request was larger than the model's window".

Providers word it differently (Anthropic "prompt is too long", OpenAI `context_length_exceeded`,
llama.cpp "exceeds the available context size", ...). Compaction needs to know it was an overflow (to
compact and retry rather than give up) and, where the text says so, how large the window really is.
The texts are matched as rein's providers report them in `AssistantMessage.error_message`: the HTTP
status and the body's message (see `status_text`), with llama.cpp's `n_ctx` kept beside it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from rein.ai._messages import AssistantMessage


@dataclass(frozen=True, slots=True)
class Overflow:
    """A reply that failed because its request did not fit. `window`: the model's context size in
    tokens when the provider's message names it, else None."""

    text: str
    window: int | None = None


_OVERFLOW = re.compile(
    "|".join(
        (
            r"prompt is too long",  # Anthropic
            r"exceed context limit",  # Anthropic: input length and `max_tokens` exceed context limit
            r"request_too_large",  # Anthropic 413: the request's bytes
            r"context[_ ]length[_ ]exceeded",  # OpenAI's error code; generic
            r"maximum context length",  # OpenAI chat, vLLM, OpenRouter, LiteLLM, Mistral, llama_cpp.server
            r"exceeds the context window",  # OpenAI Responses
            r"exceeds the available context size",  # llama.cpp server
            r"greater than the context length|context length of only",  # LM Studio
            r"longer than the maximum model length",  # vLLM
            r"prompt too long; exceeded",  # Ollama
            r"input token count.*exceeds the maximum",  # Google Gemini
            r"input is too long",  # Amazon Bedrock
            r"maximum prompt length is",  # xAI
            r"configured context size is",  # other llama.cpp-based servers
            r"exceed context window of",  # llama-cpp-python
            r"the model's context is \d",  # rein's local provider
            r"too many tokens|token limit exceeded",  # generic
        )
    ),
    re.IGNORECASE,
)
_NOT_OVERFLOW = re.compile(r"HTTP 429|rate.?limit|too many requests|per min|quota", re.IGNORECASE)
"""Rate limits name tokens too ("Request too large ... tokens per min"): waiting helps there, not
compacting."""
_WINDOW = tuple(
    re.compile(pattern, re.IGNORECASE)
    for pattern in (
        r"tokens\s*>\s*([\d,]+)\s*maximum",  # Anthropic: 210345 tokens > 200000 maximum
        r"exceed context limit:[^>]*>\s*([\d,]+)",  # Anthropic: 197000 + 8192 > 200000
        r"\bn_ctx\D{0,3}([\d,]+)",  # llama.cpp server, its `n_ctx` field
        r"maximum context length (?:is |of )?\(?([\d,]+)",  # OpenAI, vLLM, LiteLLM
        r"([\d,]+) maximum context length",  # Mistral
        r"context length of only ([\d,]+)",  # LM Studio
        r"maximum model length of ([\d,]+)",  # vLLM
        r"maximum number of tokens allowed \(([\d,]+)\)",  # Gemini
        r"maximum prompt length is ([\d,]+)",  # xAI
        r"configured context size is ([\d,]+)",
        r"context window of ([\d,]+)",  # llama-cpp-python
        r"the model's context is ([\d,]+)",  # rein's local provider
    )
)
_FULL = 0.99
"""A "length" stop whose tokens reach this share of the window filled it (counts differ a little)."""


def context_overflow(message: AssistantMessage, window: int | None = None) -> Overflow | None:
    """The overflow `message` reports, or None; never raises.

    An error whose text says the request did not fit is one, with the window when the text names it.
    `window` is the window rein believes the model has; with it, two replies that did not fail count
    too: a "length" stop whose prompt and output fill the window (Anthropic's
    `model_context_window_exceeded`, a local model that ran out of room), and any reply whose prompt
    alone is larger than the window (a server that truncated the request silently)."""
    text = message.error_message or ""
    if message.stop_reason == "error" and _OVERFLOW.search(text) and not _NOT_OVERFLOW.search(text):
        return Overflow(text=text, window=_window(text))
    if window is None or window <= 0:
        return None
    usage = message.usage
    prompt = usage.input + usage.cache_read + usage.cache_write
    used = f"the request used {prompt} prompt and {usage.output} output tokens of a {window}-token window"
    if message.stop_reason == "length" and prompt + usage.output >= window * _FULL:
        return Overflow(text=text or f"{used}: the window is full")
    if message.stop_reason != "aborted" and prompt > window:
        return Overflow(text=text or f"{used}: the prompt alone is larger")
    return None


def _window(text: str) -> int | None:
    for pattern in _WINDOW:
        if found := pattern.search(text):
            size = int(found.group(1).replace(",", ""))
            if size > 0:
                return size
    return None
