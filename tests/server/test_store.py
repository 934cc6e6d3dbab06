"""The session server's stores, each test on both backends (SQLite file, PostgreSQL database)."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import signal
import sqlite3
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from contextlib import closing
from pathlib import Path

import asyncpg  # type: ignore[import-untyped]
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rein.protocol import EMPTY_TREE_HASH, next_tree_hash
from rein.server.store import (
    Change,
    ChunkRow,
    CompletedRequest,
    EntryRow,
    Lease,
    PostgresStore,
    RevisionConflict,
    RunRow,
    SessionRow,
    SqliteStore,
    Store,
    StoreError,
    WriterFenced,
    default_sqlite_path,
    open_store,
)
from rein.server.store._schema import SCHEMA_VERSION
from tests.server.conftest import StoreCase
from tests.server.pg import execute


def header(session_id: str = "s1", owner: str = "", now: int = 1) -> SessionRow:
    return SessionRow(
        owner=owner, session_id=session_id, static_context=None, static_context_hash="ctx0", leaf_id=None,
        revision=0, entry_count=0, tree_hash=EMPTY_TREE_HASH, created_ms=now, updated_ms=now,
    )  # fmt: skip


def rows(start: int, count: int, previous: str, tag: str = "e") -> list[EntryRow]:
    """`count` entries continuing a tree whose hash is `previous`, each with its prefix hash."""
    made: list[EntryRow] = []
    for seq in range(start, start + count):
        entry = {"type": "message", "id": f"{tag}{seq}", "text": f"héllo {seq}"}
        previous = next_tree_hash(previous, entry)
        made.append(EntryRow(seq=seq, entry_id=f"{tag}{seq}", json=json.dumps(entry), tree_hash=previous))
    return made


def append(entries: Sequence[EntryRow], now: int = 2) -> Change:
    return Change(append=entries, leaf_id=entries[-1].entry_id, now_ms=now)


async def started(store: Store, session_id: str = "s1", owner: str = "") -> tuple[SessionRow, Lease]:
    return await store.create(header(session_id, owner)), await store.acquire(session_id, "server-a")


def test_create_commit_and_read_back(store: StoreCase) -> None:
    async def body(s: Store) -> None:
        row, lease = await started(s)
        assert row == header()
        assert await s.create(header(now=99)) == row, "a second create returns the stored session"
        first = rows(0, 3, EMPTY_TREE_HASH)
        after = await s.commit("", "s1", append(first), revision=0, lease=lease)
        assert (after.revision, after.entry_count, after.leaf_id) == (1, 3, "e2")
        assert after.tree_hash == first[-1].tree_hash
        context = Change(static_context='{"systemPrompt":"x"}', static_context_hash="ctx1", now_ms=3)
        after = await s.commit("", "s1", context, revision=1, lease=lease)
        assert (after.static_context, after.static_context_hash, after.leaf_id) == (
            '{"systemPrompt":"x"}',
            "ctx1",
            "e2",
        )
        assert after.tree_hash == first[-1].tree_hash, "a change without entries keeps the hash"
        more = rows(3, 2, after.tree_hash)
        after = await s.commit("", "s1", append(more, now=4), revision=2, lease=lease)
        assert await s.session("", "s1") == after
        assert after.entry_count == 5 and after.updated_ms == 4 and after.created_ms == 1
        assert await s.entries("", "s1") == first + more
        assert await s.entries("", "s1", start=3) == more
        hashes = [await s.prefix_hash("", "s1", n) for n in range(7)]
        assert hashes == [EMPTY_TREE_HASH, *(e.tree_hash for e in first + more), None]
        assert await s.prefix_hash("", "s1", -1) is None
        switched = await s.commit("", "s1", Change(leaf_id="e1", now_ms=5), revision=3, lease=lease)
        assert (switched.leaf_id, switched.tree_hash, switched.entry_count) == ("e1", after.tree_hash, 5)

    store.run(body)


def test_entry_json_is_kept_byte_for_byte(store: StoreCase) -> None:
    text = '{"id":"x",  "n":1.0, "u":"\\u00e9\u00e9"}'

    async def body(s: Store) -> list[EntryRow]:
        _, lease = await started(s)
        entry = EntryRow(seq=0, entry_id="x", json=text, tree_hash="h")
        await s.commit("", "s1", Change(append=[entry], leaf_id="x"), revision=0, lease=lease)
        return await s.entries("", "s1")

    assert [e.json for e in store.run(body)] == [text]


def test_stale_revision_is_a_conflict_and_writes_nothing(store: StoreCase) -> None:
    async def body(s: Store) -> None:
        _, lease = await started(s)
        await s.commit("", "s1", append(rows(0, 1, EMPTY_TREE_HASH)), revision=0, lease=lease)
        with pytest.raises(RevisionConflict, match="revision 1"):
            await s.commit("", "s1", append(rows(1, 1, "x")), revision=0, lease=lease)
        with pytest.raises(RevisionConflict, match="gone"):
            await s.commit(
                "", "nope", append(rows(0, 1, "x")), revision=0, lease=await s.acquire("nope", "a")
            )
        assert [e.seq for e in await s.entries("", "s1")] == [0]
        assert (await s.session("", "s1")) is not None

    store.run(body)


def test_a_writer_whose_lease_was_taken_over_is_fenced(store: StoreCase) -> None:
    async def body(s: Store) -> None:
        _, a = await started(s)
        assert (a.holder, a.fence) == ("server-a", 1)
        assert await s.acquire("s1", "server-a") == a, "the holder keeps its fence"
        b = await s.acquire("s1", "server-b")
        assert (b.holder, b.fence) == ("server-b", 2)
        with pytest.raises(WriterFenced, match="server-b"):
            await s.commit("", "s1", append(rows(0, 1, EMPTY_TREE_HASH)), revision=0, lease=a)
        done = await s.commit("", "s1", append(rows(0, 1, EMPTY_TREE_HASH)), revision=0, lease=b)
        assert done.revision == 1
        again = await s.acquire("s1", "server-a")
        assert again.fence == 3
        with pytest.raises(WriterFenced):
            await s.commit("", "s1", Change(leaf_id="e0"), revision=1, lease=b)
        never = Lease(session_id="s2", holder="server-a", fence=1)
        await s.create(header("s2"))
        with pytest.raises(WriterFenced, match="no lease"):
            await s.commit("", "s2", Change(), revision=0, lease=never)

    store.run(body)


def test_replace_drops_the_old_entries(store: StoreCase) -> None:
    async def body(s: Store) -> None:
        _, lease = await started(s)
        await s.commit("", "s1", append(rows(0, 4, EMPTY_TREE_HASH)), revision=0, lease=lease)
        tree = rows(0, 2, EMPTY_TREE_HASH, tag="r")
        after = await s.commit(
            "", "s1", Change(append=tree, replace=True, leaf_id="r1"), revision=1, lease=lease
        )
        assert (after.entry_count, after.tree_hash, after.leaf_id) == (2, tree[-1].tree_hash, "r1")
        assert await s.entries("", "s1") == tree
        assert await s.prefix_hash("", "s1", 3) is None
        empty = await s.commit("", "s1", Change(replace=True), revision=2, lease=lease)
        assert (empty.entry_count, empty.tree_hash, empty.leaf_id) == (0, EMPTY_TREE_HASH, None)
        assert await s.entries("", "s1") == []

    store.run(body)


def test_a_change_that_does_not_match_its_rows_is_refused(store: StoreCase) -> None:
    async def body(s: Store) -> None:
        _, lease = await started(s)
        with pytest.raises(ValueError, match="expected 0"):
            await s.commit("", "s1", append(rows(1, 1, EMPTY_TREE_HASH)), revision=0, lease=lease)
        wrong = Change(append=rows(0, 2, EMPTY_TREE_HASH), tree_hash="other", entry_count=2)
        with pytest.raises(ValueError, match="its rows give 2"):
            await s.commit("", "s1", wrong, revision=0, lease=lease)
        good = rows(0, 2, EMPTY_TREE_HASH)
        told = Change(append=good, tree_hash=good[-1].tree_hash, entry_count=2, leaf_id="e1")
        told_row = await s.commit("", "s1", told, revision=0, lease=lease)
        assert told_row.revision == 1
        assert len(await s.entries("", "s1")) == 2
        clash = EntryRow(seq=3, entry_id="e0", json="{}", tree_hash="h")  # e0 is stored already
        twice = Change(append=[*rows(2, 1, good[-1].tree_hash), clash])
        with pytest.raises(StoreError):
            await s.commit("", "s1", twice, revision=1, lease=lease)
        assert len(await s.entries("", "s1")) == 2 and (await s.session("", "s1")) == told_row

    store.run(body)


def test_owners_never_see_each_other(store: StoreCase) -> None:
    async def body(s: Store) -> None:
        await s.create(header("shared", owner="alice", now=5))
        await s.create(header("shared", owner="bob", now=6))
        await s.create(header("later", owner="alice", now=9))
        lease = await s.acquire("shared", "server-a")
        await s.commit("alice", "shared", append(rows(0, 2, EMPTY_TREE_HASH), now=7), revision=0, lease=lease)
        assert await s.entries("bob", "shared") == []
        assert (await s.session("bob", "shared")) == header("shared", owner="bob", now=6)
        assert [r.session_id for r in await s.sessions("alice")] == ["later", "shared"]
        assert [r.owner for r in await s.sessions("bob")] == ["bob"]
        assert await s.sessions("carol") == []
        await s.put_run(RunRow(owner="alice", session_id="shared", run_id="r", status="running"))
        assert await s.run("bob", "shared", "r") is None
        assert await s.delete("bob", "shared") is True
        assert await s.delete("bob", "shared") is False
        assert len(await s.entries("alice", "shared")) == 2
        assert await s.run("alice", "shared", "r") is not None
        assert await s.delete("alice", "shared") is True
        assert await s.entries("alice", "shared") == [] and await s.run("alice", "shared", "r") is None

    store.run(body)


def test_the_run_journal(store: StoreCase) -> None:
    async def body(s: Store) -> None:
        running = RunRow(
            owner="", session_id="s1", run_id="r1", status="running", created_ms=10, updated_ms=10
        )
        await s.put_run(running)
        assert await s.run("", "s1", "r1") == running
        reply = '{"role":"assistant"}'
        done = RunRow(
            owner="",
            session_id="s1",
            run_id="r1",
            status="completed",
            message=reply,
            created_ms=10,
            updated_ms=20,
        )
        await s.put_run(done)
        assert await s.run("", "s1", "r1") == done
        failed = RunRow(
            owner="", session_id="s1", run_id="r2", status="failed", error_message="boom", updated_ms=30
        )
        await s.put_run(failed)
        assert await s.expire_runs(25) == 1
        assert await s.run("", "s1", "r1") is None
        assert await s.run("", "s1", "r2") == failed

    store.run(body)


def chunk(index: int, text: str, request_id: str = "q1", total: int = 3) -> ChunkRow:
    return ChunkRow(
        request_id=request_id,
        target="/api/stream",
        chunk_index=index,
        total_chunks=total,
        sha256=f"sha-{text}",
        chunk=text,
    )


def test_chunks_and_tombstones(store: StoreCase) -> None:
    async def body(s: Store) -> None:
        assert await s.put_chunk("u", chunk(1, "bbbb"), now_ms=10) is None
        assert await s.put_chunk("u", chunk(0, "aaa"), now_ms=11) is None
        assert await s.put_chunk("u", chunk(1, "other"), now_ms=12) == chunk(1, "bbbb"), "the stored one wins"
        assert await s.put_chunk("v", chunk(1, "vv"), now_ms=12) is None, "another owner's request"
        assert await s.chunks("u", "q1") == [chunk(0, "aaa"), chunk(1, "bbbb")]
        assert await s.pending_bytes() == 9
        hashes = {0: "sha-aaa", 1: "sha-bbbb", 2: "sha-c"}
        done = CompletedRequest(
            request_id="q1",
            target="/api/stream",
            total_chunks=3,
            body='{"a":1}',
            completed_index=2,
            chunks=hashes,
        )
        await s.complete_request("u", done, now_ms=13)
        assert await s.chunks("u", "q1") == []
        assert await s.completed_request("u", "q1") == done
        assert await s.completed_request("v", "q1") is None
        assert await s.pending_bytes() == 2
        await s.expire_chunks(pending_before_ms=0, completed_before_ms=13, max_pending_bytes=100)
        assert await s.completed_request("u", "q1") == done, "not yet expired"
        await s.expire_chunks(pending_before_ms=12, completed_before_ms=14, max_pending_bytes=100)
        assert await s.completed_request("u", "q1") is None
        assert await s.chunks("v", "q1") == [chunk(1, "vv")], "idle since 12, not before"
        await s.expire_chunks(pending_before_ms=13, completed_before_ms=0, max_pending_bytes=100)
        assert await s.pending_bytes() == 0

    store.run(body)


def test_the_byte_bound_drops_the_oldest_requests_first(store: StoreCase) -> None:
    async def body(s: Store) -> None:
        await s.put_chunk("u", chunk(0, "x" * 10, "old"), now_ms=1)
        await s.put_chunk("u", chunk(0, "x" * 10, "mid"), now_ms=2)
        await s.put_chunk("u", chunk(0, "x" * 10, "new"), now_ms=3)
        await s.put_chunk("u", chunk(1, "x" * 10, "old"), now_ms=4)  # active again: now the newest
        await s.expire_chunks(pending_before_ms=0, completed_before_ms=0, max_pending_bytes=25)
        assert [r for r in ("old", "mid", "new") if await s.chunks("u", r)] == ["old"]
        assert await s.pending_bytes() == 20

    store.run(body)


def test_a_sqlite_store_survives_reopening(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "dir" / "sessions.db"

    async def write() -> None:
        s = await SqliteStore.open(path)
        _, lease = await started(s)
        await s.commit("", "s1", append(rows(0, 2, EMPTY_TREE_HASH)), revision=0, lease=lease)
        await s.close()

    async def read() -> tuple[SessionRow | None, int]:
        s = await open_store(str(path))
        try:
            return await s.session("", "s1"), len(await s.entries("", "s1"))
        finally:
            await s.close()

    asyncio.run(write())
    row, count = asyncio.run(read())
    assert row is not None and (row.revision, row.entry_count, count) == (1, 2, 2)
    with closing(sqlite3.connect(path)) as db:
        assert db.execute("PRAGMA journal_mode").fetchone() == ("wal",)


CHILD = """
import asyncio, sys
from tests.server.test_store import append, rows, started, EMPTY_TREE_HASH
from rein.server.store import SqliteStore
from pathlib import Path

