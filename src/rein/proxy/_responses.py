"""The OpenAI Responses API (`/v1/responses`) codec.

Streams: every message content part (`output_text`, `refusal`) is a text stream, every reasoning summary
part and reasoning content part a thinking stream, every function call (JSON arguments) and custom tool
call (free-form input) a tool stream, held whole: its `output_item.added` goes out with its arguments
once the call is complete. Everything else is structural, rewritten onto the client's stream at render
time (`_responses_client`): sequence numbers renumbered from 0, the first attempt's response id, the
client's item ids and output / content / summary indices. An event nothing needed to change in passes
through byte for byte.

After a cut, the next attempt's first output item continues the item the client has open when both are
messages (or both reasoning): same item id and output index, its first part continuing the open part;
otherwise the open item is closed first (its done events carry the text the client received, status
"incomplete"). Only `response.completed` / `.incomplete` / `.failed` report usage, so a cut attempt adds
usage only if the cut came after its final event (a rule firing at the end of the stream); the client's
final usage is the sum of every attempt that reported one.

Upstreams that skip events are made whole for the client: a part written without `content_part.added`
is opened for it, and text that arrives only in a done event or in the final response (no deltas) is
checked and sent as a delta first, so no path bypasses the rules.
"""

from __future__ import annotations

from collections.abc import Sequence

from rein.ai import JsonValue
from rein.proxy._codec import Api, Json, Out, Render, SseEvent, as_items
from rein.proxy._responses_client import (
    CALL_FIELDS,
    PART_LISTS,
    Attempt,
    ClientView,
    add_usage,
    num,
    obj,
    text_field,
)
from rein.proxy._responses_parts import (
    DELTA_TYPES,
    Call,
    Where,
    call_piece,
    delta,
    part_added,
    part_done,
    text_done,
)
from rein.ttsr import MatchContext, Source

_DELTAS: dict[str, tuple[str, Source]] = {
    "response.output_text.delta": ("c", "text"),
    "response.refusal.delta": ("c", "text"),
    "response.reasoning_summary_text.delta": ("s", "thinking"),
    "response.reasoning_text.delta": ("c", "thinking"),
}
_TEXT_DONES = {
    "response.output_text.done": ("c", "response.output_text.delta"),
    "response.refusal.done": ("c", "response.refusal.delta"),
    "response.reasoning_summary_text.done": ("s", "response.reasoning_summary_text.delta"),
    "response.reasoning_text.done": ("c", "response.reasoning_text.delta"),
}
_PART_ADDED = {"response.content_part.added": "c", "response.reasoning_summary_part.added": "s"}
_PART_DONE = {"response.content_part.done": "c", "response.reasoning_summary_part.done": "s"}
_CALL_DELTAS = {"response.function_call_arguments.delta", "response.custom_tool_call_input.delta"}
_CALL_DONES = {"response.function_call_arguments.done", "response.custom_tool_call_input.done"}
_LIFECYCLE = {"response.created", "response.in_progress", "response.queued"}
_TERMINAL = {"response.completed", "response.incomplete", "response.failed"}
_CONTEXTS: dict[Source, MatchContext] = {
    "text": MatchContext(source="text"),
    "thinking": MatchContext(source="thinking"),
}
_Key = tuple[int, str, int]


def _nothing(_: str) -> bytes:
    return b""


