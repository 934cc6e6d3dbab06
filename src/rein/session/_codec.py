"""JSON objects <-> entries, for both dialects. Narrows JSON at this edge; no I/O.

A dialect is a `Keys` table naming the multi-word fields: rein writes `parent_id`, pi `parentId`. The
one-word fields (`type`, `id`, `timestamp`, `message`, `summary`, `data`, ...) are the same in both.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import assert_never

from rein.session._entries import (
    BranchSummaryEntry,
    CompactionEntry,
    Content,
    CustomEntry,
    CustomMessageEntry,
    Entry,
    JsonObject,
    LabelEntry,
    MessageEntry,
    ModelChangeEntry,
    SessionHeader,
    ThinkingLevelChangeEntry,
    UnknownEntry,
)

REIN_VERSION = 1
"""The version of rein's own format; files that declare a newer one are opened read-only."""

LEAF = "leaf"
"""rein's leaf record `{"type": "leaf", "target_id": <id or null>, "timestamp": ...}`: a branch move.
It is not an entry (no id, not in the tree); the leaf is the target of the last one, unless an entry was
appended after it."""


@dataclass(frozen=True, slots=True)
class Keys:
    """The names a dialect gives to the multi-word fields."""

    parent_id: str
    custom_type: str
    first_kept_entry_id: str
    tokens_before: str
    from_hook: str
    from_id: str
    model_id: str
    thinking_level: str
    target_id: str


REIN_KEYS = Keys(
    "parent_id", "custom_type", "first_kept_entry_id", "tokens_before", "from_hook", "from_id",
    "model_id", "thinking_level", "target_id",
)  # fmt: skip


class Malformed(ValueError):
    """A known entry kind whose fields do not fit it; the message names the field."""


def _str(raw: JsonObject, key: str) -> str:
    value = raw.get(key)
    if isinstance(value, str):
        return value
    raise Malformed(f"`{key}` must be a string")


def _opt_str(raw: JsonObject, key: str) -> str | None:
    value = raw.get(key)
    if value is None or isinstance(value, str):
        return value
    raise Malformed(f"`{key}` must be a string or null")


def _content(raw: JsonObject) -> Content:
    value = raw.get("content")
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(block, dict) for block in value):
        return value
    raise Malformed("`content` must be a string or a list of objects")


def _message(raw: JsonObject, base: tuple[str, str | None, str], k: Keys) -> Entry:
    message = raw.get("message")
    if not isinstance(message, dict):
        raise Malformed("`message` must be an object")
    return MessageEntry(id=base[0], parent_id=base[1], timestamp=base[2], message=message)


def _custom(raw: JsonObject, base: tuple[str, str | None, str], k: Keys) -> Entry:
    custom_type = _str(raw, k.custom_type)
    return CustomEntry(
        id=base[0], parent_id=base[1], timestamp=base[2], custom_type=custom_type, data=raw.get("data")
    )


def _custom_message(raw: JsonObject, base: tuple[str, str | None, str], k: Keys) -> Entry:
    return CustomMessageEntry(
        id=base[0],
        parent_id=base[1],
        timestamp=base[2],
        custom_type=_str(raw, k.custom_type),
        content=_content(raw),
        display=raw.get("display") is True,
        details=raw.get("details"),
    )


def _compaction(raw: JsonObject, base: tuple[str, str | None, str], k: Keys) -> Entry:
    tokens = raw.get(k.tokens_before, 0)
    if not isinstance(tokens, int) or isinstance(tokens, bool):
        raise Malformed(f"`{k.tokens_before}` must be an integer")
    return CompactionEntry(
        id=base[0],
        parent_id=base[1],
        timestamp=base[2],
        summary=_str(raw, "summary"),
        first_kept_entry_id=_str(raw, k.first_kept_entry_id),
        tokens_before=tokens,
        details=raw.get("details"),
        from_hook=raw.get(k.from_hook) is True,
    )


def _branch_summary(raw: JsonObject, base: tuple[str, str | None, str], k: Keys) -> Entry:
    return BranchSummaryEntry(
        id=base[0],
        parent_id=base[1],
        timestamp=base[2],
        from_id=_str(raw, k.from_id),
        summary=_str(raw, "summary"),
        details=raw.get("details"),
        from_hook=raw.get(k.from_hook) is True,
    )


def _model_change(raw: JsonObject, base: tuple[str, str | None, str], k: Keys) -> Entry:
    return ModelChangeEntry(
        id=base[0],
        parent_id=base[1],
        timestamp=base[2],
        provider=_str(raw, "provider"),
        model_id=_str(raw, k.model_id),
    )


def _thinking(raw: JsonObject, base: tuple[str, str | None, str], k: Keys) -> Entry:
    level = _str(raw, k.thinking_level)
    return ThinkingLevelChangeEntry(id=base[0], parent_id=base[1], timestamp=base[2], thinking_level=level)


def _label(raw: JsonObject, base: tuple[str, str | None, str], k: Keys) -> Entry:
    return LabelEntry(
        id=base[0],
        parent_id=base[1],
        timestamp=base[2],
        target_id=_str(raw, k.target_id),
        label=_opt_str(raw, "label"),
    )


_DECODERS: dict[str, Callable[[JsonObject, tuple[str, str | None, str], Keys], Entry]] = {
    "message": _message,
    "custom": _custom,
    "custom_message": _custom_message,
    "compaction": _compaction,
    "branch_summary": _branch_summary,
    "model_change": _model_change,
    "thinking_level_change": _thinking,
    "label": _label,
}