async def main():
    s = await SqliteStore.open(Path(sys.argv[1]))
    _, lease = await started(s)
    await s.commit("", "s1", append(rows(0, 3, EMPTY_TREE_HASH)), revision=0, lease=lease)
    print("committed", flush=True)
    sys.stdin.read()  # hold the connection open until killed

asyncio.run(main())
"""


@pytest.mark.slow
def test_an_acknowledged_sqlite_commit_survives_sigkill(tmp_path: Path) -> None:
    path = tmp_path / "sessions.db"
    root = Path(__file__).resolve().parents[2]
    argv = [sys.executable, "-c", CHILD, str(path)]
    with subprocess.Popen(argv, cwd=root, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True) as child:
        try:
            assert child.stdout is not None and child.stdout.readline() == "committed\n"
        finally:
            child.send_signal(signal.SIGKILL)
            child.wait(timeout=30)
    assert child.returncode == -signal.SIGKILL

    async def read() -> list[EntryRow]:
        s = await SqliteStore.open(path)
        try:
            row = await s.session("", "s1")
            assert row is not None and row.entry_count == 3
            return await s.entries("", "s1")
        finally:
            await s.close()

    assert [e.entry_id for e in asyncio.run(read())] == ["e0", "e1", "e2"]


def test_two_stores_racing_commit_once_per_revision(store: StoreCase) -> None:
    """Two stores on one database (two pools, or two SQLite connections): as two server processes."""
    url = store.url

    async def body() -> None:
        one, two = await open_store(url), await open_store(url)
        try:
            assert isinstance(one, PostgresStore if store.backend == "postgresql" else SqliteStore)
            _, lease = await started(one)
            assert await two.acquire("s1", "server-a") == lease
            for revision in range(8):
                tip = (await one.session("", "s1")) or header()
                attempts = [
                    store.commit(
                        "",
                        "s1",
                        append(rows(revision, 1, tip.tree_hash, tag)),
                        revision=revision,
                        lease=lease,
                    )
                    for store, tag in ((one, "a"), (two, "b"), (one, "c"), (two, "d"))
                ]
                results = await asyncio.gather(*attempts, return_exceptions=True)
                wins = [r for r in results if isinstance(r, SessionRow)]
                assert len(wins) == 1 and wins[0].revision == revision + 1, results
                assert all(isinstance(r, RevisionConflict) for r in results if r not in wins), results
            row = await two.session("", "s1")
            entries = await one.entries("", "s1")
            assert row is not None and row.entry_count == len(entries) == 8
            assert row.tree_hash == entries[-1].tree_hash
        finally:
            await one.close()
            await two.close()

    asyncio.run(body())


def test_a_takeover_fences_the_old_writer(store: StoreCase) -> None:
    url = store.url

    async def body() -> None:
        one, two = await open_store(url), await open_store(url)
        try:
            _, a = await started(one)
            takeovers = await asyncio.gather(*(two.acquire("s1", f"server-{n}") for n in range(5)))
            assert sorted(lease.fence for lease in takeovers) == [2, 3, 4, 5, 6], (
                "each takeover raised it once"
            )
            current = max(takeovers, key=lambda lease: lease.fence)
            for stale in [a, *(lease for lease in takeovers if lease != current)]:
                with pytest.raises(WriterFenced):
                    await one.commit("", "s1", Change(leaf_id="x"), revision=0, lease=stale)
            assert (await two.commit("", "s1", Change(leaf_id="x"), revision=0, lease=current)).revision == 1
        finally:
            await one.close()
            await two.close()

    asyncio.run(body())


def test_bad_urls_name_the_url_and_hide_the_password(tmp_path: Path) -> None:
    def refused(url: str) -> str:
        with pytest.raises(StoreError) as caught:
            asyncio.run(open_store(url))
        message = str(caught.value)
        assert "\n" not in message and "hunter2" not in message
        return message

    assert "unknown database scheme 'mysql'" in refused("mysql://me:hunter2@db/x")
    assert "me:***@db" in refused("mysql://me:hunter2@db/x")
    assert "absolute file path" in refused("sqlite://relative.db")
    assert "empty database URL" in refused("  ")
    assert "is a directory" in refused(str(tmp_path))
    garbage = tmp_path / "garbage.db"
    garbage.write_bytes(b"not a database" * 100)
    assert str(garbage) in refused(str(garbage))
    closed = refused("postgresql://me:hunter2@127.0.0.1:1/x")
    assert "postgresql://me:***@127.0.0.1:1/x" in closed and "cannot connect" in closed
    assert default_sqlite_path(tmp_path) == tmp_path / ".rein" / "server" / "sessions.db"


def test_a_newer_schema_is_refused(store: StoreCase) -> None:
    async def bump(s: Store) -> None:
        other = await s.create(header("probe"))
        assert other.session_id == "probe"

    store.run(bump)
    raw = "UPDATE schema_version SET version = 99"
    if store.backend == "sqlite":
        with closing(sqlite3.connect(store.url.removeprefix("sqlite://"))) as db, db:
            db.execute(raw)
    else:
        execute(store.url, raw)
    with pytest.raises(StoreError, match="schema version 99 is newer"):
        store.run(bump)


def raw_sql(store: StoreCase, *statements: str) -> None:
    """Run SQL on the store's database behind its back (as an older rein, or another tool, would)."""
    if store.backend == "sqlite":
        with closing(sqlite3.connect(store.url.removeprefix("sqlite://"))) as db, db:
            for statement in statements:
                db.execute(statement)
    else:
        for statement in statements:
            execute(store.url, statement)