class ResponsesCodec:
    """See the module docstring; follows the `Codec` protocol."""

    api: Api = "responses"

    def __init__(self, body: Json) -> None:
        self._body = body
        self._view = ClientView(body)
        self._number = -1
        self._counter = 0
        self.start_attempt()

    def start_attempt(self) -> None:
        self._number += 1
        self._att = Attempt(number=self._number)
        self._open: dict[_Key, tuple[str, MatchContext]] = {}
        self._streamed: set[_Key] = set()
        self._calls: dict[int, Call] = {}
        self._seen: set[int] = set()
        self._usage: JsonValue = None

    def feed(self, event: SseEvent) -> list[Out]:
        try:
            src = event.json()
        except ValueError:
            return [Out(render=lambda _: event.encode())]
        if not isinstance(src, dict) or not isinstance(src.get("type"), str):
            return [Out(render=lambda _: event.encode())]
        return self._feed(src, event)

    def cut(self) -> None:
        self._view.usage = add_usage(self._view.usage, self._usage)
        self._usage = None

    def closing(self, error: str | None = None) -> bytes:
        return self._view.closing(error, self._usage)

    def retry_body(self, body: Json, injection: str, shown: str) -> Json:
        items = as_items(body.get("input"))
        if shown:
            items.append({"role": "assistant", "content": shown})
        items.append({"role": "user", "content": injection})
        return {**body, "input": items}

    def contents(self, response: Json) -> Sequence[tuple[MatchContext, str]]:
        found: list[tuple[MatchContext, str]] = []
        output = response.get("output")
        for entry in output if isinstance(output, list) else []:
            item = obj(entry)
            kind = item.get("type")
            if isinstance(kind, str) and kind in CALL_FIELDS:
                found.append((_call_context(item), str(item.get(CALL_FIELDS[kind]) or "")))
                continue
            for name in PART_LISTS.values():
                parts = item.get(name)
                for entry_part in parts if isinstance(parts, list) else []:
                    part = obj(entry_part)
                    text = part.get(text_field(part))
                    source: Source = "text" if kind == "message" else "thinking"
                    if isinstance(text, str) and text and kind in ("message", "reasoning"):
                        found.append((_CONTEXTS[source], text))
        return found

    def summed(self, response: Json, earlier: Sequence[Json]) -> Json:
        usage: JsonValue = None
        for previous in earlier:
            usage = add_usage(usage, previous.get("usage"))
        if usage is None:
            return response
        return {**response, "usage": add_usage(usage, response.get("usage"))}

    # feeding --------------------------------------------------------------------------------------

    def _feed(self, src: Json, event: SseEvent | None) -> list[Out]:
        kind = str(src.get("type"))
        att, view = self._att, self._view
        if kind in _DELTAS:
            return self._delta(src, event)
        if kind in _TEXT_DONES:
            return self._text_done(src, event)
        if kind in _PART_ADDED:
            part_kind = _PART_ADDED[kind]
            return [Out(render=lambda _: part_added(view, att, src, event, part_kind))]
        if kind in _PART_DONE:
            return self._part_done(src, event)
        if kind == "response.output_item.added":
            return self._item_added(src, event)
        if kind == "response.output_item.done":
            return self._item_done(src, event)
        if kind in _CALL_DELTAS or kind in _CALL_DONES:
            return self._call(src, event)
        if kind in _LIFECYCLE:
            if view.base is None and kind == "response.created":
                view.base = obj(src.get("response"))
            return [Out(render=lambda _: view.lifecycle_event(att, src, event))]
        if kind in _TERMINAL:
            return self._terminal(src, event)
        outs = self._end_all() if kind == "error" else []
        return [*outs, Out(render=lambda _: view.passthrough(att, src, event))]

    def _delta(self, src: Json, event: SseEvent | None) -> list[Out]:
        part_kind, source = _DELTAS[str(src.get("type"))]
        where, text = Where.of(src, part_kind), src.get("delta")
        att, view = self._att, self._view
        if where is None or not isinstance(text, str):
            return [Out(render=lambda _: view.passthrough(att, src, event))]
        outs, stream = self._open_stream(where.key, _CONTEXTS[source])
        first = True

        def render(part: str) -> bytes:
            nonlocal first
            was, first = first, False
            return delta(view, att, src, event, part_kind, part, was)

        outs.append(Out(render=render, text=text, stream=stream, context=_CONTEXTS[source]))
        return outs

    def _text_done(self, src: Json, event: SseEvent | None) -> list[Out]:
        part_kind, delta_type = _TEXT_DONES[str(src.get("type"))]
        where = Where.of(src, part_kind)
        att, view = self._att, self._view
        outs: list[Out] = []
        if where is not None:
            full = src.get("refusal" if delta_type == "response.refusal.delta" else "text")
            outs += self._backfill(where, delta_type, src.get("item_id"), full)
            outs += self._end(where.key)
        outs.append(Out(render=lambda _: text_done(view, att, src, event, part_kind)))
        return outs

    def _part_done(self, src: Json, event: SseEvent | None) -> list[Out]:
        part_kind = _PART_DONE[str(src.get("type"))]
        where = Where.of(src, part_kind)
        att, view = self._att, self._view
        outs: list[Out] = []
        if where is not None:
            part = obj(src.get("part"))
            delta_type = DELTA_TYPES.get(str(part.get("type")))
            if delta_type is not None:
                outs += self._backfill(where, delta_type, src.get("item_id"), part.get(text_field(part)))
            outs += self._end(where.key)
        outs.append(Out(render=lambda _: part_done(view, att, src, event, part_kind)))
        return outs

    def _item_added(self, src: Json, event: SseEvent | None) -> list[Out]:
        outs = self._end_all()
        att, view = self._att, self._view
        index, item = num(src.get("output_index")), obj(src.get("item"))
        if index is not None:
            self._seen.add(index)
            if str(item.get("type")) in CALL_FIELDS:
                self._calls[index] = Call(output_index=index, added=src, event=event)
                return outs
        outs.append(Out(render=lambda _: view.item_added(att, src, event)))
        return outs

    def _item_done(self, src: Json, event: SseEvent | None) -> list[Out]:
        index, item = num(src.get("output_index")), obj(src.get("item"))
        att, view = self._att, self._view
        if index is None:
            return [Out(render=lambda _: view.passthrough(att, src, event))]
        outs: list[Out] = []
        if index not in self._seen:
            outs += self._feed(_added(index, item), None)
        if index in self._calls:
            return outs + self._call(src, event)
        for part_kind, name in PART_LISTS.items():
            parts = item.get(name)
            for k, entry in enumerate(parts if isinstance(parts, list) else []):
                part = obj(entry)
                delta_type = DELTA_TYPES.get(str(part.get("type")))
                if delta_type is not None:
                    outs += self._backfill(
                        Where(index, part_kind, k), delta_type, item.get("id"), part.get(text_field(part))
                    )
        for key in [k for k in self._open if k[0] == index]:
            outs += self._end(key)
        outs.append(Out(render=lambda _: view.item_done(att, src, event)))
        return outs

    def _call(self, src: Json, event: SseEvent | None) -> list[Out]:
        """A tool call's piece: its argument delta, its arguments' done event, its item's done event."""
        index, kind = num(src.get("output_index")), str(src.get("type"))
        att, view = self._att, self._view
        call = self._calls.get(index) if index is not None else None
        if call is None:
            return [Out(render=lambda _: view.passthrough(att, src, event))]
        key: _Key = (call.output_index, "t", 0)
        context = _call_context(obj(call.added.get("item")))
        if kind in _CALL_DELTAS and isinstance(text := src.get("delta"), str):
            outs, stream = self._open_stream(key, context)
            render: Render = lambda part: call_piece(view, att, call, src, event, part)  # noqa: E731
            return [*outs, Out(render=render, text=text, stream=stream, context=context)]
        outs = []
        if key not in self._streamed:
            item = obj(src.get("item")) if kind == "response.output_item.done" else src
            full = item.get(CALL_FIELDS.get(str(obj(call.added.get("item")).get("type")), "arguments"))
            if isinstance(full, str) and full:
                piece: Json = {
                    "type": "response.function_call_arguments.delta",
                    "output_index": index,
                    "delta": full,
                }
                piece["item_id"] = obj(call.added.get("item")).get("id")
                outs += self._call(piece, None)
        outs += self._end(key)
        outs.append(Out(render=lambda _: call_piece(view, att, call, src, event, "")))
        return outs

    def _terminal(self, src: Json, event: SseEvent | None) -> list[Out]:
        response = obj(src.get("response"))
        output = response.get("output")
        outs: list[Out] = []
        for index, item in enumerate(output if isinstance(output, list) else []):
            if index not in self._seen and isinstance(item, dict):
                outs += self._feed(_added(index, item), None)
                outs += self._feed(
                    {"type": "response.output_item.done", "output_index": index, "item": item}, None
                )
        outs += self._end_all()
        self._usage = add_usage(self._usage, response.get("usage"))
        att, view = self._att, self._view
        outs.append(Out(render=lambda _: view.terminal(att, src, event)))
        return outs

    # streams --------------------------------------------------------------------------------------

    def _open_stream(self, key: _Key, context: MatchContext) -> tuple[list[Out], str]:
        """The stream for `key`, opened (after ending the open one of the same source) if need be."""
        if key in self._open:
            return [], self._open[key][0]
        outs: list[Out] = []
        for other, (_, ctx) in list(self._open.items()):
            if ctx.source == context.source and context.source != "tool":
                outs += self._end(other)
        self._counter += 1
        stream = f"{self._number}:{context.source}:{key[0]}:{key[1]}{key[2]}:{self._counter}"
        self._open[key] = (stream, context)
        self._streamed.add(key)
        return outs, stream

    def _end(self, key: _Key) -> list[Out]:
        found = self._open.pop(key, None)
        if found is None:
            return []
        return [Out(render=_nothing, stream=found[0], context=found[1], final=True)]

    def _end_all(self) -> list[Out]:
        return [out for key in list(self._open) for out in self._end(key)]

    def _backfill(self, where: Where, delta_type: str, item_id: JsonValue, full: JsonValue) -> list[Out]:
        """Text the upstream gave only whole (no deltas): checked and sent as one delta."""
        if where.key in self._streamed or not isinstance(full, str) or not full:
            return []
        index_field = "summary_index" if where.kind == "s" else "content_index"
        piece: Json = {"type": delta_type, "item_id": item_id, "output_index": where.output_index}
        piece.update({index_field: where.index, "delta": full, "sequence_number": 0})
        return self._delta(piece, None)


def _added(index: int, item: Json) -> Json:
    """The output_item.added an upstream left out, for an item it finished: the item, emptied."""
    empty = {k: v for k, v in item.items() if k not in ("content", "summary")}
    kind = str(item.get("type"))
    if kind in CALL_FIELDS:
        empty[CALL_FIELDS[kind]] = ""
    if kind in ("message", "reasoning"):
        empty.update({"content": []} if kind == "message" else {"summary": []})
    return {"type": "response.output_item.added", "output_index": index, "item": empty, "sequence_number": 0}


def _call_context(item: Json) -> MatchContext:
    name, call_id = item.get("name"), item.get("call_id")
    return MatchContext(
        source="tool",
        tool_name=name if isinstance(name, str) else None,
        tool_call_id=call_id if isinstance(call_id, str) else None,
        json_arguments=item.get("type") != "custom_tool_call",
    )
