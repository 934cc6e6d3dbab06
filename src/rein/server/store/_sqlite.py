"""The SQLite backend: one file, the default of `rein serve`.

Durability: the database runs in WAL mode with `synchronous=FULL`, so every transaction's commit
fsyncs the write-ahead log before `COMMIT` returns; a method returns only after its commit, so what
it acknowledged survives a crash of the process or the machine. Each write is one `BEGIN IMMEDIATE`
transaction (the write lock taken up front, so a revision or fence check and the write it guards see
the same database even with another process on the file; `busy_timeout` makes waiters queue).

All blocking calls run on one worker thread that owns the connection, so the event loop never waits
on the disk and calls are serialized in the order they were made.
"""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

from rein.protocol import EMPTY_TREE_HASH
from rein.server.store import _sql as sql
from rein.server.store._base import (
    Change,
    ChunkInfo,
    ChunkRow,
    CompletedRequest,
    EntryRow,
    Lease,
    Notify,
    RevisionConflict,
    RunRow,
    SessionRow,
    StoreError,
)
from rein.server.store._common import check_lease, check_revision, over_budget, plan_commit
from rein.server.store._rows import (
    Since,
    append_values,
    chunk_row,
    chunk_values,
    completed_row,
    completed_values,
    entry_row,
    finish_values,
    must,
    renew_values,
    run_row,
    run_values,
    session_row,
    session_values,
    since_rows,
    update_values,
)
from rein.server.store._schema import INDEXES, SCHEMA_VERSION, SET_VERSION, TABLES, added_column, upgrade

A = TypeVar("A")
T = TypeVar("T")
BUSY_TIMEOUT_MS = 30_000


@contextmanager
def _write(db: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    db.execute("BEGIN IMMEDIATE")
    try:
        yield db
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")


def _connect(path: Path) -> sqlite3.Connection:
    path.parent.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None, check_same_thread=False)
    try:
        db.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        db.execute("PRAGMA journal_mode = WAL")
        db.execute("PRAGMA synchronous = FULL")
        db.execute("PRAGMA foreign_keys = ON")
        with _write(db):
            for statement in TABLES:
                db.execute(statement)
            row = db.execute("SELECT max(version) FROM schema_version").fetchone()
            if row[0] is None:
                db.execute("INSERT INTO schema_version (version) VALUES (?)", (SCHEMA_VERSION,))
            elif row[0] > SCHEMA_VERSION:
                raise StoreError(
                    f"{path}: schema version {row[0]} is newer than this rein's ({SCHEMA_VERSION})"
                )
            elif row[0] < SCHEMA_VERSION:
                for statement in upgrade(row[0]):
                    added = added_column(statement)
                    if added is None or added[1] not in _columns(db, added[0]):
                        db.execute(statement)
                db.execute(SET_VERSION, (SCHEMA_VERSION,))
            for statement in INDEXES:
                db.execute(statement)
    except BaseException:
        db.close()
        raise
    return db


