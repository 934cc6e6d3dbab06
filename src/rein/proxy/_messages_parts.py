"""Anthropic Messages: the request and response shapes the codec needs outside the stream (the retry's
messages, a non-streamed reply's content, usage arithmetic)."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterable

from rein.ai import JsonValue
from rein.proxy._codec import Json
from rein.ttsr import MatchContext

TOOL_BLOCKS = frozenset({"tool_use", "server_tool_use", "mcp_tool_use"})
"""Blocks whose `input` the model writes: checked as tool calls, held until complete."""

START_COUNTS = ("input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
"""The counts `message_start` reports; a rewritten `message_delta` carries their sums even where the
upstream's delta left them out (the client's `message_start` showed only the first attempt's)."""


def number(value: JsonValue) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def merge_usage(into: Json, update: JsonValue) -> None:
    """Overwrite `into` with `update`'s counts (the API's usage is cumulative within one attempt); null
    and non-numeric fields keep what was there."""
    if not isinstance(update, dict):
        return
    for key, value in update.items():
        if number(value):
            into[key] = value
        elif isinstance(value, dict):
            inner = into.get(key)
            if not isinstance(inner, dict):
                inner = into[key] = {}
            merge_usage(inner, value)


def summed_usage(base: Json, others: Iterable[JsonValue]) -> Json:
    """`base` with every count (nested ones too) of `others` added; other fields as in `base`."""
    out: Json = dict(base)
    for other in others:
        if not isinstance(other, dict):
            continue
        for key, value in other.items():
            mine = out.get(key)
            if number(value):
                assert isinstance(value, int | float)
                out[key] = mine + value if isinstance(mine, int | float) and number(mine) else value
            elif isinstance(value, dict):
                out[key] = summed_usage(mine if isinstance(mine, dict) else {}, [value])
    return out


def delta_usage(original: JsonValue, totals: Json) -> Json:
    """A `message_delta`'s usage with the summed counts: the fields it had, plus the start counts."""
    out: Json = dict(original) if isinstance(original, dict) else {}
    for key, value in totals.items():
        if key in out or key in START_COUNTS:
            out[key] = value
    return out


def retry_messages(body: Json, injection: str, shown: str) -> Json:
    """See `Codec.retry_body`. A client's own assistant prefill gets `shown` after its text (one assistant
    turn, as the model wrote it)."""
    out = dict(body)
    found = body.get("messages")
    messages: list[JsonValue] = list(found) if isinstance(found, list) else []
    if shown:
        last = messages[-1] if messages else None
        if isinstance(last, dict) and last.get("role") == "assistant":
            messages[-1] = {**last, "content": _appended(last.get("content"), shown)}
        else:
            messages.append({"role": "assistant", "content": [{"type": "text", "text": shown}]})
    messages.append({"role": "user", "content": [{"type": "text", "text": injection}]})
    out["messages"] = messages
    return out


def _appended(content: JsonValue, shown: str) -> JsonValue:
    if isinstance(content, str):
        return content + shown
    blocks = list(content) if isinstance(content, list) else []
    last = blocks[-1] if blocks else None
    if isinstance(last, dict) and last.get("type") == "text" and isinstance(last.get("text"), str):
        text = last["text"]
        assert isinstance(text, str)
        blocks[-1] = {**last, "text": text + shown}
    else:
        blocks.append({"type": "text", "text": shown})
    return blocks


def tool_context(block: Json) -> MatchContext | None:
    """The context of a tool-call block, None when it is not one (or lacks its name)."""
    name, call_id = block.get("name"), block.get("id")
    if block.get("type") not in TOOL_BLOCKS or not isinstance(name, str):
        return None
    return MatchContext(
        source="tool", tool_name=name, tool_call_id=call_id if isinstance(call_id, str) else None
    )


def response_contents(response: Json) -> list[tuple[MatchContext, str]]:
    """A `message` object's prose, thinking and tool inputs (JSON text), per block."""
    out: list[tuple[MatchContext, str]] = []
    content = response.get("content")
    for block in content if isinstance(content, list) else []:
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        text, thinking = block.get("text"), block.get("thinking")
        if kind == "text" and isinstance(text, str) and text:
            out.append((MatchContext(source="text"), text))
        elif kind == "thinking" and isinstance(thinking, str) and thinking:
            out.append((MatchContext(source="thinking"), thinking))
        elif (context := tool_context(block)) is not None:
            found = block.get("input")
            out.append((context, json.dumps(found if found is not None else {}, ensure_ascii=False)))
    return out


def summed_response(response: Json, earlier: Iterable[Json]) -> Json:
    """`response` with its usage summed with the `earlier` responses' usage."""
    usage = response.get("usage")
    total = summed_usage(usage if isinstance(usage, dict) else {}, (e.get("usage") for e in earlier))
    return {**response, "usage": total} if total or isinstance(usage, dict) else dict(response)


def synthetic_start(body: Json) -> Json:
    """A `message_start` for a client that must get one when no attempt's start reached it."""
    model = body.get("model")
    message: Json = {
        "id": f"msg_rein_{uuid.uuid4().hex[:24]}",
        "type": "message",
        "role": "assistant",
        "model": model if isinstance(model, str) else "unknown",
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": {"input_tokens": 0, "output_tokens": 0},
    }
    return {"type": "message_start", "message": message}
