"""What the client of a Responses stream has seen, and the renders that rewrite upstream events onto it.

Every method here runs at render time (the client's order) and returns the bytes to send. The client's
view is one response (the first attempt's id), its output items by the client's `output_index`, and the
text each content / summary part holds; an `Attempt` maps one upstream stream's indices and ids onto it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from rein.ai import JsonValue
from rein.proxy._codec import Json, SseEvent, sse

CALL_FIELDS = {"function_call": "arguments", "custom_tool_call": "input"}
"""Item types the proxy holds whole (tool calls), and the field with their streamed input."""
PART_LISTS = {"c": "content", "s": "summary"}
"""Part kinds: "c" a message's or a reasoning item's content (`content_index`), "s" a reasoning summary."""
INDEX_FIELDS = {"c": "content_index", "s": "summary_index"}
_TEXT_DONE = {
    "output_text": "response.output_text.done",
    "refusal": "response.refusal.done",
    "summary_text": "response.reasoning_summary_text.done",
    "reasoning_text": "response.reasoning_text.done",
}
_PART_EVENTS = {"c": "response.content_part", "s": "response.reasoning_summary_part"}


def text_field(part: Json) -> str:
    return "refusal" if part.get("type") == "refusal" else "text"


def obj(value: JsonValue) -> Json:
    return dict(value) if isinstance(value, dict) else {}


def num(value: JsonValue) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def add_usage(a: JsonValue, b: JsonValue) -> JsonValue:
    """Usage objects summed field by field (numbers added, nested objects merged)."""
    if a is None:
        return b
    if b is None:
        return a
    if isinstance(a, dict) and isinstance(b, dict):
        return {k: add_usage(a.get(k), b.get(k)) for k in {**a, **b}}
    if (
        isinstance(a, int | float)
        and isinstance(b, int | float)
        and not isinstance(a, bool)
        and not isinstance(b, bool)
    ):
        return a + b
    return b


@dataclass(slots=True, kw_only=True)
class Attempt:
    """One upstream stream's map onto the client's (filled as its events are rendered)."""

    number: int
    items: dict[int, int] = field(default_factory=dict)
    """Upstream output_index to the client's."""
    parts: dict[tuple[int, str, int], int] = field(default_factory=dict)
    """(upstream output_index, kind, upstream part index) to the client's part index."""
    ids: dict[str, str] = field(default_factory=dict)
    """Upstream item ids and call ids to the client's."""
    added: bool = False


@dataclass(slots=True, kw_only=True)
class Part:
    part: Json
    attempt: int
    text: str = ""
    done: bool = False


@dataclass(slots=True, kw_only=True)
class Item:
    item: Json
    attempt: int
    parts: dict[str, list[Part]] = field(default_factory=dict)
    arguments: str = ""
    done: bool = False

    def json(self, status: str | None = None) -> Json:
        """The item as the client knows it: its parts' text as received."""
        item = dict(self.item)
        kind = item.get("type")
        for key, name in PART_LISTS.items():
            if key in self.parts or (kind == "reasoning" and name == "summary"):
                item[name] = [{**p.part, text_field(p.part): p.text} for p in self.parts.get(key, [])]
        if isinstance(kind, str) and kind in CALL_FIELDS:
            item[CALL_FIELDS[kind]] = self.arguments
        if status is not None:
            item["status"] = status
        return item


