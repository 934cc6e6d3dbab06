"""The PostgreSQL backend: for several `rein serve` processes behind one load balancer.

Durability: a method returns after its transaction's COMMIT, which PostgreSQL acknowledges only once
the commit record is flushed to its WAL (with the server's default `synchronous_commit=on`).

Two processes never both write a session: `acquire` is one `INSERT ... ON CONFLICT DO UPDATE ...
RETURNING` (atomic, row-locked), and `commit` runs in one transaction that locks the lease row (FOR
SHARE, so a takeover waits for it to finish) and the session row (FOR UPDATE, so commits queue), then
checks the fence and the revision before it writes.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import asyncpg  # type: ignore[import-untyped]

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
from rein.server.store._common import check_lease, check_revision, mask_url, over_budget, plan_commit
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

Connection = Any
"""asyncpg ships no type information; its connection is the one untyped boundary here."""
SCHEMA_LOCK = 0x7265696E  # "rein": serializes schema creation across processes
DRIVER_ERRORS = (OSError, TimeoutError, asyncpg.PostgresError, asyncpg.InterfaceError)
Q = {name: sql.numbered(text) for name, text in vars(sql).items() if name.isupper() and isinstance(text, str)}
"""Every statement of `_sql`, numbered for PostgreSQL once."""


class PostgresStore:
    """A `Store` on a PostgreSQL database (asyncpg pool). Open with `await PostgresStore.open(url)`;
    the tables are created if missing."""

    def __init__(self, url: str, pool: Any) -> None:
        self.url = mask_url(url)
        self._pool = pool

    @classmethod
    async def open(cls, url: str, *, max_connections: int = 10) -> PostgresStore:
        masked = mask_url(url)
        try:
            pool = await asyncpg.create_pool(url, min_size=1, max_size=max_connections, command_timeout=60)
        except DRIVER_ERRORS as exc:
            raise StoreError(f"{masked}: cannot connect: {exc}") from exc
        except ValueError as exc:
            raise StoreError(f"{masked}: bad PostgreSQL URL: {exc}") from exc
        store = cls(url, pool)
        try:
            async with store._tx() as db:
                await db.execute("SELECT pg_advisory_xact_lock($1)", SCHEMA_LOCK)
                for statement in TABLES:
                    await db.execute(statement)
                version = await db.fetchval("SELECT max(version) FROM schema_version")
                if version is None:
                    await db.execute("INSERT INTO schema_version (version) VALUES ($1)", SCHEMA_VERSION)
                elif version > SCHEMA_VERSION:
                    raise StoreError(
                        f"{masked}: schema version {version} is newer than rein's ({SCHEMA_VERSION})"
                    )
                elif version < SCHEMA_VERSION:
                    for statement in upgrade(version):
                        await db.execute(statement)
                    await db.execute(sql.numbered(SET_VERSION), SCHEMA_VERSION)
        except BaseException:
            await pool.close()
            raise
        return store

    @asynccontextmanager
    async def _tx(self) -> AsyncIterator[Connection]:
        """One connection in one transaction; database failures become StoreError naming the URL."""
        try:
            async with self._pool.acquire() as db, db.transaction():
                yield db
        except DRIVER_ERRORS as exc:
            raise StoreError(f"{self.url}: {exc}") from exc

    async def _fetch(self, statement: str, *args: object) -> list[Any]:
        async with self._tx() as db:
            return list(await db.fetch(Q[statement], *args))

    async def close(self) -> None:
        await self._pool.close()

    # sessions
    async def session(self, owner: str, session_id: str) -> SessionRow | None:
        rows = await self._fetch("SESSION", owner, session_id)
        return session_row(rows[0]) if rows else None

    async def create(self, row: SessionRow) -> SessionRow:
        async with self._tx() as db:
            await db.execute(Q["CREATE"], *session_values(row))
        # a new statement: it sees the row of a racing creator that committed first
        return must(await self.session(row.owner, row.session_id))

    async def entries(self, owner: str, session_id: str, start: int = 0) -> list[EntryRow]:
        return [entry_row(row) for row in await self._fetch("ENTRIES", owner, session_id, start)]

    async def prefix_hash(self, owner: str, session_id: str, count: int) -> str | None:
        if count <= 0:
            return EMPTY_TREE_HASH if count == 0 else None
        rows = await self._fetch("PREFIX_HASH", owner, session_id, count - 1)
        return str(rows[0][0]) if rows else None

    async def commit(
        self, owner: str, session_id: str, change: Change, *, revision: int, lease: Lease
    ) -> SessionRow:
        async with self._tx() as db:
            check_lease(await db.fetchrow(Q["LEASE"] + " FOR SHARE", session_id), lease)
            current = session_row(await db.fetchrow(Q["SESSION"] + " FOR UPDATE", owner, session_id))
            plan = plan_commit(check_revision(current, session_id, revision), change)
            if change.replace:
                await db.execute(Q["DROP_ENTRIES"], owner, session_id)
            if change.append:
                await db.executemany(
                    Q["APPEND"], [append_values(owner, session_id, e) for e in change.append]
                )
            values = update_values(plan, owner, session_id, revision, change)
            return must(session_row(await db.fetchrow(Q["UPDATE_SESSION"], *values)))

    async def sessions(self, owner: str) -> list[SessionRow]:
        return [must(session_row(row)) for row in await self._fetch("SESSIONS", owner)]

    async def delete(self, owner: str, session_id: str) -> bool:
        async with self._tx() as db:
            await db.execute(Q["DROP_ENTRIES"], owner, session_id)
            await db.execute(Q["DROP_RUNS"], owner, session_id)
            return bool(await db.fetch(Q["DROP_SESSION"], owner, session_id))

    async def set_cwd(self, owner: str, session_id: str, cwd: str) -> None:
        await self._fetch("SET_CWD", cwd, owner, session_id)

    # writer leases
    async def acquire(self, session_id: str, holder: str) -> Lease:
        (row,) = await self._fetch("ACQUIRE", session_id, holder)
        return Lease(session_id=session_id, holder=row[0], fence=row[1])

    # the run journal
    async def put_run(self, run: RunRow) -> None:
        await self._fetch("PUT_RUN", *run_values(run))

    async def run(self, owner: str, session_id: str, run_id: str) -> RunRow | None:
        rows = await self._fetch("RUN", owner, session_id, run_id)
        return run_row(rows[0]) if rows else None

    async def expire_runs(self, before_ms: int) -> int:
        return len(await self._fetch("EXPIRE_RUNS", before_ms))

    # chunked requests
    async def put_chunk(self, owner: str, chunk: ChunkRow, now_ms: int) -> ChunkRow | None:
        async with self._tx() as db:
            if await db.fetch(Q["PUT_CHUNK"], *chunk_values(owner, chunk, now_ms)):
                return None
            row = await db.fetchrow(Q["CHUNK"], owner, chunk.request_id, chunk.chunk_index)
        # conflicted, then gone (completed or expired in between): nothing stored to compare with
        return None if row is None else chunk_row(row)

    async def chunks(self, owner: str, request_id: str) -> list[ChunkRow]:
        return [chunk_row(row) for row in await self._fetch("CHUNKS", owner, request_id)]

    async def pending_bytes(self) -> int:
        return int((await self._fetch("PENDING_BYTES"))[0][0])

    async def complete_request(self, owner: str, done: CompletedRequest, now_ms: int) -> None:
        async with self._tx() as db:
            await db.execute(Q["DROP_REQUEST"], owner, done.request_id)
            await db.execute(Q["COMPLETE"], *completed_values(owner, done, now_ms))

    async def completed_request(self, owner: str, request_id: str) -> CompletedRequest | None:
        rows = await self._fetch("COMPLETED", owner, request_id)
        return completed_row(request_id, rows[0]) if rows else None

    async def expire_chunks(
        self, *, pending_before_ms: int, completed_before_ms: int, max_pending_bytes: int
    ) -> None:
        async with self._tx() as db:
            await db.execute(Q["EXPIRE_IDLE"], pending_before_ms)
            await db.execute(Q["EXPIRE_COMPLETED"], completed_before_ms)
            requests = await db.fetch(Q["PENDING_REQUESTS"])
            dropped = over_budget([(o, r, int(size)) for o, r, size in requests], max_pending_bytes)
            if dropped:
                await db.executemany(Q["DROP_REQUEST"], dropped)
