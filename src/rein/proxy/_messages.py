"""The Anthropic Messages codec (`/v1/messages`).

Upstream events become: `message_start`, `ping`, `message_delta`, `message_stop`, `error` and blocks the
rules do not read (redacted thinking, server tool results, unknown kinds) as structural outs; a text or
thinking block as a structural start, one content out per delta, and its `content_block_stop` as the
stream's `final` out; a tool call (`tool_use`, `server_tool_use`, `mcp_tool_use`) as one tool stream whose
first out renders the block start and whose `final` out renders the stop, so the client gets it whole; a
thinking signature as an unchecked out of its own stream, so it is never split.

The client's side is kept in `render` only: the message id is the first rendered `message_start`'s (a
later attempt's start renders nothing), block indices are the client's own count (a later attempt's
blocks are numbered on), and a text block the client has open when a cut attempt ends is continued by
the next attempt's first block when that is text too (its start is dropped); any other open block is
closed first. Usage is the sum over attempts of each attempt's latest counts (`message_start`, then
`message_delta`, cumulative within an attempt): a cut attempt adds what it reported before the cut, and
from the second attempt on `message_delta` carries the summed counts, input ones included.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from rein.ai import JsonValue
from rein.proxy._codec import Api, Json, Out, SseEvent, sse
from rein.proxy._messages_parts import (
    delta_usage,
    merge_usage,
    response_contents,
    retry_messages,
    summed_response,
    summed_usage,
    synthetic_start,
    tool_context,
)
from rein.ttsr import MatchContext

_TEXT = MatchContext(source="text")
_THINKING = MatchContext(source="thinking")
_SOURCES = {"text": _TEXT, "thinking": _THINKING}
_INITIAL_DELTAS = {
    "text": ("text_delta", "text"),
    "thinking": ("thinking_delta", "thinking"),
    "input": ("input_json_delta", "partial_json"),
}
"""A block start's field with content -> the delta that carries it instead."""
_DELTA_FIELDS = {"text_delta": ("text", "text"), "thinking_delta": ("thinking", "thinking")}
"""delta type -> (block kind it belongs to, field holding its text)."""


@dataclass(slots=True)
class _Block:
    """One upstream block of the current attempt."""

    kind: str  # "text", "thinking", "tool" or "other"
    key: str
    context: MatchContext | None
    finaled: bool = False


