"""A write happens whole or not at all, on each backend: the service's `commit_as` takes the writer
lease and commits in one transaction, and a session's first write creates its row in that same
transaction. A store that fails mid-way (a trigger that refuses the insert, or a full disk) leaves no
half-made session behind, and the same write succeeds once the fault is gone."""

from __future__ import annotations

import dataclasses
import os
import sqlite3
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

import httpx2
import pytest

from rein.protocol import EMPTY_TREE_HASH, js_json, tree_hash
from rein.server.store import Change, RevisionConflict, Store, WriterFenced
from tests.server.conftest import StoreCase
from tests.server.helpers import running_server
from tests.server.pg import execute
from tests.server.test_faults import CONTEXT, JSON, chain, entries_of, history
from tests.server.test_store import append, header, rows

pytestmark = pytest.mark.slow

SQLITE_FAULTS = (
    "CREATE TRIGGER fail_entries BEFORE INSERT ON entries BEGIN SELECT RAISE(ABORT, 'disk full'); END",
    "CREATE TRIGGER fail_context BEFORE UPDATE ON sessions WHEN NEW.static_context IS NOT NULL "
    "BEGIN SELECT RAISE(ABORT, 'disk full'); END",
)
POSTGRES_FAULTS = (
    "CREATE FUNCTION fail() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'disk full'; END $$",
    "CREATE TRIGGER fail_entries BEFORE INSERT ON entries FOR EACH ROW EXECUTE FUNCTION fail()",
    "CREATE TRIGGER fail_context BEFORE UPDATE ON sessions FOR EACH ROW "
    "WHEN (NEW.static_context IS NOT NULL) EXECUTE FUNCTION fail()",
)


def run_sql(url: str, statements: tuple[str, ...]) -> None:
    """Run `statements` on the database a server has open (a second connection, as an operator's)."""
    if url.startswith("sqlite://"):
        with closing(sqlite3.connect(url.removeprefix("sqlite://"), isolation_level=None)) as db:
            for statement in statements:
                db.execute(statement)
    else:
        for statement in statements:
            execute(url, statement)


def send(client: httpx2.Client, path: str, body: object) -> httpx2.Response:
    return client.post(path, content=js_json(body).encode(), headers=JSON)


def listed(client: httpx2.Client) -> set[str]:
    answer = client.get("/api/sessions")
    assert answer.status_code == 200, answer.text
    return {str(item["sessionId"]) for item in answer.json()["sessions"]}


def test_a_first_write_that_fails_midway_leaves_no_session(store_url: str, tmp_path: Path) -> None:
    """The session row and its first entries (or its static context) commit together: with the insert
    of entries, or the update that sets the context, refused by the database, nothing is stored."""
    tree = chain("e", 3)
    writes = (
        ("a", "/api/session/tree/append", {"sessionId": "a", "entries": tree, "leafId": "e2"}),
        ("b", "/api/session/tree/sync", {"sessionId": "b", "entries": tree, "leafId": "e2"}),
        ("c", "/api/session/init", {"sessionId": "c", "staticContext": CONTEXT}),
        ("d", "/api/session/append", {"sessionId": "d", "messages": [{"role": "user", "content": "hi"}]}),
    )
    with running_server(tmp_path, db=store_url) as url, httpx2.Client(base_url=url, timeout=30) as client:
        assert send(client, "/api/session/init", {"sessionId": "before"}).status_code == 200
        run_sql(store_url, SQLITE_FAULTS if store_url.startswith("sqlite") else POSTGRES_FAULTS)
        for session, path, body in writes:
            answer = send(client, path, body)
            assert answer.status_code >= 500 and "disk full" in answer.json()["error"], path
            missing = client.get(f"/api/session/{session}/history")
            assert missing.status_code == 404, f"{path} left a half-made session: {missing.text[:200]}"
        assert listed(client) == {"before"}

        on = (" ON entries", " ON sessions") if store_url.startswith("postgres") else ("", "")
        run_sql(store_url, (f"DROP TRIGGER fail_entries{on[0]}", f"DROP TRIGGER fail_context{on[1]}"))
        for _, path, body in writes:
            assert send(client, path, body).status_code == 200, path
        for session in "ab":
            stored = history(client, session)
            assert entries_of(stored) == tree and stored["treeHash"] == tree_hash(tree)
            assert (stored["entryCount"], stored["revision"]) == (3, 1), "created and written in one revision"
        assert history(client, "c")["revision"] == 0  # a static context is not a tree write (the fork)
        assert history(client, "d")["entryCount"] == 1
        assert listed(client) == {"before", "a", "b", "c", "d"}


@pytest.fixture
def tiny_disk() -> Iterator[Path]:
    """A 4 MiB tmpfs: a filesystem that really fills up (root only)."""
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root")
    mount = Path(tempfile.mkdtemp(prefix="rein-full-"))
    command = ["mount", "-t", "tmpfs", "-o", "size=4m", "tmpfs", str(mount)]
    done = subprocess.run(command, capture_output=True, check=False)
    if done.returncode != 0:
        mount.rmdir()
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.decode(errors='replace').strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)
        mount.rmdir()


