"""The PostgreSQL backend: for several `rein serve` processes behind one load balancer.

Durability: a method returns after its transaction's COMMIT, which PostgreSQL acknowledges only once
the commit record is flushed to its WAL (with the server's default `synchronous_commit=on`).

Two processes never both write a session: `acquire` is one `INSERT ... ON CONFLICT DO UPDATE ...
RETURNING` (atomic, row-locked), and `commit` runs in one transaction that locks the session row (FOR
UPDATE, so commits queue) and the lease row (FOR SHARE, so a takeover waits for it to finish), then
checks the fence and the revision before it writes. `commit_as`, the service's write, is one
statement for an append (the compare-and-set of the session row, then the lease and the entries), a
transaction in the same lock order for a new session or a whole tree.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import asyncpg  # type: ignore[import-untyped]

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
    SessionRow,
    StoreError,
)
from rein.server.store._common import check_lease, check_revision, mask_url, over_budget, plan_commit
from rein.server.store._pg import DRIVER_ERRORS, Connection, Q
from rein.server.store._postgres_runs import PostgresRuns
from rein.server.store._rows import (
    Since,
    append_values,
    chunk_row,
    chunk_values,
    completed_row,
    completed_values,
    entry_row,
    must,
    session_row,
    session_values,
    since_rows,
    update_values,
)
from rein.server.store._schema import INDEXES, SCHEMA_VERSION, SET_VERSION, TABLES, added_column, upgrade

COLUMN_EXISTS = (
    "SELECT EXISTS (SELECT 1 FROM information_schema.columns WHERE table_schema = current_schema() "
    "AND table_name = $1 AND column_name = $2)"
)
SCHEMA_LOCK = 0x7265696E  # "rein": serializes schema creation across processes
# `commit_as` in one statement (a statement is a transaction: no BEGIN and COMMIT round trips): the
# compare-and-set of the session row, then, only if it matched, the lease and the new entries
Q["COMMIT_ONE"] = f"""WITH updated AS ({Q["UPDATE_AT"]}), lease AS (
    INSERT INTO leases (session_id, holder, fence) SELECT $9, $12::text, 1 FROM updated
    ON CONFLICT (session_id) DO UPDATE SET holder = excluded.holder, fence = leases.fence + 1
    WHERE leases.holder <> excluded.holder
), added AS (
    INSERT INTO entries (owner, session_id, seq, entry_id, json, tree_hash)
    SELECT $8, $9, e.seq, e.entry_id, e.json, e.tree_hash
    FROM unnest($13::bigint[], $14::text[], $15::text[], $16::text[]) AS e(seq, entry_id, json, tree_hash)
    WHERE EXISTS (SELECT 1 FROM updated)
) SELECT {sql.SESSION_COLUMNS} FROM updated"""


class PostgresStore(PostgresRuns):
    """A `Store` on a PostgreSQL database (asyncpg pool). Open with `await PostgresStore.open(url)`;
    the tables are created if missing."""

    def __init__(self, url: str, pool: Any) -> None:
        self.url = mask_url(url)
        self._dsn = url
        self._pool = pool
        self._listeners: list[Notify] = []
        self._listener: Connection | None = None

    @classmethod
    async def open(cls, url: str, *, max_connections: int = 10) -> PostgresStore:
        masked = mask_url(url)
        try:
            pool = await asyncpg.create_pool(
                url, min_size=1, max_size=max_connections, command_timeout=60, reset=_no_reset
            )
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
                        added = added_column(statement)
                        if added is None or not await db.fetchval(COLUMN_EXISTS, *added):
                            await db.execute(statement)
                    await db.execute(sql.numbered(SET_VERSION), SCHEMA_VERSION)
                for statement in INDEXES:
                    await db.execute(statement)
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

    async def _read(self, statement: str, *args: object) -> list[Any]:
        """One query on its own: a statement is atomic, so no BEGIN and COMMIT round trips."""
        try:
            return list(await self._pool.fetch(Q[statement], *args))
        except DRIVER_ERRORS as exc:
            raise StoreError(f"{self.url}: {exc}") from exc

    async def close(self) -> None:
        if self._listener is not None and not self._listener.is_closed():
            await self._listener.close()
        await self._pool.close()

    # sessions
    async def session(self, owner: str, session_id: str) -> SessionRow | None:
        rows = await self._read("SESSION", owner, session_id)
        return session_row(rows[0]) if rows else None

    async def create(self, row: SessionRow) -> SessionRow:
        async with self._tx() as db:
            await db.execute(Q["CREATE"], *session_values(row))
        # a new statement: it sees the row of a racing creator that committed first
        return must(await self.session(row.owner, row.session_id))

    async def entries(self, owner: str, session_id: str, start: int = 0) -> list[EntryRow]:
        return [entry_row(row) for row in await self._read("ENTRIES", owner, session_id, start)]

    async def session_since(self, owner: str, session_id: str, count: int, revision: int) -> Since:
        return since_rows(
            await self._read("SESSION_SINCE", count, count - 1, revision, owner, session_id), count
        )

    async def prefix_hash(self, owner: str, session_id: str, count: int) -> str | None:
        if count <= 0:
            return EMPTY_TREE_HASH if count == 0 else None
        rows = await self._read("PREFIX_HASH", owner, session_id, count - 1)
        return str(rows[0][0]) if rows else None

    async def commit(
        self, owner: str, session_id: str, change: Change, *, revision: int, lease: Lease
    ) -> SessionRow:
        async with self._tx() as db:
            current = session_row(await db.fetchrow(Q["SESSION"] + " FOR UPDATE", owner, session_id))
            check_lease(await db.fetchrow(Q["LEASE"] + " FOR SHARE", session_id), lease)
            plan = plan_commit(check_revision(current, session_id, revision), change)
            if change.replace:
                await db.execute(Q["DROP_ENTRIES"], owner, session_id)
            if change.append:
                await db.executemany(
                    Q["APPEND"], [append_values(owner, session_id, e) for e in change.append]
                )
            values = update_values(plan, owner, session_id, revision, change)
            return must(session_row(await db.fetchrow(Q["UPDATE_SESSION"], *values)))

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
        plan = plan_commit(base, change)
        values = (
            *update_values(plan, owner, session_id, base.revision, change),
            base.revision,
            base.created_ms,
        )
        if not create and not change.replace:  # an append, a leaf move, a context: one round trip
            entries = change.append
            rows = await self._read(
                "COMMIT_ONE",
                *values,
                holder,
                [e.seq for e in entries],
                [e.entry_id for e in entries],
                [e.json for e in entries],
                [e.tree_hash for e in entries],
            )
            if not rows:
                raise RevisionConflict(f"session {session_id!r} is gone or past revision {base.revision}")
            return must(session_row(rows[0]))
        async with self._tx() as db:  # the session row first, then the lease, as COMMIT_ONE
            if create and not await db.fetch(Q["CREATE_NEW"], *session_values(base)):
                raise RevisionConflict(f"session {session_id!r} was created by another writer first")
            row = await db.fetchrow(Q["UPDATE_AT"], *values)
            if row is None:
                raise RevisionConflict(f"session {session_id!r} is gone or past revision {base.revision}")
            await db.execute(Q["TAKE_LEASE"], session_id, holder)
            if change.replace:
                await db.execute(Q["DROP_ENTRIES"], owner, session_id)
            if change.append:
                await db.executemany(
                    Q["APPEND"], [append_values(owner, session_id, e) for e in change.append]
                )
            return must(session_row(row))

    async def sessions(self, owner: str) -> list[SessionRow]:
        return [must(session_row(row)) for row in await self._fetch("SESSIONS", owner)]

    async def delete(self, owner: str, session_id: str) -> bool:
        async with self._tx() as db:
            await db.execute(Q["DROP_ENTRIES"], owner, session_id)
            await db.execute(Q["DROP_RUNS"], owner, session_id)
            await db.execute(Q["DROP_EVENTS"], owner, session_id)
            return bool(await db.fetch(Q["DROP_SESSION"], owner, session_id))

    async def set_cwd(self, owner: str, session_id: str, cwd: str) -> None:
        await self._fetch("SET_CWD", cwd, owner, session_id)

    # writer leases
    async def acquire(self, session_id: str, holder: str) -> Lease:
        (row,) = await self._fetch("ACQUIRE", session_id, holder)
        return Lease(session_id=session_id, holder=row[0], fence=row[1])

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

    async def chunk_infos(self, owner: str, request_id: str) -> list[ChunkInfo]:
        return [
            ChunkInfo(chunk_index=index, target=target, total_chunks=total, sha256=digest)
            for index, target, total, digest in await self._fetch("CHUNK_INFOS", owner, request_id)
        ]

    async def pending_bytes(self, owner: str | None = None) -> int:
        async with self._tx() as db:
            if owner is None:
                total = await db.fetchval(_sized("PENDING_BYTES"))
            else:
                total = await db.fetchval(_sized("OWNER_PENDING_BYTES"), owner)
        return int(total)

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
            requests = await db.fetch(_sized("PENDING_REQUESTS"))
            dropped = over_budget([(o, r, int(size)) for o, r, size in requests], max_pending_bytes)
            if dropped:
                await db.executemany(Q["DROP_REQUEST"], dropped)

    # health
    async def ping(self) -> None:
        try:  # no transaction: one round trip on a pooled connection
            async with self._pool.acquire() as db:
                await db.fetchval("SELECT 1")
        except DRIVER_ERRORS as exc:
            raise StoreError(f"{self.url}: {exc}") from exc


def _sized(statement: str) -> str:
    """A chunk statement with PostgreSQL's way to a chunk's size (`_sql`'s `{size}`)."""
    return Q[statement].format(size=sql.POSTGRES_CHUNK_SIZE)


async def _no_reset(db: Connection) -> None:
    """The pool's reset of a returned connection, skipped: asyncpg's default (advisory unlock, CLOSE
    ALL, UNLISTEN, RESET ALL) is a round trip per use, for session state rein never sets on a pooled
    connection (its locks are per transaction; it listens on a connection of its own)."""
