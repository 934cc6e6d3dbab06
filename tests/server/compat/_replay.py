"""Replay the corpus (see the package docstring) against a running server with an httpx2 client."""

from __future__ import annotations

import base64
import hashlib
import json
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import httpx2

from rein.protocol import (
    CHUNK_ENDPOINT,
    chunk_checksum,
    js_json,
    static_context_hash,
    tree_hash,
)

CORPUS = Path(__file__).parent

JsonObject = dict[str, object]
Hasher = Callable[[Sequence[Mapping[str, object]]], str]


@dataclass(frozen=True, slots=True)
class Scenario:
    name: str
    doc: str
    steps: list[JsonObject]


def load_scenarios() -> tuple[JsonObject, list[Scenario]]:
    """The shared values and every scenario of the corpus, by file name."""
    shared = _object(json.loads((CORPUS / "shared.json").read_text(encoding="utf-8")))
    scenarios = []
    for path in sorted(CORPUS.glob("*.json")):
        if path.name == "shared.json":
            continue
        data = _object(json.loads(path.read_text(encoding="utf-8")))
        steps = data["steps"]
        assert isinstance(steps, list), f"{path.name}: steps is not a list"
        scenarios.append(Scenario(name=path.stem, doc=str(data["doc"]), steps=[_object(s) for s in steps]))
    return shared, scenarios


@dataclass
class Replayer:
    """Runs steps against `client` (its base URL set); `saved` carries values between steps."""

    client: httpx2.Client
    shared: JsonObject
    hasher: Hasher = tree_hash
    saved: dict[str, object] = field(default_factory=dict)

    def run(self, scenario: Scenario) -> None:
        for number, step in enumerate(scenario.steps, 1):
            where = f"{scenario.name} step {number} ({step.get('name', '')})"
            self.step(step, where)

    def step(self, step: JsonObject, where: str) -> None:
        expect = _object(step["expect"])
        answer = self._send(step, expect, where)
        self._check(answer, expect, step, where)

    # requests

    def _send(self, step: JsonObject, expect: JsonObject, where: str) -> httpx2.Response:
        method, path = str(step["method"]), str(self.resolve(step["path"]))
        if method == "GET":
            return self.client.get(path)
        if "raw" in step:
            return self._post(path, str(step["raw"]))
        body = self.resolve(step["body"])
        if "chunked" in step:
            return self._send_chunked(path, body, _object(step["chunked"]), expect, step, where)
        return self._post(path, js_json(body))

    def _post(self, path: str, text: str) -> httpx2.Response:
        return self.client.post(path, content=text.encode(), headers={"Content-Type": "application/json"})

    def _send_chunked(
        self, target: str, body: object, spec: JsonObject, expect: JsonObject, step: JsonObject, where: str
    ) -> httpx2.Response:
        """Send `body` as ChunkRequest does: base64 of its UTF-8 JSON, in pieces of `chunkChars`; every
        answer but the completing one must be the exact ack."""
        encoded = base64.b64encode(js_json(body).encode()).decode()
        size = int(str(spec["chunkChars"]))
        pieces = [encoded[i : i + size] for i in range(0, len(encoded), size)]
        assert len(pieces) >= 2, f"{where}: the body fits one chunk; lower chunkChars"
        request_id = str(uuid.uuid4())
        order = list(range(len(pieces)))
        if spec.get("order") == "reverse":
            order.reverse()
        duplicates = set(_ints(spec.get("duplicates", [])))
        assert not duplicates & {order[-1]}, f"{where}: a duplicate of the completing chunk is retryLast"

        def envelope(index: int) -> str:
            chunk = pieces[index]
            return js_json({
                "requestId": request_id, "target": target, "chunkIndex": index,
                "totalChunks": len(pieces), "sha256": chunk_checksum(chunk), "chunk": chunk,
            })  # fmt: skip

        for index in order[:-1]:
            for _ in range(2 if index in duplicates else 1):
                _assert_ack(
                    self._post(CHUNK_ENDPOINT, envelope(index)), request_id, index, len(pieces), where
                )
        final = self._post(CHUNK_ENDPOINT, envelope(order[-1]))
        if spec.get("retryLast"):
            self._check(final, expect, step, where + " (first completion)")
            return self._post(CHUNK_ENDPOINT, envelope(order[-1]))
        return final

    # answers

    def _check(self, answer: httpx2.Response, expect: JsonObject, step: JsonObject, where: str) -> None:
        where = f"{where}: {answer.status_code} {answer.text[:300]!r}"
        match(self.resolve(expect.get("status", 200)), answer.status_code, f"{where} status")
        if "contentType" in expect:
            kind = answer.headers.get("content-type", "").split(";")[0].strip().lower()
            assert kind == expect["contentType"], f"{where}: content type {kind!r}"
        value = self._read(answer, expect, where)
        for name, dotted in _object(step.get("save", {})).items():
            self.saved[name] = at(value, str(dotted))
        if "message" in expect:
            match(self.resolve(expect["message"]), value, f"{where} message")
        if "json" in expect:
            match(self.resolve(expect["json"]), value, f"{where} json")
        for dotted, wanted in _object(expect.get("paths", {})).items():
            match(self.resolve(wanted), at(value, dotted), f"{where} {dotted}")

    def _read(self, answer: httpx2.Response, expect: JsonObject, where: str) -> object:
        events = expect.get("events")
        if events == "proxy":
            return fold_proxy_events(parse_sse(answer.text), where)
        if events == "result":
            for name, data in parse_sse(answer.text):
                assert name != "error", f"{where}: error event {data}"
                if name == "result":
                    return json.loads(data)
            raise AssertionError(f"{where}: no result event")
        return json.loads(answer.text) if answer.text.strip() else None

    # placeholders

    def resolve(self, value: object) -> object:
        if isinstance(value, list):
            return [self.resolve(item) for item in value]
        if not isinstance(value, dict):
            return value
        keys = set(value)
        if keys & _MATCHERS:
            return {key: self.resolve(item) for key, item in value.items()}
        if len(keys) == 1 or keys == {"$format", "args"}:
            key = next(iter(sorted(keys)))
            if key in _PLACEHOLDERS:
                return self._placeholder(key, value)
        return {key: self.resolve(item) for key, item in value.items()}

    def _placeholder(self, key: str, value: Mapping[str, object]) -> object:
        argument = value[key] if key == "$format" else self.resolve(value[key])
        entries = _object(self.shared["entries"])
        match key:
            case "$entry":
                return entries[str(argument)]
            case "$entries":
                return [entries[str(name)] for name in _list(argument)]
            case "$var":
                return _object(self.shared["vars"])[str(argument)]
            case "$saved":
                return self.saved[str(argument)]
            case "$treeHash":
                chain = [
                    _object(entries[item] if isinstance(item, str) else item) for item in _list(argument)
                ]
                return self.hasher(chain)
            case "$staticContextHash":
                context = _object(argument)
                tools = context.get("tools")
                prompt = context.get("systemPrompt")
                return static_context_hash(
                    None if prompt is None else str(prompt),
                    None if tools is None else [_object(tool) for tool in _list(tools)],
                )
            case "$base64":
                return base64.b64encode(js_json(argument).encode()).decode()
            case "$sha256":
                return hashlib.sha256(str(argument).encode()).hexdigest()
            case "$path":
                parts = _list(argument)
                return at(parts[0], ".".join(str(part) for part in parts[1:]))
            case "$format":
                return str(argument).format(*_list(self.resolve(value["args"])))
        raise AssertionError(f"unknown placeholder {key}")


