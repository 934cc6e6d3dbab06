"""Recorded exchanges: the requests a pi-client sent and the answers the pi-server fork's own server
gave, recorded from a real run (`tests/server/fork/recorder.py`) and replayed byte for byte against
`rein serve` by `tests/server/test_recorded.py`. Every `*.json` under `recorded/` (recursively) is one
recording, replayed in order against one fresh server:

    {"doc": "...", "source": {"fork": "<commit>", "how": "..."}, "server": {"token": "..."},
     "exchanges": [
       {"name": "...",
        "request": {"method": "POST", "path": "/api/stream", "headers": {...}, "body": "<exact text>"},
        "response": {"status": 200, "contentType": "text/event-stream", "sse": [{"event", "data"}]},
        "ignore": {"*.data.errorMessage": "why it varies"},
        "upstream": [{...the fields the model upstream got...}]},
       {"name": "...", "restart": true}]}

`server.token` is the bearer token the server requires (default: the one the client sent). A response
carries `json` (the parsed body), `sse` (its events: `event` name, `data` parsed; comments such as
keep-alives are not events) or `text`, and optionally `firstByteWithinMs` (the body's first byte must
arrive that soon) and `firstBytes` (what the raw body starts with: a heartbeat). An exchange's
optional `files` maps paths under the server's upload directory to their UTF-8 content, or null for
"must not exist". A body over 64 KB may be `{"$segments": [...]}`: strings and
`{"repeat": unit, "count": n}` runs, concatenated. `{"restart": true}` restarts the server on the same
port and store.

The comparison (`differences`): the status and the media type exactly; every key the fork answered
must be in rein's answer with an equal value, recursively, lists element by element (rein may add
keys); a path in `ignore` (dotted, `*` matches one key or index; for SSE the value is the list of
events, so `*.data.message.timestamp`) is compared by JSON type only. An ignore reason that starts
with "minted" marks a value the server made up (a compaction entry's id): when rein's differs, later
requests get rein's value in place of the fork's, as the client would send it. The upstream fields
are compared exactly. A JSON answer with `entries` and `treeHash` must also hash to itself. The
replayer is `_replayer.py`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

RECORDED = Path(__file__).parent / "recorded"
SEGMENT_THRESHOLD = 64 * 1024
_RUN = re.compile(r"(.{1,32}?)\1{127,}", re.S)
"""A unit of up to 32 characters repeated 128 times or more: a filler string, its base64 (twice)."""

JsonObject = dict[str, object]


@dataclass(frozen=True, slots=True)
class Recording:
    name: str
    doc: str
    exchanges: list[JsonObject]
    token: str | None
    """The token the recorded server required: `server.token`, else the client's bearer token."""


def load_recordings(root: Path = RECORDED) -> list[Recording]:
    found = []
    for path in sorted(root.rglob("*.json")):
        data = _object(json.loads(path.read_text(encoding="utf-8")), path.name)
        exchanges = data.get("exchanges")
        assert isinstance(exchanges, list), f"{path}: exchanges is not a list"
        name = path.relative_to(root).with_suffix("").as_posix()
        listed = [_object(e, name) for e in exchanges]
        server = _object(data.get("server", {}), name)
        token = server.get("token")
        found.append(
            Recording(name, str(data.get("doc", "")), listed, str(token) if token else _bearer(listed))
        )
    return found


def _bearer(exchanges: list[JsonObject]) -> str | None:
    for exchange in exchanges:
        headers = _object(_object(exchange.get("request", {}), "request").get("headers", {}), "headers")
        value = next((str(v) for k, v in headers.items() if k.lower() == "authorization"), "")
        if value.startswith("Bearer ") and value[7:]:
            return value[7:]
    return None


# bodies -------------------------------------------------------------------------------------------


def body_text(body: object) -> str:
    if isinstance(body, str):
        return body
    if body is None:
        return ""
    segments = _object(body, "body")["$segments"]
    assert isinstance(segments, list), "$segments is not a list"
    parts = []
    for segment in segments:
        if isinstance(segment, str):
            parts.append(segment)
        else:
            run = _object(segment, "segment")
            count = run["count"]
            assert isinstance(count, int), "a run's count is not an int"
            parts.append(str(run["repeat"]) * count)
    return "".join(parts)


