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
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

from rein.server.store import _sql as sql
from rein.server.store._base import (
    Change,
    ChunkRow,
    CompletedRequest,
    EntryRow,
    Lease,
    RunRow,
    SessionRow,
    StoreError,
)
from rein.server.store._common import check_lease, check_revision, over_budget, plan_commit
from rein.server.store._rows import (
    append_values,
    chunk_row,
    chunk_values,
    completed_row,
    completed_values,
    entry_row,
    must,
    run_row,
    run_values,
    session_row,
    session_values,
    update_values,
)
from rein.server.store._schema import SCHEMA_VERSION, SET_VERSION, TABLES, upgrade
from rein.session.remote._protocol import EMPTY_TREE_HASH

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
                    db.execute(statement)
                db.execute(SET_VERSION, (SCHEMA_VERSION,))
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

    async def sessions(self, owner: str) -> list[SessionRow]:
        return [must(session_row(row)) for row in await self._read(sql.SESSIONS, owner)]

    async def delete(self, owner: str, session_id: str) -> bool:
        def delete(db: sqlite3.Connection) -> bool:
            with _write(db):
                db.execute(sql.DROP_ENTRIES, (owner, session_id))
                db.execute(sql.DROP_RUNS, (owner, session_id))
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

    # chunked requests
    async def put_chunk(self, owner: str, chunk: ChunkRow, now_ms: int) -> ChunkRow | None:
        def put(db: sqlite3.Connection) -> ChunkRow | None:
            with _write(db):
                if db.execute(sql.PUT_CHUNK, chunk_values(owner, chunk, now_ms)).fetchall():
                    return None
                row = db.execute(sql.CHUNK, (owner, chunk.request_id, chunk.chunk_index)).fetchone()
            return chunk_row(row)

        return await self._run(put)

    async def chunks(self, owner: str, request_id: str) -> list[ChunkRow]:
        return [chunk_row(row) for row in await self._read(sql.CHUNKS, owner, request_id)]

    async def pending_bytes(self) -> int:
        return int((await self._read(sql.PENDING_BYTES))[0][0])

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
                requests = db.execute(sql.PENDING_REQUESTS).fetchall()
                db.executemany(sql.DROP_REQUEST, over_budget(requests, max_pending_bytes))

        await self._run(expire)


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
