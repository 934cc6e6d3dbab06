"""The hostile-input bounds, unit by unit: the depth of a JSON text read from its bytes (against a walk
of the parsed value, on generated JSON), numbers that are no double, non-ASCII digits in a query,
`js_json`'s C fast path against its exact encoder, and the chunk receiver's bookkeeping, which reads no
chunk text before assembly and expires nothing per chunk."""

from __future__ import annotations

import asyncio
import base64
import json
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rein.protocol import chunk_checksum, js_json
from rein.protocol._json import _encode
from rein.server._chunks import ChunkReceiver
from rein.server._errors import ProtocolError
from rein.server._json_bounds import BYTES_PER_CONTAINER, MAX_DEPTH, MIN_CONTAINERS, json_problem
from rein.server._metrics import Metrics
from rein.server._validate import Body, parse_body, query_int
from rein.server.store import ChunkRow, SqliteStore

TRICKY_TEXT = st.text(alphabet=st.sampled_from('[]{}"\\,:ab0.e+-😀\n'), max_size=12)
json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**60), max_value=2**60)
    | st.floats(allow_nan=False, allow_infinity=False)
    | TRICKY_TEXT,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(TRICKY_TEXT, inner, max_size=4),
    max_leaves=30,
)


def depth(value: object) -> int:
    if isinstance(value, dict):
        return 1 + max((depth(item) for item in value.values()), default=0)
    if isinstance(value, list):
        return 1 + max((depth(item) for item in value), default=0)
    return 0


def nested(levels: int) -> str:
    return "[" * levels + '"x"' + "]" * levels


@settings(max_examples=300, deadline=None)
@given(json_values, st.integers(min_value=0, max_value=6), st.booleans())
def test_the_depth_read_from_bytes_is_the_parsed_values(value: object, limit: int, ascii_only: bool) -> None:
    raw = json.dumps({"v": value}, ensure_ascii=ascii_only).encode()
    refused = json_problem(raw, max_depth=limit)
    assert (refused is not None) == (depth({"v": value}) > limit), (raw, refused)


@pytest.mark.parametrize("levels", [MAX_DEPTH, MAX_DEPTH + 1, 900, 950, 100_000])
def test_a_body_deeper_than_the_limit_is_refused_before_parsing(levels: int) -> None:
    raw = f'{{"a":{nested(levels - 1)}}}'.encode()
    if levels <= MAX_DEPTH:
        assert parse_body(raw) == json.loads(raw)
        return
    with pytest.raises(ProtocolError) as refused:
        parse_body(raw)
    assert refused.value.status == 400 and f"more than {MAX_DEPTH} deep" in refused.value.message


def test_brackets_in_strings_and_escapes_do_not_count() -> None:
    tricky = '{"a":"' + "[" * 500 + '\\"\\\\","b":["]]]]\\\\"]}'
    assert json_problem(tricky.encode(), max_depth=2) is None
    assert json_problem(b'{"a":[[[1]]]}', max_depth=2) is not None


def test_a_body_of_mostly_arrays_and_objects_is_refused_before_parsing() -> None:
    dense = b'{"x":[' + b",".join([b"[]"] * MIN_CONTAINERS) + b"]}"
    with pytest.raises(ProtocolError) as refused:
        parse_body(dense)
    assert (
        refused.value.status == 400
        and f"holds {MIN_CONTAINERS + 2} arrays and objects" in refused.value.message
    )
    assert parse_body(b'{"x":[' + b",".join([b"[]"] * (MIN_CONTAINERS - 2)) + b"]}")["x"] == [[]] * (
        MIN_CONTAINERS - 2
    )


