"""Renders of a Responses stream's parts (message content, reasoning summary and content) and of tool
calls, onto the client's view (see `_responses_client`)."""

from __future__ import annotations

from dataclasses import dataclass

from rein.proxy._codec import Json, SseEvent
from rein.proxy._responses_client import (
    CALL_FIELDS,
    INDEX_FIELDS,
    Attempt,
    ClientView,
    Part,
    num,
    obj,
    text_field,
)

DEFAULT_PARTS: dict[str, Json] = {
    "response.output_text.delta": {"type": "output_text", "text": "", "annotations": []},
    "response.refusal.delta": {"type": "refusal", "refusal": ""},
    "response.reasoning_summary_text.delta": {"type": "summary_text", "text": ""},
    "response.reasoning_text.delta": {"type": "reasoning_text", "text": ""},
}
"""The part each kind of delta writes into (opened for the client when the upstream did not say)."""
DELTA_TYPES = {str(part["type"]): kind for kind, part in DEFAULT_PARTS.items()}
_PART_ADDED = {"c": "response.content_part.added", "s": "response.reasoning_summary_part.added"}


@dataclass(frozen=True, slots=True)
class Where:
    """An upstream part: its item's output_index, kind ("c" or "s") and index."""

    output_index: int
    kind: str
    index: int

    @staticmethod
    def of(src: Json, kind: str) -> Where | None:
        u_oi, index = num(src.get("output_index")), num(src.get(INDEX_FIELDS[kind]))
        return None if u_oi is None or index is None else Where(u_oi, kind, index)

    @property
    def key(self) -> tuple[int, str, int]:
        return (self.output_index, self.kind, self.index)


def part_added(view: ClientView, att: Attempt, src: Json, event: SseEvent | None, kind: str) -> bytes:
    """A part opens: a new client part, or the continuation of the one a cut attempt left open."""
    where = Where.of(src, kind)
    if where is None or where.output_index not in att.items or where.key in att.parts:
        return view.passthrough(att, src, event)
    index = att.items[where.output_index]
    item = view.items[index]
    parts = item.parts.setdefault(kind, [])
    part = obj(src.get("part"))
    last = parts[-1] if parts else None
    if (
        last is not None
        and not last.done
        and last.attempt < att.number
        and last.part.get("type") == part.get("type")
    ):
        att.parts[where.key] = len(parts) - 1
        last.attempt = att.number
        return b""
    att.parts[where.key] = len(parts)
    parts.append(Part(part={**part, text_field(part): ""}, attempt=att.number))
    data = view.rewrite(att, src)
    data["part"] = part
    return view.emit(data, event, src)


def delta(
    view: ClientView, att: Attempt, src: Json, event: SseEvent | None, kind: str, text: str, first: bool
) -> bytes:
    """`text` (all or part of the upstream delta) appended to the client's part."""
    where = Where.of(src, kind)
    if where is None or where.output_index not in att.items:
        data = view.rewrite(att, src)
        data["delta"] = text
        return view.emit(data, event, src) if text else b""
    out = _ensure_part(view, att, src, where)
    if not text:
        return out
    item = view.items[att.items[where.output_index]]
    item.parts[kind][att.parts[where.key]].text += text
    data = view.rewrite(att, src)
    data["delta"] = text
    if not first and "logprobs" in data:
        data["logprobs"] = []  # they came with the upstream delta's first piece
    return out + view.emit(data, event, src)


def text_done(view: ClientView, att: Attempt, src: Json, event: SseEvent | None, kind: str) -> bytes:
    """output_text.done and kin: the full text the client received for the part."""
    where = Where.of(src, kind)
    if where is None or where.output_index not in att.items:
        return view.passthrough(att, src, event)
    out = _ensure_part(view, att, src, where)
    part = view.items[att.items[where.output_index]].parts[kind][att.parts[where.key]]
    data = view.rewrite(att, src)
    data[text_field(part.part)] = part.text
    return out + view.emit(data, event, src)


def part_done(view: ClientView, att: Attempt, src: Json, event: SseEvent | None, kind: str) -> bytes:
    where = Where.of(src, kind)
    if where is None or where.output_index not in att.items or where.key not in att.parts:
        return view.passthrough(att, src, event)
    part = view.items[att.items[where.output_index]].parts[kind][att.parts[where.key]]
    upstream = obj(src.get("part"))
    part.part = {**upstream, text_field(upstream): ""}
    part.done = True
    data = view.rewrite(att, src)
    data["part"] = {**upstream, text_field(upstream): part.text}
    return view.emit(data, event, src)


def _ensure_part(view: ClientView, att: Attempt, src: Json, where: Where) -> bytes:
    """Open the part for the client when the upstream wrote into it without adding it first."""
    if where.key in att.parts:
        return b""
    part = DEFAULT_PARTS.get(str(src.get("type")), DEFAULT_PARTS["response.output_text.delta"])
    synthetic: Json = {
        "type": _PART_ADDED[where.kind],
        "item_id": src.get("item_id"),
        "output_index": where.output_index,
        INDEX_FIELDS[where.kind]: where.index,
        "part": dict(part),
        "sequence_number": 0,
    }
    return part_added(view, att, synthetic, None, where.kind)


@dataclass(slots=True, kw_only=True)
class Call:
    """A tool call of the upstream stream, rendered whole: its added event goes out with its first piece."""

    output_index: int
    added: Json
    event: SseEvent | None


def call_piece(
    view: ClientView, att: Attempt, call: Call, src: Json, event: SseEvent | None, text: str
) -> bytes:
    """One piece of a held tool call: its argument delta (`text`), its arguments' done event, or the
    item's done event."""
    out = b""
    if call.output_index not in att.items:
        out += view.item_added(att, call.added, call.event)
    index = att.items.get(call.output_index)
    if index is None:
        return out
    item = view.items[index]
    kind = str(src.get("type"))
    if kind == "response.output_item.done":
        return out + view.item_done(att, src, event)
    data = view.rewrite(att, src)
    if kind.endswith(".delta"):
        if not text:
            return out
        item.arguments += text
        data["delta"] = text
    else:
        field = CALL_FIELDS.get(str(item.item.get("type")), "arguments")
        if not item.arguments and isinstance(src.get(field), str):
            item.arguments = str(src.get(field))
        data[field] = item.arguments
    return out + view.emit(data, event, src)