_PLACEHOLDERS = frozenset({
    "$entry", "$entries", "$var", "$saved", "$treeHash", "$staticContextHash", "$base64", "$sha256",
    "$path", "$format",
})  # fmt: skip
_MATCHERS = frozenset({"$type", "$absent", "$in", "$gt", "$len"})


def match(expected: object, actual: object, where: str) -> None:
    """Assert `actual` matches `expected` (partial for objects, exact for lists and scalars)."""
    if isinstance(expected, dict) and set(expected) & _MATCHERS:
        _match_matcher(expected, actual, where)
    elif isinstance(expected, dict):
        assert isinstance(actual, dict), f"{where}: {actual!r} is not an object"
        for key, wanted in expected.items():
            if isinstance(wanted, dict) and wanted.get("$absent") is True:
                assert key not in actual, f"{where}: unexpected {key!r}"
                continue
            assert key in actual, f"{where}: no {key!r} in {sorted(actual)}"
            match(wanted, actual[key], f"{where}.{key}")
    elif isinstance(expected, list):
        assert isinstance(actual, list), f"{where}: {actual!r} is not a list"
        assert len(actual) == len(expected), f"{where}: {len(actual)} items, wanted {len(expected)}"
        for index, (wanted, got) in enumerate(zip(expected, actual, strict=True)):
            match(wanted, got, f"{where}[{index}]")
    else:
        assert type(actual) is type(expected) or {type(actual), type(expected)} == {int, float}, (
            f"{where}: {actual!r} is not {expected!r}"
        )
        assert actual == expected, f"{where}: {actual!r} != {expected!r}"