class MessagesCodec:
    """See the module docstring and `rein.proxy._codec.Codec`."""

    api: Api = "messages"

    def __init__(self, body: Json) -> None:
        self._body = body
        # Upstream side (feed).
        self._attempt = 0
        self._blocks: dict[int, _Block] = {}
        self._usage: list[Json] = []
        self._first_start: Json | None = None
        # Client side (render).
        self._started = False
        self._delta_sent = False
        self._finished: int | None = None  # the attempt whose message_stop or error ended it
        self._next_index = 0
        self._index: dict[tuple[int, int], int] = {}
        self._open: dict[int, tuple[int, str]] = {}  # client index -> (attempt, kind)
        self._began: set[int] = set()  # attempts whose first block start was rendered
        self._signatures: dict[str, str] = {}

    def start_attempt(self) -> None:
        self._attempt += 1
        self._blocks = {}
        self._usage.append({})

    def cut(self) -> None:
        self._blocks = {}

    def feed(self, event: SseEvent) -> list[Out]:
        if not self._usage:
            self.start_attempt()
        outs = self._outs(event)
        for out in outs:
            out.render = self._guarded(self._attempt, out.render)
        return outs

    def _guarded(self, attempt: int, render: Callable[[str], bytes]) -> Callable[[str], bytes]:
        """Once the client's stream has ended, another attempt's events are not shown."""

        def guarded(part: str) -> bytes:
            return b"" if self._finished not in (None, attempt) else render(part)

        return guarded

    def _outs(self, event: SseEvent) -> list[Out]:
        try:
            data = event.json()
        except ValueError:
            data = None
        if not isinstance(data, dict):
            return [self._raw(event)]
        kind = data.get("type")
        match kind:  # what the SDK reads too (the `event:` name only filters pings and errors)
            case "message_start":
                return self._on_message_start(event, data)
            case "content_block_start":
                return self._on_block_start(event, data)
            case "content_block_delta":
                return self._on_block_delta(event, data)
            case "content_block_stop":
                return self._on_block_stop(event, data)
            case "message_delta":
                merge_usage(self._usage[-1], data.get("usage"))
                return [*self._finals(), Out(render=lambda _: self._render_message_delta(event, data))]
            case "message_stop":
                return [*self._finals(), Out(render=self._end(event))]
            case "error":
                return [*self._finals(), Out(render=self._end(event))]
            case _:
                return [self._raw(event)]

    # Feeding ---------------------------------------------------------------------------------------

    def _raw(self, event: SseEvent) -> Out:
        return Out(render=lambda _: event.encode())

    def _on_message_start(self, event: SseEvent, data: Json) -> list[Out]:
        message = data.get("message")
        if isinstance(message, dict):
            merge_usage(self._usage[-1], message.get("usage"))
            if self._first_start is None:
                self._first_start = data
        return [Out(render=lambda _: self._render_message_start(event))]

    def _on_block_start(self, event: SseEvent, data: Json) -> list[Out]:
        index, block = data.get("index"), data.get("content_block")
        if not isinstance(index, int) or not isinstance(block, dict):
            return [self._raw(event)]
        attempt, kind, outs = self._attempt, block.get("type"), list[Out]()
        initial: JsonValue = None
        if isinstance(kind, str) and kind in _SOURCES:
            prose = _SOURCES[kind]
            initial = block.get(kind)
            outs.extend(self._finals(prose.source))
            current = _Block(kind, f"{attempt}:{kind}:{index}", prose)
        elif (call := tool_context(block)) is not None:
            kind, initial = "input", block.get("input")
            current = _Block("tool", f"{attempt}:tool:{index}", call)
        else:
            current = _Block("other", f"{attempt}:other:{index}", None)
        self._blocks[index] = current
        text = initial if isinstance(initial, str) else ""
        if isinstance(initial, dict) and initial:
            text = json.dumps(initial, ensure_ascii=False)
        # Initial content moves into a delta of its own, so the rules read it and the start stays empty.
        original: SseEvent | None = event
        if text and isinstance(kind, str):
            data = {**data, "content_block": {**block, kind: {} if kind == "input" else ""}}
            original = None
        shown = data

        def render(_: str) -> bytes:
            return self._render_block_start(attempt, index, current.kind, original, shown)

        if current.kind == "tool":
            outs.append(Out(render=render, stream=current.key, context=current.context))
        else:
            outs.append(Out(render=render))
        if text and isinstance(kind, str):
            delta_type, field = _INITIAL_DELTAS[kind]
            delta: Json = {"type": "content_block_delta", "index": index, "delta": {"type": delta_type}}
            outs.append(self._content(attempt, index, current, None, delta, field, text))
        return outs

    def _on_block_delta(self, event: SseEvent, data: Json) -> list[Out]:
        index, delta = data.get("index"), data.get("delta")
        current = self._blocks.get(index) if isinstance(index, int) else None
        if current is None or not isinstance(index, int) or not isinstance(delta, dict):
            return [self._raw(event)]
        attempt, kind = self._attempt, delta.get("type")
        text_kind, field = _DELTA_FIELDS.get(kind, ("", "")) if isinstance(kind, str) else ("", "")
        if current.kind == "tool" and kind == "input_json_delta":
            text_kind, field = "tool", "partial_json"
        text = delta.get(field) if field else None
        if text_kind == current.kind and isinstance(text, str):
            return [self._content(attempt, index, current, event, data, field, text)]
        signature = delta.get("signature")
        if current.kind == "thinking" and kind == "signature_delta" and isinstance(signature, str):
            key = f"{attempt}:signature:{index}"
            return [
                Out(
                    text=signature,
                    stream=key,
                    render=lambda part: self._render_signature(attempt, index, key, event, data, part),
                )
            ]
        return [Out(render=lambda _: self._reindexed(attempt, index, event, data))]

    def _content(
        self,
        attempt: int,
        index: int,
        block: _Block,
        event: SseEvent | None,
        data: Json,
        field: str,
        text: str,
    ) -> Out:
        return Out(
            text=text,
            stream=block.key,
            context=block.context,
            render=lambda part: self._render_delta(attempt, index, event, data, field, part, text),
        )

    def _on_block_stop(self, event: SseEvent, data: Json) -> list[Out]:
        index = data.get("index")
        current = self._blocks.get(index) if isinstance(index, int) else None
        if current is None or not isinstance(index, int):
            return [self._raw(event)]
        render = self._stop(self._attempt, index, event)
        if current.context is None or current.finaled:
            return [Out(render=render)]
        current.finaled = True
        return [Out(render=render, stream=current.key, context=current.context, final=True)]

    def _finals(self, source: str | None = None) -> list[Out]:
        """`final` outs for this attempt's blocks that are still open (all, or those of `source`): a
        stream must end before the next of its source starts, and when the upstream stream does."""
        outs: list[Out] = []
        attempt = self._attempt
        for index, block in self._blocks.items():
            context = block.context
            if context is None or block.finaled or (source is not None and context.source != source):
                continue
            block.finaled = True
            outs.append(
                Out(render=self._stop(attempt, index, None), stream=block.key, context=context, final=True)
            )
        return outs

    def _stop(self, attempt: int, index: int, event: SseEvent | None) -> Callable[[str], bytes]:
        return lambda _: self._render_block_stop(attempt, index, event)

    # Rendering (the client's side) -----------------------------------------------------------------

    def _render_message_start(self, event: SseEvent) -> bytes:
        if self._started:
            return b""
        self._started = True
        return event.encode()

    def _render_block_start(
        self, attempt: int, index: int, kind: str, event: SseEvent | None, data: Json
    ) -> bytes:
        if (attempt, index) in self._index:
            return b""  # a tool stream's start rendered already
        first = attempt not in self._began
        self._began.add(attempt)
        earlier = {c: k for c, (a, k) in self._open.items() if a != attempt}
        if first and kind == "text" and list(earlier.values()) == ["text"]:
            (client,) = earlier
            self._index[(attempt, index)] = client
            self._open[client] = (attempt, kind)
            return b""
        closed = b"".join(self._close(client) for client in earlier)
        client = self._next_index
        self._next_index += 1
        self._index[(attempt, index)] = client
        self._open[client] = (attempt, kind)
        if event is not None and client == index:
            return closed + event.encode()
        return closed + sse({**data, "index": client}, "content_block_start")

    def _render_delta(
        self, attempt: int, index: int, event: SseEvent | None, data: Json, field: str, part: str, full: str
    ) -> bytes:
        client = self._index.get((attempt, index), index)
        if not part:
            return b""
        if event is not None and client == index and part == full:
            return event.encode()
        delta = data.get("delta")
        fields: Json = dict(delta) if isinstance(delta, dict) else {}
        fields[field] = part
        return sse({**data, "index": client, "delta": fields}, "content_block_delta")

    def _render_signature(
        self, attempt: int, index: int, key: str, event: SseEvent, data: Json, part: str
    ) -> bytes:
        # A signature replaces the block's (the SDK assigns, never appends): a split one is sent whole.
        signature = self._signatures[key] = self._signatures.get(key, "") + part
        client = self._index.get((attempt, index), index)
        if client == index and signature == part:
            return event.encode()
        delta = data.get("delta")
        fields: Json = {**(delta if isinstance(delta, dict) else {}), "signature": signature}
        return sse({**data, "index": client, "delta": fields}, "content_block_delta")

    def _render_block_stop(self, attempt: int, index: int, event: SseEvent | None) -> bytes:
        client = self._index.get((attempt, index))
        if client is None or client not in self._open:
            return b""
        del self._open[client]
        if event is not None and client == index:
            return event.encode()
        return sse({"type": "content_block_stop", "index": client}, "content_block_stop")

    def _reindexed(self, attempt: int, index: int, event: SseEvent, data: Json) -> bytes:
        client = self._index.get((attempt, index), index)
        if client == index:
            return event.encode()
        return sse({**data, "index": client}, event.event or "content_block_delta")

    def _render_message_delta(self, event: SseEvent, data: Json) -> bytes:
        closed = self._close_all()
        self._delta_sent = True
        if self._attempt <= 1:
            return closed + event.encode()
        usage = delta_usage(data.get("usage"), self._total())
        return closed + sse({**data, "usage": usage}, event.event or "message_delta")

    def _end(self, event: SseEvent) -> Callable[[str], bytes]:
        attempt = self._attempt

        def render(_: str) -> bytes:
            self._finished = attempt
            return self._close_all() + event.encode()

        return render

    def _close(self, client: int) -> bytes:
        del self._open[client]
        return sse({"type": "content_block_stop", "index": client}, "content_block_stop")

    def _close_all(self) -> bytes:
        return b"".join(self._close(client) for client in sorted(self._open))

    def _total(self) -> Json:
        return summed_usage({}, self._usage)

    # Ending, retrying, non-streaming ----------------------------------------------------------------

    def closing(self, error: str | None = None) -> bytes:
        if self._finished is not None:
            return b""
        self._finished = self._attempt
        parts = [self._close_all()]
        if error is not None:
            parts.append(sse({"type": "error", "error": {"type": "api_error", "message": error}}, "error"))
            return b"".join(parts)
        if not self._started:
            self._started = True
            parts.insert(0, sse(self._first_start or synthetic_start(self._body), "message_start"))
        if not self._delta_sent:
            self._delta_sent = True
            usage = delta_usage({"output_tokens": 0}, self._total())
            stop: JsonValue = {"stop_reason": "end_turn", "stop_sequence": None}
            parts.append(sse({"type": "message_delta", "delta": stop, "usage": usage}, "message_delta"))
        parts.append(sse({"type": "message_stop"}, "message_stop"))
        return b"".join(parts)

    def retry_body(self, body: Json, injection: str, shown: str) -> Json:
        return retry_messages(body, injection, shown)

    def contents(self, response: Json) -> Sequence[tuple[MatchContext, str]]:
        return response_contents(response)

    def summed(self, response: Json, earlier: Sequence[Json]) -> Json:
        return summed_response(response, earlier)