def decode_entry(raw: JsonObject, k: Keys) -> Entry:
    """The entry a JSON object describes. Unknown kinds become `UnknownEntry`.

    Raises `Malformed` when the object has no usable `id`/`parent_id`, or a known kind's fields do not
    fit (the loader then keeps it as an `UnknownEntry` via `unknown_entry`).
    """
    kind = raw.get("type")
    timestamp = raw.get("timestamp")
    if kind == "message":  # most lines: no helper calls (this loop is most of the load time)
        entry_id, parent, message = raw.get("id"), raw.get(k.parent_id), raw.get("message")
        if (
            type(entry_id) is str
            and type(message) is dict
            and type(timestamp) is str
            and (parent is None or type(parent) is str)
        ):
            return MessageEntry(id=entry_id, parent_id=parent, timestamp=timestamp, message=message)
    base = (_str(raw, "id"), _opt_str(raw, k.parent_id), timestamp if isinstance(timestamp, str) else "")
    decoder = _DECODERS.get(kind) if isinstance(kind, str) else None
    if decoder is None:
        return unknown_entry(raw, k)
    return decoder(raw, base, k)


def decode_or_unknown(raw: JsonObject, k: Keys) -> Entry:
    """`raw` decoded, or kept as an unknown entry when it does not decode (a newer writer's entry);
    raises `Malformed` only without a string `id`."""
    try:
        return decode_entry(raw, k)
    except Malformed:
        return unknown_entry(raw, k)


def unknown_entry(raw: JsonObject, k: Keys) -> UnknownEntry:
    """`raw` kept as it is; raises `Malformed` without a string `id` (it could not join the tree)."""
    kind = raw.get("type")
    timestamp = raw.get("timestamp")
    return UnknownEntry(
        id=_str(raw, "id"),
        parent_id=_opt_str(raw, k.parent_id),
        timestamp=timestamp if isinstance(timestamp, str) else "",
        original_type=kind if isinstance(kind, str) else repr(kind),
        raw=raw,
    )


def encode_entry(entry: Entry, k: Keys) -> dict[str, object]:
    """The JSON object for `entry`; optional fields at their defaults are left out (as pi does).

    Raises `Malformed` for an `UnknownEntry`: rein only writes kinds it understands.
    """
    out: dict[str, object] = {"type": entry.type, "id": entry.id, k.parent_id: entry.parent_id}
    out["timestamp"] = entry.timestamp
    match entry:
        case MessageEntry():
            message = entry.message
            out["message"] = message if isinstance(message, dict) else dict(message)
        case CustomEntry():
            out[k.custom_type] = entry.custom_type
            _put(out, "data", entry.data)
        case CustomMessageEntry():
            out[k.custom_type] = entry.custom_type
            out["content"] = entry.content
            out["display"] = entry.display
            _put(out, "details", entry.details)
        case CompactionEntry():
            out["summary"] = entry.summary
            out[k.first_kept_entry_id] = entry.first_kept_entry_id
            out[k.tokens_before] = entry.tokens_before
            _put(out, "details", entry.details)
            _put(out, k.from_hook, entry.from_hook or None)
        case BranchSummaryEntry():
            out[k.from_id] = entry.from_id
            out["summary"] = entry.summary
            _put(out, "details", entry.details)
            _put(out, k.from_hook, entry.from_hook or None)
        case ModelChangeEntry():
            out["provider"] = entry.provider
            out[k.model_id] = entry.model_id
        case ThinkingLevelChangeEntry():
            out[k.thinking_level] = entry.thinking_level
        case LabelEntry():
            out[k.target_id] = entry.target_id
            _put(out, "label", entry.label)
        case UnknownEntry():
            raise Malformed(f"entry {entry.id!r} is of a kind rein does not write ({entry.original_type!r})")
        case _:
            assert_never(entry)
    return out


def _put(out: dict[str, object], key: str, value: object) -> None:
    if value is not None:
        out[key] = value


def decode_header(raw: Mapping[str, object]) -> SessionHeader | None:
    """The header `raw` describes, or None if it is not one (`type` "session" and a string `id`).

    `"format": "rein"` marks rein's dialect; anything else is pi's, whose `version` defaults to 1.
    """
    session_id = raw.get("id")
    if raw.get("type") != "session" or not isinstance(session_id, str):
        return None
    rein = raw.get("format") == "rein"
    version = raw.get("version")
    parent = raw.get("parent_session" if rein else "parentSession")
    timestamp, cwd = raw.get("timestamp"), raw.get("cwd")
    return SessionHeader(
        id=session_id,
        timestamp=timestamp if isinstance(timestamp, str) else "",
        cwd=cwd if isinstance(cwd, str) else "",
        parent_session=parent if isinstance(parent, str) else None,
        format="rein" if rein else "pi",
        version=version if isinstance(version, int) and not isinstance(version, bool) else 1,
    )


def encode_header(header: SessionHeader) -> dict[str, object]:
    """The JSON object for `header`, in its own dialect."""
    out: dict[str, object] = {"type": "session"}
    if header.format == "rein":
        out["format"] = "rein"
    out.update(version=header.version, id=header.id, timestamp=header.timestamp, cwd=header.cwd)
    if header.parent_session is not None:
        out["parent_session" if header.format == "rein" else "parentSession"] = header.parent_session
    return out