def schema_versions(store: StoreCase) -> list[int]:
    query = "SELECT version FROM schema_version"
    if store.backend == "sqlite":
        with closing(sqlite3.connect(store.url.removeprefix("sqlite://"))) as db:
            return [int(v) for (v,) in db.execute(query)]

    async def read() -> list[int]:
        connection = await asyncpg.connect(store.url)
        try:
            return [int(row[0]) for row in await connection.fetch(query)]
        finally:
            await connection.close()

    return asyncio.run(read())


def test_set_cwd_is_metadata_the_revision_and_hashes_stay(store: StoreCase) -> None:
    async def body(s: Store) -> None:
        _, lease = await started(s)
        before = await s.commit("", "s1", append(rows(0, 2, EMPTY_TREE_HASH)), revision=0, lease=lease)
        assert before.cwd is None
        await s.set_cwd("", "s1", "/work/project")
        after = await s.session("", "s1")
        assert after is not None and after.cwd == "/work/project"
        assert after == dataclasses.replace(before, cwd="/work/project"), "nothing else changed"
        assert [row.cwd for row in await s.sessions("")] == ["/work/project"]
        more = await s.commit("", "s1", append(rows(2, 1, before.tree_hash), now=9), revision=1, lease=lease)
        assert (more.cwd, more.revision) == ("/work/project", 2), "a commit keeps the directory"
        context = Change(static_context="{}", static_context_hash="ctx9", replace=True, now_ms=10)
        replaced = await s.commit("", "s1", context, revision=2, lease=lease)
        assert replaced.cwd == "/work/project", "so does a full tree sync"
        await s.set_cwd("", "nope", "/elsewhere")  # a missing session: no-op, nothing created
        assert await s.session("", "nope") is None
        await s.set_cwd("other", "s1", "/elsewhere")  # another owner's id: not this session
        assert (await s.session("", "s1")) == replaced

    store.run(body)


