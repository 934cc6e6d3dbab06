"""Where rein answers otherwise than the fork on purpose: each difference the replay forgives, with
the reason, as docs/server.md's compatibility table lists them. Nothing else is forgiven.

- `OPTIONAL`: fields of pi-ai's types that are optional and that rein's provider layer does not
  carry (`Usage.reasoning`, `AssistantMessage.responseModel` and `rawStopReason`, and the name of
  the field an OpenAI-compatible reply carried its reasoning in, which pi-ai keeps as the thinking
  block's signature); the fork's answer has them, rein's may not. Keyed by (the object's key in its
  parent, the field).
- Stream events: pi-ai's providers interleave blocks (a `thinking_end` after the text that followed
  it, a text's `text_end` after a tool call's deltas) and send empty deltas; rein closes a block
  before the next opens and never sends an empty delta. pi's client folds both into the same
  message, so events are compared block by block: each block's events in order, blocks by index.
- The token limit of an OpenAI-compatible server (`--base-url`) is `max_tokens`, which llama.cpp and
  Ollama read, where pi-ai writes `max_completion_tokens`: the value is compared under one name. A
  compaction's summary requests always carry rein's summary limit, where the fork may send none.
"""

from __future__ import annotations

from collections.abc import Sequence

OPTIONAL: frozenset[tuple[str, str]] = frozenset({
    ("usage", "reasoning"), ("message", "responseModel"), ("message", "rawStopReason"),
    ("data", "contentSignature"), ("content", "thinkingSignature"),
})  # fmt: skip
LIMITS = ("max_completion_tokens", "max_tokens")
BOUNDARY = ("start", "done", "error")


def without_optional(value: object, parent: str = "") -> object:
    """`value` without the `OPTIONAL` fields (what the fork answered, before it is compared)."""
    if isinstance(value, dict):
        return {
            key: without_optional(item, key) for key, item in value.items() if (parent, key) not in OPTIONAL
        }
    if isinstance(value, list):
        return [without_optional(item, parent) for item in value]
    return value


def by_block(events: Sequence[object]) -> list[object]:
    """SSE events with each block's events together, blocks by `contentIndex` (a stable sort: the
    order within a block is kept), `start` first and the final event last; empty deltas dropped."""
    kept = [event for event in events if not _empty_delta(event)]
    first = [event for event in kept[:1] if _type(event) == "start"]
    last = [event for event in kept[len(first) :][-1:] if _type(event) in BOUNDARY]
    middle = kept[len(first) : len(kept) - len(last)]
    return [*first, *sorted(middle, key=_index), *last]


def upstream_fields(calls: Sequence[object], compaction: bool) -> list[object]:
    """The upstream's request fields with the token limit under one name (none for a compaction)."""
    out: list[object] = []
    for call in calls:
        if not isinstance(call, dict):
            out.append(call)
            continue
        fields = {key: value for key, value in call.items() if key not in LIMITS}
        limit = next((call[key] for key in LIMITS if key in call), None)
        if limit is not None and not compaction:
            fields["token_limit"] = limit
        out.append(fields)
    return out


def _data(event: object) -> dict[str, object]:
    data = event.get("data") if isinstance(event, dict) else None
    return data if isinstance(data, dict) else {}


def _type(event: object) -> object:
    return _data(event).get("type")


def _index(event: object) -> int:
    index = _data(event).get("contentIndex")
    return index if isinstance(index, int) else -1


def _empty_delta(event: object) -> bool:
    data = _data(event)
    return str(data.get("type", "")).endswith("_delta") and data.get("delta") == ""