def compact_text(text: str) -> object:
    """`text` itself, or its `$segments` when it is big and made of long runs."""
    if len(text) <= SEGMENT_THRESHOLD:
        return text
    segments: list[object] = []
    at = 0
    for run in _RUN.finditer(text):  # a match is whole repeats of its unit
        segments.append(text[at : run.start()])
        unit = run.group(1)
        segments.append({"repeat": unit, "count": len(run.group()) // len(unit)})
        at = run.end()
    segments.append(text[at:])
    compact: object = {"$segments": [s for s in segments if s != ""]}
    assert body_text(compact) == text
    return compact


# answers ------------------------------------------------------------------------------------------


def media_type(content_type: str) -> str:
    return content_type.split(";", maxsplit=1)[0].strip().lower()


def read_body(content_type: str, raw: bytes) -> tuple[str, object]:
    """("json", value), ("sse", events) or ("text", text): how an answer is recorded and compared."""
    text = raw.decode("utf-8", "surrogateescape")
    kind = media_type(content_type)
    if kind == "text/event-stream":
        return "sse", parse_sse(text)
    if kind == "application/json" and text.strip():
        try:
            return "json", json.loads(text)
        except ValueError:
            pass
    return "text", text


def parse_sse(text: str) -> list[JsonObject]:
    events: list[JsonObject] = []
    name, data = "message", list[str]()
    for line in [*text.replace("\r\n", "\n").split("\n"), ""]:
        if line == "":
            if data:
                joined = "\n".join(data)
                try:
                    value: object = json.loads(joined)
                except ValueError:
                    value = joined
                events.append({"event": name, "data": value})
            name, data = "message", list[str]()
        elif line.startswith("event:"):
            name = line[6:].strip()
        elif line.startswith("data:"):
            data.append(line[5:][1:] if line[5:].startswith(" ") else line[5:])
    return events


def type_name(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


def differences(
    expected: object,
    actual: object,
    ignore: Mapping[str, str],
    path: str = "",
    learn: Callable[[str, object, object], None] | None = None,
) -> list[str]:
    """Where `actual` differs from `expected` (see the module docstring); `learn(reason, expected,
    actual)` sees each ignored pair."""
    where = path or "(root)"
    reason = _ignored(path, ignore)
    if reason is not None:
        if learn is not None:
            learn(reason, expected, actual)
        if type_name(expected) != type_name(actual):
            return [f"{where}: a {type_name(actual)}, the fork answered a {type_name(expected)}"]
        return []
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return [f"{where}: {_show(actual)}, the fork answered an object"]
        found = []
        for key, value in expected.items():
            inner = f"{path}.{key}" if path else str(key)
            if key not in actual:
                found.append(f"{inner}: missing, the fork answered {_show(value)}")
            else:
                found.extend(differences(value, actual[key], ignore, inner, learn))
        return found
    if isinstance(expected, list):
        if not isinstance(actual, list):
            return [f"{where}: {_show(actual)}, the fork answered a list"]
        if len(expected) != len(actual):
            return [f"{where}: {len(actual)} items, the fork answered {len(expected)}: {_show(actual)}"]
        return [
            problem
            for index, (left, right) in enumerate(zip(expected, actual, strict=True))
            for problem in differences(left, right, ignore, f"{path}.{index}" if path else str(index), learn)
        ]
    if type_name(expected) != type_name(actual) or expected != actual:
        return [f"{where}: {_show(actual)}, the fork answered {_show(expected)}"]
    return []


def _ignored(path: str, ignore: Mapping[str, str]) -> str | None:
    parts = path.split(".") if path else []
    for pattern, reason in ignore.items():
        wanted = pattern.split(".")
        if len(wanted) == len(parts) and all(w in ("*", p) for w, p in zip(wanted, parts, strict=True)):
            return reason
    return None


def _show(value: object) -> str:
    text = json.dumps(value)
    return text if len(text) <= 160 else text[:157] + "..."


def _object(value: object, where: str) -> JsonObject:
    assert isinstance(value, dict), f"{where}: not an object"
    return value