def turn(n: int) -> list[dict[str, object]]:
    """A user prompt, an assistant reply with a tool call, its result: pi's entries, at their densest
    (short texts)."""
    stamp, parent = 1_767_225_600_000 + n, f"t{n - 1}" if n else None
    usage = {"input": 1200, "output": 80, "cost": {"input": 0.0036, "output": 0.0012, "total": 0.0048}}
    messages: list[dict[str, object]] = [
        {"role": "user", "content": [{"type": "text", "text": "run the tests"}], "timestamp": stamp},
        {
            "role": "assistant", "timestamp": stamp, "usage": usage, "stopReason": "toolUse",
            "content": [{"type": "toolCall", "id": f"c{n}", "name": "bash", "arguments": {"cmd": "ls"}}],
        },
        {"role": "toolResult", "toolCallId": f"c{n}", "content": [{"type": "text", "text": "ok"}]},
    ]  # fmt: skip
    return [
        {
            "type": "message",
            "id": f"t{n}-{i}",
            "parentId": parent,
            "timestamp": "2026-01-01T00:00:00Z",
            "message": m,
        }
        for i, m in enumerate(messages)
    ]


def test_real_entries_are_far_under_the_container_bound() -> None:
    entries = [item for n in range(3000) for item in turn(n)]
    raw = js_json({"sessionId": "s", "entries": entries}).encode()  # a chunked upload's size: ~3 MB
    assert len(raw) // BYTES_PER_CONTAINER > MIN_CONTAINERS, "the per-byte bound is the one that counts"
    assert json_problem(raw) is None
    containers = raw.count(b"{") + raw.count(b"[")
    assert containers * BYTES_PER_CONTAINER * 2 < len(raw), "with a margin of two"


@pytest.mark.parametrize(
    ("text", "written"),
    [("\\ud800", "\\ud800"), ("\\udc00", "\\udc00"), ("x\\ud83dy", "x\\ud83dy"),
     ("\\ud83d\\ud83d\\ude00", "\\ud83d\U0001f600")],
)  # fmt: skip
def test_a_lone_surrogate_escape_is_data_as_javascript_keeps_it(text: str, written: str) -> None:
    """What `JSON.stringify` writes for half an emoji: the fork stores it, so rein does (issue 34)."""
    parsed = parse_body(f'{{"a":"{text}"}}'.encode())
    assert parsed == {"a": json.loads(f'"{text}"')} and js_json(parsed) == f'{{"a":"{written}"}}'


def test_surrogate_pairs_and_escaped_backslashes_pass() -> None:
    assert parse_body(b'{"a":"\\ud83d\\ude00","b":"\\\\ud800"}') == {"a": "\U0001f600", "b": "\\ud800"}


@pytest.mark.parametrize("number", ["1e400", "-1e400", "1E309", "9" * 400, "-" + "9" * 400])
def test_a_number_that_is_no_finite_double_is_400_naming_it(number: str) -> None:
    with pytest.raises(ProtocolError) as refused:
        parse_body(f'{{"entries":[{{"n":{number}}}]}}'.encode())
    assert refused.value.status == 400 and refused.value.code == "INVALID_REQUEST"
    assert number[:20] in refused.value.message and "not a finite double" in refused.value.message


def test_large_but_finite_numbers_are_kept_exactly() -> None:
    body = parse_body(b'{"a":1e308,"b":123456789012345678901234567890,"c":' + b"9" * 300 + b"}")
    assert body["a"] == 1e308 and body["b"] == 123456789012345678901234567890 and body["c"] == int("9" * 300)
    assert js_json(body).startswith('{"a":1e+308,"b":123456789012345678901234567890,')


@pytest.mark.parametrize("text", ["²", "١٢", "12a", "-1", " 1", "1" * 16])
def test_a_query_integer_is_ascii_digits_only(text: str) -> None:
    with pytest.raises(ProtocolError) as refused:
        query_int({"from": text}, "from")
    assert (refused.value.status, refused.value.details) == (400, {"field": "from"})


def test_a_query_integer() -> None:
    assert query_int({"from": "042"}, "from") == 42 and query_int({}, "from") is None


def exact(value: object) -> str:
    parts: list[str] = []
    _encode(value, parts)
    return "".join(parts)


@settings(max_examples=400, deadline=None)
@given(json_values)
def test_js_json_fast_path_is_the_exact_encoder(value: object) -> None:
    assert js_json(value) == exact(value)


@pytest.mark.parametrize(
    "value",
    [
        {"a": 3.0, "b": [1e-7, 1e21, 1e16, -0.0, 0.5]},
        {"2": 1, "b": 2, "10": 3},
        {"text": "version 1.0, not a float: e+5]"},
        [[[[["deep"]]]]],
    ],
)
def test_js_json_takes_the_exact_path_where_the_c_encoder_differs(value: object) -> None:
    assert js_json(value) == exact(value)


