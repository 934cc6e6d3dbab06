"""The session server's storage: one `Store` interface, two backends.

    store = await open_store("sqlite:///srv/rein/sessions.db")    # or a plain path: SQLite
    store = await open_store("postgresql://rein@db:5432/rein")    # several servers on one database
    default_sqlite_path(home)                                     # home/.rein/server/sessions.db

Every write is durable before it returns (SQLite: WAL with synchronous=FULL; PostgreSQL: a committed
transaction). `commit` is guarded twice: by the session's `revision` (RevisionConflict) and by the
writer lease's fence (WriterFenced), so a server whose lease was taken over never writes again.
"""

from __future__ import annotations

from rein.server.store._base import (
    KEEP_LEAF,
    Change,
    ChunkInfo,
    ChunkRow,
    CompletedRequest,
    EntryRow,
    Lease,
    RevisionConflict,
    RunRow,
    RunStatus,
    SessionRow,
    Store,
    StoreError,
    WriterFenced,
)
from rein.server.store._open import default_sqlite_path, open_store
from rein.server.store._postgres import PostgresStore
from rein.server.store._sqlite import SqliteStore

__all__ = [
    "KEEP_LEAF",
    "Change",
    "ChunkInfo",
    "ChunkRow",
    "CompletedRequest",
    "EntryRow",
    "Lease",
    "PostgresStore",
    "RevisionConflict",
    "RunRow",
    "RunStatus",
    "SessionRow",
    "SqliteStore",
    "Store",
    "StoreError",
    "WriterFenced",
    "default_sqlite_path",
    "open_store",
]