V1_TABLES = (
    "CREATE TABLE schema_version (version BIGINT NOT NULL)",
    """CREATE TABLE sessions (owner TEXT NOT NULL, session_id TEXT NOT NULL, static_context TEXT,
    static_context_hash TEXT NOT NULL, leaf_id TEXT, revision BIGINT NOT NULL, entry_count BIGINT NOT NULL,
    tree_hash TEXT NOT NULL, created_ms BIGINT NOT NULL, updated_ms BIGINT NOT NULL,
    PRIMARY KEY (owner, session_id))""",
    "INSERT INTO schema_version (version) VALUES (1)",
    f"INSERT INTO sessions VALUES ('', 'old', NULL, 'ctx0', NULL, 7, 0, '{EMPTY_TREE_HASH}', 1, 2)",
)
"""A database as the previous release (schema version 1) left it: sessions without a directory."""


def test_a_version_1_database_is_migrated_on_open(store: StoreCase) -> None:
    raw_sql(store, *V1_TABLES)

    async def body(s: Store) -> None:
        old = await s.session("", "old")
        assert old == dataclasses.replace(header("old", now=1), revision=7, updated_ms=2)
        assert old.cwd is None
        await s.set_cwd("", "old", "/srv/repo")
        _, lease = await started(s, "new")
        await s.commit("", "new", append(rows(0, 1, EMPTY_TREE_HASH)), revision=0, lease=lease)
        assert [(r.session_id, r.cwd) for r in await s.sessions("")] == [("new", None), ("old", "/srv/repo")]

    store.run(body)
    assert schema_versions(store) == [SCHEMA_VERSION]

    async def again(s: Store) -> str | None:  # a second open finds the newest version: nothing to migrate
        row = await s.session("", "old")
        return None if row is None else row.cwd

    assert store.run(again) == "/srv/repo"