class CountingStore(SqliteStore):
    """SQLite, counting the calls that read chunk text or expire chunks."""

    text_reads = 0
    expiries = 0

    async def chunks(self, owner: str, request_id: str) -> list[ChunkRow]:
        self.text_reads += 1
        return await super().chunks(owner, request_id)

    async def expire_chunks(
        self, *, pending_before_ms: int, completed_before_ms: int, max_pending_bytes: int
    ) -> None:
        self.expiries += 1
        await super().expire_chunks(
            pending_before_ms=pending_before_ms,
            completed_before_ms=completed_before_ms,
            max_pending_bytes=max_pending_bytes,
        )


def envelopes(request_id: str, body: Body, pieces: int) -> list[Body]:
    text = base64.b64encode(json.dumps(body).encode()).decode()
    size = -(-len(text) // pieces)
    parts = [text[i : i + size] for i in range(0, len(text), size)]
    return [
        {
            "requestId": request_id,
            "target": "/api/session/tree/switch",
            "chunkIndex": i,
            "totalChunks": len(parts),
            "sha256": chunk_checksum(part),
            "chunk": part,
        }
        for i, part in enumerate(parts)
    ]


def test_chunk_bookkeeping_reads_no_chunk_text_until_assembly(tmp_path: Path) -> None:
    async def main() -> None:
        store = await CountingStore.open(tmp_path / "sessions.db")
        assert isinstance(store, CountingStore)
        try:
            receiver = ChunkReceiver(store, 10_000_000, 1_000_000, Metrics())
            parts = envelopes("r1", {"sessionId": "s", "leafId": None, "pad": "x" * 3000}, 6)
            for part in [*parts[:-1], parts[0], parts[2]]:  # duplicates too
                assert await receiver.receive("ann", part) == {
                    "received": True, "requestId": "r1", "chunkIndex": part["chunkIndex"], "totalChunks": 6,
                }  # fmt: skip
            assert (store.text_reads, store.expiries) == (0, 0)
            assembled = await receiver.receive("ann", parts[-1])
            assert not isinstance(assembled, dict) and json.loads(assembled.body)["pad"] == "x" * 3000
            assert (store.text_reads, store.expiries) == (1, 0)
        finally:
            await store.close()

    asyncio.run(main())


def test_the_pending_bytes_are_counted_per_user_from_stored_sizes(tmp_path: Path) -> None:
    async def main() -> None:
        store = await SqliteStore.open(tmp_path / "sessions.db")
        try:
            metrics = Metrics()
            receiver = ChunkReceiver(store, 10_000, 2_500, metrics)
            ann = envelopes("r1", {"pad": "a" * 3000}, 4)
            for part in ann[:2]:
                await receiver.receive("ann", part)
            sent = sum(len(str(part["chunk"])) for part in ann[:2])
            assert await store.pending_bytes("ann") == sent == await store.pending_bytes()
            assert await store.pending_bytes("bob") == 0
            with pytest.raises(ProtocolError) as refused:
                await receiver.receive("ann", ann[2])
            assert refused.value.status == 413 and refused.value.details == {"limit": 2_500}
            await receiver.receive("bob", envelopes("r1", {"pad": "b" * 300}, 2)[0])
            await receiver.expire()
            published = metrics.registry.get_sample_value("rein_pending_chunk_bytes")
            assert published == await store.pending_bytes() > sent
        finally:
            await store.close()

    asyncio.run(main())


def test_expire_drops_idle_uploads(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    async def main() -> None:
        store = await SqliteStore.open(tmp_path / "sessions.db")
        try:
            receiver = ChunkReceiver(store, 10_000, 0)
            await receiver.receive("ann", envelopes("r1", {"pad": "a" * 300}, 3)[0])
            await receiver.expire()
            assert await store.pending_bytes() > 0, "not idle yet"
            later = time.time() + 6 * 60
            monkeypatch.setattr("rein.server._chunks.time.time", lambda: later)
            await receiver.expire()
            assert await store.pending_bytes() == 0
        finally:
            await store.close()

    asyncio.run(main())
