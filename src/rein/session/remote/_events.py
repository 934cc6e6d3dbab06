"""Reading the server's streams: server-sent events, the fork's proxy events, pi's message JSON.

`SseParser` cuts `text/event-stream` text into `(event, data)` pairs (comments, the server's
keep-alives, are skipped). `ProxyReader` turns each proxy event (`text_start`, `toolcall_delta`,
`done{reason, usage, steering?}`, ...) into rein's stream events through a `MessageBuilder`, so the
reply a client rebuilds is the one a local provider would have built. `assistant_from_json` reads a
journaled reply in rein's message JSON or in pi's.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Literal

from rein.ai import (
    AssistantContent,
    AssistantEvent,
    AssistantMessage,
    MessageBuilder,
    MessageFormatError,
    ProviderError,
    TextContent,
    ThinkingContent,
    ToolCall,
    Usage,
    message_from_json,
)


class SseParser:
    """Incremental `text/event-stream` parsing: `feed` text as it arrives, `finish` at the end."""

    def __init__(self) -> None:
        self._buffer = ""
        self._event = "message"
        self._data: list[str] = []

    def feed(self, text: str) -> list[tuple[str, str]]:
        self._buffer += text
        *lines, self._buffer = self._buffer.split("\n")
        out: list[tuple[str, str]] = []
        for line in lines:
            self._line(line.removesuffix("\r"), out)
        return out

    def finish(self) -> list[tuple[str, str]]:
        out: list[tuple[str, str]] = []
        if self._buffer:
            self._line(self._buffer.removesuffix("\r"), out)
            self._buffer = ""
        self._line("", out)
        return out

    def _line(self, line: str, out: list[tuple[str, str]]) -> None:
        if not line:
            if self._data:
                out.append((self._event, "\n".join(self._data)))
            self._event, self._data = "message", []
            return
        if line.startswith(":"):
            return
        name, _, value = line.partition(":")
        value = value.removeprefix(" ")
        if name == "event":
            self._event = value
        elif name == "data":
            self._data.append(value)


_REASONS: dict[str, Literal["stop", "length", "tool_use"]] = {
    "stop": "stop",
    "length": "length",
    "toolUse": "tool_use",
    "tool_use": "tool_use",
}


class ProxyReader:
    """Proxy events -> rein events. `steering` collects a `done` event's blocked calls
    (tool call id -> reason). Raises `ProviderError` for an event out of order or malformed."""

    def __init__(self, builder: MessageBuilder) -> None:
        self.builder = builder
        self.steering: dict[str, str] = {}

    def read(self, data: str) -> list[AssistantEvent]:
        try:
            event = json.loads(data)
        except ValueError:
            raise ProviderError(f"the server sent an event that is not JSON: {data[:200]!r}") from None
        if not isinstance(event, dict):
            raise ProviderError(f"the server sent an event that is not an object: {data[:200]!r}")
        return self.event(event)

    def event(self, event: Mapping[str, object]) -> list[AssistantEvent]:
        builder, kind = self.builder, event.get("type")
        delta = event.get("delta")
        match kind:
            case "start":
                return []
            case "text_start":
                return [builder.begin_text()]
            case "thinking_start":
                return [builder.begin_thinking()]
            case "toolcall_start":
                return [builder.begin_tool_call(id=_text(event, "id"), name=_text(event, "toolName"))]
            case "text_delta" | "thinking_delta" | "toolcall_delta":
                return [builder.append(delta)] if isinstance(delta, str) and delta else []
            case "text_end":
                return [builder.end()]
            case "thinking_end":
                signature = event.get("contentSignature")
                if isinstance(signature, str) and signature:
                    builder.sign(signature)
                return [builder.end()]
            case "toolcall_end":
                return self._tool_end(event.get("toolCall"))
            case "done":
                builder.usage = _usage(event.get("usage"), builder.usage)
                self._steering(event.get("steering"))
                reason = event.get("reason")
                return [builder.done(_REASONS.get(reason, "stop") if isinstance(reason, str) else "stop")]
            case "error":
                builder.usage = _usage(event.get("usage"), builder.usage)
                message = event.get("errorMessage") or event.get("error") or "the server's provider failed"
                if event.get("reason") == "aborted":
                    return [builder.error("aborted", str(message))]
                return [builder.error("error", str(message))]
            case _:
                return []  # an event a newer server added: not ours to fail on

    def _tool_end(self, call: object) -> list[AssistantEvent]:
        out: list[AssistantEvent] = []
        block = self.builder.open_block
        arguments = call.get("arguments") if isinstance(call, Mapping) else None
        if (
            isinstance(block, ToolCall)
            and not block.raw_arguments
            and isinstance(arguments, Mapping)
            and arguments
        ):
            out.append(self.builder.append(json.dumps(dict(arguments))))  # the server streamed no deltas
        out.append(self.builder.end())
        return out

    def _steering(self, raw: object) -> None:
        if not isinstance(raw, list):
            return
        for item in raw:
            if isinstance(item, Mapping) and item.get("decision", "block") == "block":
                call, reason = item.get("toolCallId"), item.get("reason")
                if isinstance(call, str):
                    self.steering[call] = str(reason or "blocked by the server's steering rules")


def _text(event: Mapping[str, object], key: str) -> str:
    value = event.get(key)
    if not isinstance(value, str):
        raise ProviderError(f"the server's {event.get('type')} event has no string `{key}`")
    return value


def _int(raw: Mapping[str, object], *keys: str) -> int:
    for key in keys:
        value = raw.get(key)
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    return 0


def _usage(raw: object, default: Usage) -> Usage:
    if not isinstance(raw, Mapping):
        return default
    return Usage(
        input=_int(raw, "input"),
        output=_int(raw, "output"),
        cache_read=_int(raw, "cacheRead", "cache_read"),
        cache_write=_int(raw, "cacheWrite", "cache_write"),
    )


def assistant_from_json(raw: object, *, provider: str, model: str) -> AssistantMessage:
    """A journaled reply, in rein's message JSON or pi's. Raises `ProviderError` for anything else."""
    try:
        message = message_from_json(raw)
    except MessageFormatError:
        pass
    else:
        if isinstance(message, AssistantMessage):
            return message
    if not isinstance(raw, Mapping) or raw.get("role") != "assistant":
        raise ProviderError("the server's journaled run carries no assistant message")
    content = raw.get("content")
    blocks = [_pi_block(item) for item in content] if isinstance(content, list) else []
    stop = raw.get("stopReason")
    reason = _REASONS.get(stop) if isinstance(stop, str) else None
    error = raw.get("errorMessage")
    timestamp = raw.get("timestamp")
    return AssistantMessage(
        content=tuple(block for block in blocks if block is not None),
        provider=str(raw.get("provider") or provider),
        model=str(raw.get("model") or model),
        usage=_usage(raw.get("usage"), Usage()),
        stop_reason=reason or ("aborted" if stop == "aborted" else "error" if stop == "error" else "stop"),
        error_message=error if isinstance(error, str) else None,
        timestamp=timestamp if isinstance(timestamp, int) else 0,
    )


def _pi_block(item: object) -> AssistantContent | None:
    if not isinstance(item, Mapping):
        return None
    kind = item.get("type")
    if kind == "text":
        return TextContent(text=str(item.get("text", "")))
    if kind == "thinking":
        signature = item.get("thinkingSignature")
        return ThinkingContent(
            thinking=str(item.get("thinking", "")),
            signature=signature if isinstance(signature, str) else None,
            redacted=item.get("redacted") is True,
        )
    if kind == "toolCall":
        arguments = item.get("arguments")
        args = dict(arguments) if isinstance(arguments, Mapping) else {}
        return ToolCall(id=str(item.get("id", "")), name=str(item.get("name", "")), arguments=args)
    return None
