"""What varies between two servers' answers to the same requests, marked per recorded exchange as
`ignore` (compared by JSON type only, see `tests/server/compat/_recorded.py`):

- error wording (`error`, `errorMessage`): the `code` beside it is compared;
- the server's clock (`createdAt`, `updatedAt`), version (in a 401) and upload directory (the
  `path` `/api/receive` answers) (`tokensBefore`, pi's estimate, is rein's too: compared);
- "minted" values, made up by the server: an entry's id, timestamp or parent, a message's timestamp,
  a leaf or first-kept id that no request carried before (a compaction entry, a reply's clock), that
  same value wherever it shows again, and every treeHash of a session after it has such an entry.
  The replayer puts rein's value in place of a minted one in later requests.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator, Mapping
from urllib.parse import unquote, urlsplit

from tests.server.compat._recorded import body_text

JsonObject = dict[str, object]


def target(path: str, body: bytes) -> str:
    """The route a request is for: a chunk's target, else its path."""
    route = urlsplit(path).path
    if route == "/api/request/chunk":
        return str(json.loads(body).get("target", route))
    return route


def mark_ignores(exchanges: list[JsonObject]) -> None:
    """Add each exchange's `ignore` (see the module docstring)."""
    sent: list[str] = []
    chunks: dict[str, dict[int, str]] = {}
    minted: set[str | int] = set()  # made up by the server once: varying wherever it shows again
    tainted: set[str] = set()
    for exchange in exchanges:
        if exchange.get("restart"):
            continue
        request, response = exchange["request"], exchange["response"]
        assert isinstance(request, dict) and isinstance(response, dict)
        body = body_text(request["body"])
        sent.append(unquote(str(request["path"])) + "\n" + body + _unchunked(request, body, chunks))
        value = response.get("json", response.get("sse"))
        new = dict(_minted(value, [], "\n".join(sent), minted))
        session = _session(value, request)
        known = session in tainted  # a base hash names the tree before this answer
        if any(path.endswith(".id") or path == "id" for path in new):
            tainted.add(session)
        route = target(str(request["path"]), body.encode())
        ignore = dict(_varying(value, [], route, int(str(response["status"]))))
        ignore.update(new)
        if session in tainted:
            ignore.update(_hashes(value, [], known))
        if ignore:
            exchange["ignore"] = dict(sorted(ignore.items()))


def _unchunked(request: Mapping[str, object], body: str, chunks: dict[str, dict[int, str]]) -> str:
    """The whole body once a chunked request's last chunk is in, else ""."""
    if urlsplit(str(request["path"])).path != "/api/request/chunk":
        return ""
    envelope = json.loads(body)
    pieces = chunks.setdefault(str(envelope["requestId"]), {})
    pieces[int(envelope["chunkIndex"])] = str(envelope["chunk"])
    if len(pieces) < int(envelope["totalChunks"]):
        return ""
    joined = "".join(pieces[index] for index in sorted(pieces))
    return "\n" + base64.b64decode(joined).decode("utf-8")


def _leaves(value: object, path: list[str]) -> Iterator[tuple[list[str], object, Mapping[str, object]]]:
    """(path, value, the object holding it) for every member of every object."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield [*path, key], item, value
            yield from _leaves(item, [*path, key])
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _leaves(item, [*path, str(index)])


def _varying(value: object, path: list[str], route: str, status: int) -> Iterator[tuple[str, str]]:
    for at, item, _ in _leaves(value, path):
        key = at[-1]
        if key in ("error", "errorMessage") and isinstance(item, str):
            yield ".".join(at), "error wording: rein's differs, the code does not"
        elif key in ("createdAt", "updatedAt"):
            yield ".".join(at), "the server's clock"
        elif key == "version" and status == 401:
            yield ".".join(at), "the server's version"
        elif key == "path" and route == "/api/receive":
            yield ".".join(at), "the server's upload directory"


def _minted(value: object, path: list[str], sent: str, minted: set[str | int]) -> Iterator[tuple[str, str]]:
    for at, item, holder in _leaves(value, path):
        if not isinstance(item, str | int) or isinstance(item, bool):
            continue
        key = at[-1]
        entry_field = "parentId" in holder and key in ("id", "timestamp", "parentId")
        message_time = "role" in holder and key == "timestamp"
        pointer = key in ("leafId", "firstKeptEntryId")
        if item in minted or ((entry_field or message_time or pointer) and not _sent(item, sent)):
            minted.add(item)
            yield ".".join(at), "minted: the server made it up (an id, a clock)"


def _sent(item: str | int, sent: str) -> bool:
    return (json.dumps(item) if isinstance(item, str) else str(item)) in sent


def _hashes(value: object, path: list[str], bases: bool) -> Iterator[tuple[str, str]]:
    for at, item, _ in _leaves(value, path):
        if (at[-1] == "treeHash" or (bases and at[-1] == "baseTreeHash")) and isinstance(item, str):
            yield ".".join(at), "minted: the hash of a tree with an entry the server made up"


def _session(value: object, request: Mapping[str, object]) -> str:
    events = value if isinstance(value, list) else []
    for candidate in [value, *(e.get("data") for e in events if isinstance(e, dict))]:
        if isinstance(candidate, dict) and isinstance(candidate.get("sessionId"), str):
            return str(candidate["sessionId"])
    parts = urlsplit(str(request["path"])).path.split("/")
    return unquote(parts[3]) if len(parts) > 3 and parts[2] == "session" else ""