class SqliteStore:
    """A `Store` in one SQLite file. Open with `await SqliteStore.open(path)`; the parent directory is
    created. Several processes may share the file (writes queue on SQLite's lock)."""

    def __init__(self, path: Path, db: sqlite3.Connection, worker: ThreadPoolExecutor) -> None:
        self.path = path
        self._db = db
        self._worker = worker
        self._closed = False

    @classmethod
    async def open(cls, path: Path) -> SqliteStore:
        worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="rein-sqlite")
        try:
            db = await asyncio.get_running_loop().run_in_executor(worker, _guard, path, _connect, path)
        except BaseException:
            worker.shutdown(wait=False)
            raise
        return cls(path, db, worker)

    async def _run(self, call: Callable[[sqlite3.Connection], T]) -> T:
        return await asyncio.get_running_loop().run_in_executor(
            self._worker, _guard, self.path, call, self._db
        )

    async def _read(self, statement: str, *args: object) -> list[tuple[Any, ...]]:
        return await self._run(lambda db: db.execute(statement, args).fetchall())

    async def _write(self, statement: str, *args: object) -> list[tuple[Any, ...]]:
        def write(db: sqlite3.Connection) -> list[tuple[Any, ...]]:
            with _write(db):
                return db.execute(statement, args).fetchall()

        return await self._run(write)

    async def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        try:
            await self._run(lambda db: db.close())
        finally:
            self._worker.shutdown(wait=False)

    # sessions
    async def session(self, owner: str, session_id: str) -> SessionRow | None:
        return await self._run(lambda db: _read_session(db, owner, session_id))

    async def create(self, row: SessionRow) -> SessionRow:
        def create(db: sqlite3.Connection) -> SessionRow:
            with _write(db):
                db.execute(sql.CREATE, session_values(row))
                stored = _read_session(db, row.owner, row.session_id)
            assert stored is not None
            return stored

        return await self._run(create)

    async def entries(self, owner: str, session_id: str, start: int = 0) -> list[EntryRow]:
        return [entry_row(row) for row in await self._read(sql.ENTRIES, owner, session_id, start)]

    async def session_since(self, owner: str, session_id: str, count: int, revision: int) -> Since:
        rows = await self._read(sql.SESSION_SINCE, count, count - 1, revision, owner, session_id)
        return since_rows(rows, count)

    async def prefix_hash(self, owner: str, session_id: str, count: int) -> str | None:
        if count <= 0:
            return EMPTY_TREE_HASH if count == 0 else None
        rows = await self._read(sql.PREFIX_HASH, owner, session_id, count - 1)
        return str(rows[0][0]) if rows else None

    async def commit(
        self, owner: str, session_id: str, change: Change, *, revision: int, lease: Lease
    ) -> SessionRow:
        def commit(db: sqlite3.Connection) -> SessionRow:
            with _write(db):
                check_lease(db.execute(sql.LEASE, (session_id,)).fetchone(), lease)
                current = _read_session(db, owner, session_id)
                plan = plan_commit(check_revision(current, session_id, revision), change)
                if change.replace:
                    db.execute(sql.DROP_ENTRIES, (owner, session_id))
                db.executemany(sql.APPEND, [append_values(owner, session_id, e) for e in change.append])
                row = db.execute(sql.UPDATE_SESSION, update_values(plan, owner, session_id, revision, change))
                return must(session_row(row.fetchone()))

        return await self._run(commit)

    async def commit_as(
        self,
        owner: str,
        session_id: str,
        change: Change,
        *,
        base: SessionRow,
        holder: str,
        create: bool = False,
    ) -> SessionRow:
        def commit(db: sqlite3.Connection) -> SessionRow:
            with _write(db):
                db.execute(sql.TAKE_LEASE, (session_id, holder))
                if create and not db.execute(sql.CREATE_NEW, session_values(base)).fetchall():
                    raise RevisionConflict(f"session {session_id!r} was created by another writer first")
                plan = plan_commit(base, change)
                values = (*update_values(plan, owner, session_id, base.revision, change), base.revision)
                row = db.execute(sql.UPDATE_AT, (*values, base.created_ms)).fetchone()
                if row is None:
                    raise RevisionConflict(f"session {session_id!r} is gone or past revision {base.revision}")
                if change.replace:
                    db.execute(sql.DROP_ENTRIES, (owner, session_id))
                db.executemany(sql.APPEND, [append_values(owner, session_id, e) for e in change.append])
                return must(session_row(row))

        return await self._run(commit)

    async def sessions(self, owner: str) -> list[SessionRow]:
        return [must(session_row(row)) for row in await self._read(sql.SESSIONS, owner)]

    async def delete(self, owner: str, session_id: str) -> bool:
        def delete(db: sqlite3.Connection) -> bool:
            with _write(db):
                db.execute(sql.DROP_ENTRIES, (owner, session_id))
                db.execute(sql.DROP_RUNS, (owner, session_id))
                db.execute(sql.DROP_EVENTS, (owner, session_id))
                return bool(db.execute(sql.DROP_SESSION, (owner, session_id)).fetchall())

        return await self._run(delete)

    async def set_cwd(self, owner: str, session_id: str, cwd: str) -> None:
        await self._write(sql.SET_CWD, cwd, owner, session_id)

    # writer leases
    async def acquire(self, session_id: str, holder: str) -> Lease:
        (row,) = await self._write(sql.ACQUIRE, session_id, holder)
        return Lease(session_id=session_id, holder=row[0], fence=row[1])

    # the run journal
    async def put_run(self, run: RunRow) -> None:
        await self._write(sql.PUT_RUN, *run_values(run))

    async def run(self, owner: str, session_id: str, run_id: str) -> RunRow | None:
        rows = await self._read(sql.RUN, owner, session_id, run_id)
        return run_row(rows[0]) if rows else None

    async def expire_runs(self, before_ms: int) -> int:
        return len(await self._write(sql.EXPIRE_RUNS, before_ms))

    async def claim_run(self, run: RunRow, now_ms: int) -> bool:
        return bool(await self._write(sql.CLAIM_RUN, *run_values(run), now_ms))

    async def renew_run(self, run: RunRow) -> bool:
        return bool(await self._write(sql.RENEW_RUN, *renew_values(run)))

    async def finish_run(self, run: RunRow) -> bool:
        return bool(await self._write(sql.FINISH_RUN, *finish_values(run)))

    async def interrupt_lapsed(self, now_ms: int, error: str) -> list[RunRow]:
        return [run_row(row) for row in await self._write(sql.INTERRUPT_LAPSED, error, now_ms, now_ms)]

    async def live_runs(self, owner: str, now_ms: int) -> list[RunRow]:
        return [run_row(row) for row in await self._read(sql.LIVE_RUNS, owner, now_ms)]

    async def secret(self, name: str, candidate: str) -> str:
        def secret(db: sqlite3.Connection) -> str:
            with _write(db):
                db.execute(sql.PUT_SECRET, (name, candidate))
                return str(db.execute(sql.SECRET, (name,)).fetchone()[0])

        return await self._run(secret)

    # run events: one process on the file, which hands its own events to its pages (no listener)
    async def put_events(self, owner: str, session_id: str, events: Sequence[str], now_ms: int) -> int:
        def put(db: sqlite3.Connection) -> int:
            with _write(db):
                last = int(db.execute(sql.LAST_EVENT, (owner, session_id)).fetchone()[0])
                rows = [(owner, session_id, last + i, text, now_ms) for i, text in enumerate(events, 1)]
                db.executemany(sql.PUT_EVENT, rows)
            return last + len(rows)

        return await self._run(put)

    async def events_after(
        self, owner: str, session_id: str, after: int, limit: int
    ) -> list[tuple[int, str]]:
        rows = await self._read(sql.EVENTS_AFTER, owner, session_id, after, limit)
        return [(int(seq), str(text)) for seq, text in rows]

    async def last_event(self, owner: str, session_id: str) -> int:
        return int((await self._read(sql.LAST_EVENT, owner, session_id))[0][0])

    async def expire_events(self, before_ms: int) -> None:
        await self._write(sql.EXPIRE_EVENTS, before_ms)

    async def listen(self, notify: Notify) -> bool:
        return False

    # chunked requests
    async def put_chunk(self, owner: str, chunk: ChunkRow, now_ms: int) -> ChunkRow | None:
        values = list(chunk_values(owner, chunk, now_ms))
        values[6] = chunk.chunk.encode("utf-8")  # a BLOB: its size is read without its bytes

        def put(db: sqlite3.Connection) -> ChunkRow | None:
            with _write(db):
                if db.execute(sql.PUT_CHUNK, values).fetchall():
                    return None
                row = db.execute(sql.CHUNK, (owner, chunk.request_id, chunk.chunk_index)).fetchone()
            return _chunk_row(row)

        return await self._run(put)

    async def chunks(self, owner: str, request_id: str) -> list[ChunkRow]:
        return [_chunk_row(row) for row in await self._read(sql.CHUNKS, owner, request_id)]

    async def chunk_infos(self, owner: str, request_id: str) -> list[ChunkInfo]:
        return [
            ChunkInfo(chunk_index=index, target=target, total_chunks=total, sha256=digest)
            for index, target, total, digest in await self._read(sql.CHUNK_INFOS, owner, request_id)
        ]

    async def pending_bytes(self, owner: str | None = None) -> int:
        if owner is None:
            rows = await self._read(_sized(sql.PENDING_BYTES))
        else:
            rows = await self._read(_sized(sql.OWNER_PENDING_BYTES), owner)
        return int(rows[0][0])

    async def complete_request(self, owner: str, done: CompletedRequest, now_ms: int) -> None:
        def complete(db: sqlite3.Connection) -> None:
            with _write(db):
                db.execute(sql.DROP_REQUEST, (owner, done.request_id))
                db.execute(sql.COMPLETE, completed_values(owner, done, now_ms))

        await self._run(complete)

    async def completed_request(self, owner: str, request_id: str) -> CompletedRequest | None:
        rows = await self._read(sql.COMPLETED, owner, request_id)
        return completed_row(request_id, rows[0]) if rows else None

    async def expire_chunks(
        self, *, pending_before_ms: int, completed_before_ms: int, max_pending_bytes: int
    ) -> None:
        def expire(db: sqlite3.Connection) -> None:
            with _write(db):
                db.execute(sql.EXPIRE_IDLE, (pending_before_ms,))
                db.execute(sql.EXPIRE_COMPLETED, (completed_before_ms,))
                requests = db.execute(_sized(sql.PENDING_REQUESTS)).fetchall()
                db.executemany(sql.DROP_REQUEST, over_budget(requests, max_pending_bytes))

        await self._run(expire)

    # health
    async def ping(self) -> None:
        await self._read("SELECT 1")


def _sized(statement: str) -> str:
    """A chunk statement with SQLite's way to a chunk's size (`_sql`'s `{size}`)."""
    return statement.format(size=sql.SQLITE_CHUNK_SIZE)


def _chunk_row(row: Sequence[Any]) -> ChunkRow:
    """A chunk row: its text is a BLOB, or TEXT in a row written before chunks were BLOBs."""
    text = row[5]
    return chunk_row((*row[:5], text.decode("utf-8") if isinstance(text, bytes) else text))


def _columns(db: sqlite3.Connection, table: str) -> set[str]:
    return {str(row[1]) for row in db.execute(f"PRAGMA table_info({table})")}


def _read_session(db: sqlite3.Connection, owner: str, session_id: str) -> SessionRow | None:
    return session_row(db.execute(sql.SESSION, (owner, session_id)).fetchone())


def _guard(path: Path, call: Callable[[A], T], arg: A) -> T:
    """Run `call(arg)` on the worker thread, translating SQLite's errors into StoreError."""
    try:
        return call(arg)
    except sqlite3.Error as exc:
        raise StoreError(f"{path}: {exc}") from exc
    except OSError as exc:
        raise StoreError(f"{path}: {exc.strerror or exc}") from exc