def _match_matcher(expected: Mapping[str, object], actual: object, where: str) -> None:
    if "$type" in expected:
        kind = expected["$type"]
        checks: dict[object, Callable[[object], bool]] = {
            "int": lambda v: isinstance(v, int) and not isinstance(v, bool),
            "nonempty": lambda v: isinstance(v, str) and bool(v),
            "array": lambda v: isinstance(v, list),
            "object": lambda v: isinstance(v, dict),
        }
        assert checks[kind](actual), f"{where}: {actual!r} is not {kind}"
    if "$in" in expected:
        assert actual in _list(expected["$in"]), f"{where}: {actual!r} not in {expected['$in']!r}"
    if "$gt" in expected:
        bound = expected["$gt"]
        assert isinstance(actual, int) and isinstance(bound, int) and actual > bound, (
            f"{where}: {actual!r} <= {bound!r}"
        )
    if "$len" in expected:
        assert isinstance(actual, list) and len(actual) == expected["$len"], f"{where}: length of {actual!r}"


def at(value: object, dotted: str) -> object:
    """`value["a"]["b"][0]` for "a.b.0"; an AssertionError names the missing step."""
    for part in dotted.split(".") if dotted else []:
        if isinstance(value, list):
            assert part.isdigit() and int(part) < len(value), f"no [{part}] in a list of {len(value)}"
            value = value[int(part)]
        else:
            assert isinstance(value, dict) and part in value, f"no {part!r} in {value!r}"[:300]
            value = value[part]
    return value


def parse_sse(text: str) -> list[tuple[str, str]]:
    """(event name, data) of each event, as the client's ServerSentEventParser reads them; comment
    lines (heartbeats) are skipped."""
    events: list[tuple[str, str]] = []
    name, data = "message", list[str]()
    for raw in [*text.split("\n"), ""]:
        line = raw.removesuffix("\r")
        if not line:
            if data:
                events.append((name, "\n".join(data)))
            name, data = "message", []
        elif line.startswith("event:"):
            name = line[6:].removeprefix(" ")
        elif line.startswith("data:"):
            data.append(line[5:].removeprefix(" "))
    return events


def fold_proxy_events(events: Sequence[tuple[str, str]], where: str) -> JsonObject:
    """The assistant message the client builds from proxy events (processProxyEvent), checking what it
    would throw on: deltas for a block of another kind, no terminal event, events after it."""
    content: dict[int, JsonObject] = {}
    kinds = {"text": "text", "thinking": "thinking", "toolcall": "toolCall"}
    result: JsonObject | None = None
    assert events, f"{where}: no events"
    for number, (_, data) in enumerate(events):
        event = _object(json.loads(data))
        kind = str(event["type"])
        assert result is None, f"{where}: {kind} after the terminal event"
        assert (number == 0) == (kind == "start") or kind == "error", f"{where}: {kind} at {number}"
        family, _, phase = kind.partition("_")
        if family in kinds and phase:
            index = event["contentIndex"]
            assert isinstance(index, int), f"{where}: contentIndex {index!r}"
            if phase == "start":
                content[index] = {"type": kinds[family], "text": ""}
                if family == "toolcall":
                    assert isinstance(event["id"], str) and isinstance(event["toolName"], str), where
            else:
                assert content.get(index, {}).get("type") == kinds[family], (
                    f"{where}: {kind} for another block"
                )
                if phase == "delta":
                    content[index]["text"] = str(content[index]["text"]) + str(event["delta"])
        elif kind == "done":
            assert event["reason"] in ("stop", "length", "toolUse"), (
                f"{where}: done reason {event['reason']!r}"
            )
            assert isinstance(event.get("usage"), dict) or isinstance(event.get("message"), dict), where
            result = {"stopReason": event["reason"]}
        elif kind == "error":
            result = {"stopReason": event["reason"], "errorMessage": event.get("errorMessage")}
        else:
            assert kind == "start", f"{where}: unknown event {kind!r}"
    assert result is not None, f"{where}: the stream ended before a terminal event"
    texts = [str(block["text"]) for _, block in sorted(content.items()) if block["type"] == "text"]
    return {**result, "text": "".join(texts)}


def _assert_ack(answer: httpx2.Response, request_id: str, index: int, total: int, where: str) -> None:
    kind = answer.headers.get("content-type", "")
    assert answer.status_code == 200 and "application/json" in kind, (
        f"{where}: chunk {index}: {answer.text[:300]}"
    )
    wanted = {"received": True, "requestId": request_id, "chunkIndex": index, "totalChunks": total}
    assert answer.json() == wanted, f"{where}: chunk {index} ack {answer.text[:300]}"


def _object(value: object) -> JsonObject:
    assert isinstance(value, dict), f"{value!r} is not an object"
    return value


def _list(value: object) -> list[object]:
    assert isinstance(value, list), f"{value!r} is not a list"
    return value


def _ints(value: object) -> list[int]:
    return [int(str(item)) for item in _list(value)]