def test_a_full_disk_leaves_no_half_made_session(tiny_disk: Path, tmp_path: Path) -> None:
    """SQLite on a filesystem with 64 KiB left: a first append of a 200 KB entry and an init with a
    200 KB system prompt fail (a store failure) and store nothing; with room again, both succeed."""
    big = chain("big", 1)
    big[0]["message"] = {"role": "user", "content": "x" * 200_000, "timestamp": 1}
    prompt = {**CONTEXT, "systemPrompt": "y" * 200_000}
    writes = (
        ("a", "/api/session/tree/append", {"sessionId": "a", "entries": big, "leafId": "big0"}),
        ("b", "/api/session/init", {"sessionId": "b", "staticContext": prompt}),
    )
    db = tiny_disk / "sessions.db"
    with running_server(tmp_path, db=str(db)) as url, httpx2.Client(base_url=url, timeout=30) as client:
        assert send(client, "/api/session/init", {"sessionId": "before"}).status_code == 200
        stat = os.statvfs(tiny_disk)
        filler = tiny_disk / "filler"
        filler.write_bytes(b"\0" * (stat.f_bavail * stat.f_frsize - 64 * 1024))
        for session, path, body in writes:
            answer = send(client, path, body)
            assert answer.status_code >= 500 and "full" in answer.json()["error"], answer.text[:200]
            assert client.get(f"/api/session/{session}/history").status_code == 404, f"{path}: half-made"
        assert listed(client) == {"before"}
        filler.unlink()
        for _, path, body in writes:
            assert send(client, path, body).status_code == 200, path
        assert entries_of(history(client, "a")) == big
        assert history(client, "b")["revision"] == 0  # a static context is not a tree write (the fork)


# the store's side of it


def test_commit_as_creates_a_session_with_its_first_change(store: StoreCase) -> None:
    async def body(s: Store) -> None:
        first = rows(0, 2, EMPTY_TREE_HASH)
        made = await s.commit_as("", "s1", append(first), base=header(), holder="server-a", create=True)
        assert (made.revision, made.entry_count, made.leaf_id, made.created_ms) == (1, 2, "e1", 1)
        assert await s.entries("", "s1") == first
        with pytest.raises(RevisionConflict, match="created by another writer"):
            await s.commit_as("", "s1", append(first), base=header(now=5), holder="server-b", create=True)
        assert await s.session("", "s1") == made, "the second creator wrote nothing"

    store.run(body)


def test_commit_as_is_a_compare_and_set_on_the_revision_read(store: StoreCase) -> None:
    async def body(s: Store) -> None:
        base = await s.create(header())
        first = rows(0, 1, EMPTY_TREE_HASH)
        one = await s.commit_as("", "s1", append(first), base=base, holder="server-a")
        assert one.revision == 1
        late = rows(0, 1, EMPTY_TREE_HASH, tag="late")  # planned from revision 0, as another writer did
        with pytest.raises(RevisionConflict, match="past revision 0"):
            await s.commit_as("", "s1", append(late), base=base, holder="server-b")
        assert await s.entries("", "s1") == first and await s.session("", "s1") == one
        assert (await s.acquire("s1", "server-a")).fence == 1, "a refused commit took no lease"
        remade = dataclasses.replace(one, created_ms=99)  # deleted and made again elsewhere
        with pytest.raises(RevisionConflict):
            await s.commit_as("", "s1", append(rows(1, 1, one.tree_hash)), base=remade, holder="server-a")
        gone = header("nope")
        with pytest.raises(RevisionConflict, match="gone"):
            await s.commit_as("", "nope", Change(leaf_id=None), base=gone, holder="server-a")

    store.run(body)


def test_commit_as_takes_the_lease_over_so_a_stale_writer_is_fenced(store: StoreCase) -> None:
    """The fencing holds with the one-transaction write: a server that took the lease with `acquire`
    and was overtaken by another's `commit_as` is refused, however its revision looks."""

    async def body(s: Store) -> None:
        base = await s.create(header())
        stale = await s.acquire("s1", "server-a")
        first = rows(0, 1, EMPTY_TREE_HASH)
        done = await s.commit_as("", "s1", append(first), base=base, holder="server-b")
        assert (await s.acquire("s1", "server-b")).fence == stale.fence + 1, "taken over, fence raised"
        with pytest.raises(WriterFenced):
            await s.commit("", "s1", Change(leaf_id=None, now_ms=3), revision=done.revision, lease=stale)
        kept = await s.commit_as("", "s1", Change(leaf_id="e0", now_ms=4), base=done, holder="server-b")
        assert kept.revision == 2
        assert (await s.acquire("s1", "server-b")).fence == stale.fence + 1, "the holder keeps its fence"

    store.run(body)


def test_session_since_reads_the_row_and_the_new_entries_at_once(store: StoreCase) -> None:
    async def body(s: Store) -> None:
        assert await s.session_since("", "s1", 0, -1) == (None, None, [])
        base = await s.create(header())
        first = rows(0, 3, EMPTY_TREE_HASH)
        one = await s.commit_as("", "s1", append(first), base=base, holder="a")
        assert await s.session_since("", "s1", 0, -1) == (one, EMPTY_TREE_HASH, first)
        assert await s.session_since("", "s1", 2, 0) == (one, first[1].tree_hash, first[2:])
        assert await s.session_since("", "s1", 3, 1) == (one, None, []), "same revision: the row only"
        assert await s.session_since("", "s1", 5, 0) == (one, None, []), "fewer entries than cached"

    store.run(body)