OPS = st.lists(
    st.one_of(
        st.tuples(st.just("append"), st.integers(1, 4)),
        st.tuples(st.just("replace"), st.integers(0, 4)),
        st.tuples(st.just("switch"), st.integers(0, 0)),
    ),
    min_size=1,
    max_size=12,
)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ops=OPS)
def test_any_commit_sequence_keeps_the_summary_true_to_the_rows(ops: list[tuple[str, int]]) -> None:
    async def body(path: Path) -> None:
        s = await SqliteStore.open(path)
        try:
            row, lease = await started(s)
            for round_, (op, n) in enumerate(ops):
                start = 0 if op == "replace" else row.entry_count
                previous = EMPTY_TREE_HASH if op == "replace" else row.tree_hash
                new = rows(start, n if op != "switch" else 0, previous, tag=f"r{round_}-")
                leaf = new[-1].entry_id if new else row.leaf_id
                change = Change(append=new, replace=op == "replace", leaf_id=leaf, now_ms=round_)
                row = await s.commit("", "s1", change, revision=row.revision, lease=lease)
                stored = await s.entries("", "s1")
                assert row.entry_count == len(stored)
                assert row.tree_hash == (stored[-1].tree_hash if stored else EMPTY_TREE_HASH)
                assert [e.seq for e in stored] == list(range(len(stored)))
                assert await s.prefix_hash("", "s1", len(stored)) == row.tree_hash
        finally:
            await s.close()

    with tempfile.TemporaryDirectory() as tmp:
        asyncio.run(body(Path(tmp) / "s.db"))