class ClientView:
    """The client's stream so far. See the module docstring."""

    def __init__(self, body: Json) -> None:
        self.body = body
        self.seq = 0
        self.base: Json | None = None
        """The first upstream response (its id and created_at are the client's)."""
        self.lifecycle: set[str] = set()
        self.items: list[Item] = []
        self.ids: set[str] = set()
        self.usage: JsonValue = None
        """The usage of the cut attempts (summed into the client's final usage)."""
        self.finished = False

    # emitting -------------------------------------------------------------------------------------

    def emit(self, data: Json, event: SseEvent | None = None, src: Json | None = None) -> bytes:
        """One event to the client, numbered; byte-identical to the upstream event when unchanged."""
        head = b""
        kind = data.get("type")
        if not self.lifecycle and kind not in ("response.created", "error"):
            head = self.emit(self._synthetic("response.created", "in_progress"))
        if event is None or "sequence_number" in data:
            data["sequence_number"] = self.seq
            self.seq += 1
        if kind == "response.created":
            self.lifecycle.add(kind)
        if event is not None and data == src:
            return head + event.encode()
        return head + sse(data, event.event if event is not None else str(kind))

    def response(self, upstream: Json) -> Json:
        """An upstream response object with the client's id and creation time."""
        response = dict(upstream)
        base = self.base or self._base()
        for key in ("id", "created_at"):
            if key in base:
                response[key] = base[key]
        return response

    def output(self) -> list[JsonValue]:
        return [item.json() for item in self.items]

    def _base(self) -> Json:
        body = self.body
        base: Json = {
            "id": "resp_rein_proxy",
            "object": "response",
            "created_at": 0,
            "model": body.get("model"),
        }
        for key, default in (
            ("instructions", None),
            ("metadata", {}),
            ("parallel_tool_calls", True),
            ("temperature", None),
            ("tool_choice", "auto"),
            ("tools", []),
            ("top_p", None),
        ):
            base[key] = body.get(key, default)
        return {**base, "status": "in_progress", "output": [], "error": None, "incomplete_details": None}

    def _synthetic(self, kind: str, status: str, **fields: JsonValue) -> Json:
        response = self.response(obj(self.base) if self.base is not None else self._base())
        response.update(status=status, output=self.output() if status != "in_progress" else [], **fields)
        if status == "in_progress":
            response["usage"] = None
        return {"type": kind, "sequence_number": 0, "response": response}

    # mapping upstream onto the client -------------------------------------------------------------

    def rewrite(self, att: Attempt, src: Json) -> Json:
        """A copy of `src` with the client's output index, item id, part index and response id."""
        data = dict(src)
        u_oi = num(src.get("output_index"))
        if u_oi is not None and u_oi in att.items:
            data["output_index"] = att.items[u_oi]
        item_id = src.get("item_id")
        if isinstance(item_id, str) and item_id in att.ids:
            data["item_id"] = att.ids[item_id]
        for kind, name in INDEX_FIELDS.items():
            index = num(src.get(name))
            if u_oi is not None and index is not None and (u_oi, kind, index) in att.parts:
                data[name] = att.parts[(u_oi, kind, index)]
        if isinstance(src.get("response"), dict):
            data["response"] = self.response(obj(src.get("response")))
        return data

    def passthrough(self, att: Attempt, src: Json, event: SseEvent | None) -> bytes:
        return self.emit(self.rewrite(att, src), event, src)

    def _unique(self, value: str, att: Attempt) -> str:
        found, n = value, 1
        while found in self.ids:
            n += 1
            found = f"{value}_{att.number}" if n == 2 else f"{value}_{att.number}_{n}"
        self.ids.add(found)
        att.ids[value] = found
        return found

    # lifecycle ------------------------------------------------------------------------------------

    def lifecycle_event(self, att: Attempt, src: Json, event: SseEvent | None) -> bytes:
        """response.created / in_progress / queued: once per client stream, with the client's id."""
        kind = str(src.get("type"))
        if kind in self.lifecycle:
            return b""
        self.lifecycle.add(kind)
        return self.passthrough(att, src, event)

    def terminal(self, att: Attempt, src: Json, event: SseEvent | None) -> bytes:
        """response.completed / incomplete / failed: the client's output and the summed usage."""
        out = self.close_open(att.number)
        data = dict(src)
        response = self.response(obj(src.get("response")))
        response["output"] = self.output()
        usage = add_usage(self.usage, response.get("usage"))
        if usage is not None:
            response["usage"] = usage
        data["response"] = response
        self.finished = True
        return out + self.emit(data, event, src)

    def closing(self, error: str | None, pending_usage: JsonValue) -> bytes:
        """End the client's stream: incomplete (content_filter) after a cut, or failed with `error`."""
        if self.finished:
            return b""
        self.finished = True
        usage = add_usage(self.usage, pending_usage)
        if error is None:
            out = self.close_open(None)
            reason: JsonValue = {"reason": "content_filter"}
            return out + self.emit(
                self._synthetic("response.incomplete", "incomplete", incomplete_details=reason, usage=usage)
            )
        failure: JsonValue = {"code": "server_error", "message": error}
        head = self.emit({"type": "error", "code": "server_error", "message": error, "param": None})
        response = self._synthetic("response.failed", "failed", error=failure, usage=usage)
        response_obj = obj(response["response"])
        response_obj["output"] = [i.json(None if i.done else "incomplete") for i in self.items]
        response["response"] = response_obj
        return head + self.emit(response)

    # items ----------------------------------------------------------------------------------------

    def item_added(self, att: Attempt, src: Json, event: SseEvent | None) -> bytes:
        u_oi = num(src.get("output_index"))
        item = obj(src.get("item"))
        if u_oi is None or not item or u_oi in att.items:
            return self.passthrough(att, src, event)
        kind = item.get("type")
        first, att.added = not att.added, True
        last = self.items[-1] if self.items else None
        if (
            first
            and last is not None
            and not last.done
            and last.attempt < att.number
            and kind in ("message", "reasoning")
            and last.item.get("type") == kind
        ):
            att.items[u_oi] = len(self.items) - 1  # the client's open item continues
            if isinstance(item.get("id"), str) and isinstance(last.item.get("id"), str):
                att.ids[str(item["id"])] = str(last.item["id"])
            last.attempt = att.number
            return b""
        out = self.close_open(att.number)
        for key in ("id", "call_id"):
            if isinstance(value := item.get(key), str):
                item[key] = self._unique(value, att)
        att.items[u_oi] = len(self.items)
        self.items.append(Item(item=item, attempt=att.number))
        data = dict(src)
        data.update(output_index=att.items[u_oi], item=item)
        return out + self.emit(data, event, src)

    def item_done(self, att: Attempt, src: Json, event: SseEvent | None) -> bytes:
        u_oi = num(src.get("output_index"))
        if u_oi is None or u_oi not in att.items:
            return self.passthrough(att, src, event)
        item = self.items[att.items[u_oi]]
        upstream = obj(src.get("item"))
        done = dict(upstream)
        for key in ("id", "call_id"):
            if key in item.item:
                done[key] = item.item[key]
        for kind, name in PART_LISTS.items():
            bases = upstream.get(name)
            mine = {k: i for (o, kd, i), k in att.parts.items() if o == u_oi and kd == kind}
            for k, part in enumerate(item.parts.get(kind, [])):
                index = mine.get(k)
                if isinstance(bases, list) and index is not None and index < len(bases):
                    part.part = {**obj(bases[index]), text_field(part.part): ""}
                part.done = True
        item_type = done.get("type")
        if isinstance(item_type, str) and item_type in CALL_FIELDS and not item.arguments:
            item.arguments = str(done.get(CALL_FIELDS[item_type]) or "")
        item.item, item.done = done, True
        data = dict(src)
        data.update(output_index=att.items[u_oi], item=item.json())
        return self.emit(data, event, src)

    def close_open(self, before: int | None) -> bytes:
        """Close the client's items left open by an earlier (cut) attempt: done events with the text the
        client received, status "incomplete". `before` None: every open item."""
        out = b""
        for index, item in enumerate(self.items):
            if item.done or (before is not None and item.attempt >= before):
                continue
            item_id = item.item.get("id")
            for kind, parts in item.parts.items():
                for k, part in enumerate(parts):
                    if not part.done:
                        out += self._close_part(item_id, index, kind, k, part)
            item.item, item.done = {**item.item, "status": "incomplete"}, True
            out += self.emit(
                {"type": "response.output_item.done", "output_index": index, "item": item.json()}
            )
        return out

    def _close_part(self, item_id: JsonValue, index: int, kind: str, k: int, part: Part) -> bytes:
        where: Json = {"item_id": item_id, "output_index": index, INDEX_FIELDS[kind]: k}
        part.done = True
        out = b""
        done_type = _TEXT_DONE.get(str(part.part.get("type")))
        if done_type is not None:
            extra: Json = {"logprobs": []} if done_type == "response.output_text.done" else {}
            out += self.emit({"type": done_type, **where, text_field(part.part): part.text, **extra})
        whole: Json = {**part.part, text_field(part.part): part.text}
        return out + self.emit({"type": f"{_PART_EVENTS[kind]}.done", **where, "part": whole})
