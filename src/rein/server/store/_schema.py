"""The tables both backends keep, in SQL that SQLite and PostgreSQL both accept (SQLite reads BIGINT
as INTEGER). Entry JSON is TEXT, never jsonb: tree hashes are over the bytes as the client sent them.

Leases are keyed by `session_id` alone (not owner + session): two owners with the same session id
share one writer lease, which only makes the lock coarser. Lease rows are never deleted, so a fence
never goes back to a value a stale writer still holds.
"""

from __future__ import annotations

import re
from typing import Final

SCHEMA_VERSION: Final = 3

RUNS_LIVE: Final = "CREATE INDEX IF NOT EXISTS runs_live ON runs (status, lease_until_ms)"
# the schedule's expiry of old events and finished runs reads these, not the whole table
EVENTS_AGE: Final = "CREATE INDEX IF NOT EXISTS run_events_age ON run_events (created_ms)"
RUNS_AGE: Final = "CREATE INDEX IF NOT EXISTS runs_age ON runs (updated_ms)"
CHUNKS_IDLE: Final = "CREATE INDEX IF NOT EXISTS chunks_idle ON chunks (owner, request_id, updated_ms)"
"""Covers the expiry's `max(updated_ms)` per request: the table's `updated_ms` sits after the chunk
text, which SQLite would read through to reach it."""
SECRETS: Final = "CREATE TABLE IF NOT EXISTS secrets (name TEXT PRIMARY KEY, value TEXT NOT NULL)"
RUN_EVENTS: Final = """CREATE TABLE IF NOT EXISTS run_events (
        owner TEXT NOT NULL,
        session_id TEXT NOT NULL,
        seq BIGINT NOT NULL,
        event TEXT NOT NULL,
        created_ms BIGINT NOT NULL,
        PRIMARY KEY (owner, session_id, seq)
    )"""

TABLES: Final = (
    """CREATE TABLE IF NOT EXISTS schema_version (version BIGINT NOT NULL)""",
    """CREATE TABLE IF NOT EXISTS sessions (
        owner TEXT NOT NULL,
        session_id TEXT NOT NULL,
        static_context TEXT,
        static_context_hash TEXT NOT NULL,
        leaf_id TEXT,
        revision BIGINT NOT NULL,
        entry_count BIGINT NOT NULL,
        tree_hash TEXT NOT NULL,
        created_ms BIGINT NOT NULL,
        updated_ms BIGINT NOT NULL,
        cwd TEXT,
        PRIMARY KEY (owner, session_id)
    )""",
    """CREATE INDEX IF NOT EXISTS sessions_by_update ON sessions (owner, updated_ms)""",
    """CREATE TABLE IF NOT EXISTS entries (
        owner TEXT NOT NULL,
        session_id TEXT NOT NULL,
        seq BIGINT NOT NULL,
        entry_id TEXT NOT NULL,
        json TEXT NOT NULL,
        tree_hash TEXT NOT NULL,
        PRIMARY KEY (owner, session_id, seq),
        UNIQUE (owner, session_id, entry_id)
    )""",
    """CREATE TABLE IF NOT EXISTS leases (
        session_id TEXT PRIMARY KEY,
        holder TEXT NOT NULL,
        fence BIGINT NOT NULL
    )""",
    """CREATE TABLE IF NOT EXISTS runs (
        owner TEXT NOT NULL,
        session_id TEXT NOT NULL,
        run_id TEXT NOT NULL,
        status TEXT NOT NULL,
        message TEXT,
        error_message TEXT,
        created_ms BIGINT NOT NULL,
        updated_ms BIGINT NOT NULL,
        holder TEXT,
        lease_until_ms BIGINT NOT NULL DEFAULT 0,
        PRIMARY KEY (owner, session_id, run_id)
    )""",
    RUN_EVENTS,
    SECRETS,
    """CREATE TABLE IF NOT EXISTS chunks (
        owner TEXT NOT NULL,
        request_id TEXT NOT NULL,
        chunk_index BIGINT NOT NULL,
        target TEXT NOT NULL,
        total_chunks BIGINT NOT NULL,
        sha256 TEXT NOT NULL,
        chunk TEXT NOT NULL,
        updated_ms BIGINT NOT NULL,
        PRIMARY KEY (owner, request_id, chunk_index)
    )""",
    """CREATE TABLE IF NOT EXISTS completed_requests (
        owner TEXT NOT NULL,
        request_id TEXT NOT NULL,
        target TEXT NOT NULL,
        total_chunks BIGINT NOT NULL,
        body TEXT NOT NULL,
        completed_index BIGINT NOT NULL,
        chunk_hashes TEXT NOT NULL,
        completed_ms BIGINT NOT NULL,
        PRIMARY KEY (owner, request_id)
    )""",
)

MIGRATIONS: Final[dict[int, tuple[str, ...]]] = {
    1: ("ALTER TABLE sessions ADD COLUMN cwd TEXT",),
    # runs get leases (a version-2 run still `running` has none: the first sweep interrupts it)
    2: (
        "ALTER TABLE runs ADD COLUMN holder TEXT",
        "ALTER TABLE runs ADD COLUMN lease_until_ms BIGINT NOT NULL DEFAULT 0",
        RUN_EVENTS,
        SECRETS,
    ),
}
"""version -> the statements that bring a database at that version to the next one (TABLES always
describes the newest: a new database never migrates)."""
INDEXES: Final = (RUNS_LIVE, CHUNKS_IDLE, EVENTS_AGE, RUNS_AGE)
"""Indexes on columns a migration may add: created after any upgrade, on every open."""
SET_VERSION: Final = "UPDATE schema_version SET version = ?"


def added_column(statement: str) -> tuple[str, str] | None:
    """`(table, column)` of an `ALTER TABLE t ADD COLUMN c ...` statement (skipped when the column is
    there: a table the upgrade's CREATE TABLE IF NOT EXISTS made new already has it), else None."""
    found = re.match(r"ALTER TABLE (\w+) ADD COLUMN (\w+)", statement)
    return (found.group(1), found.group(2)) if found else None


def upgrade(version: int) -> list[str]:
    """The statements that bring a database at `version` to SCHEMA_VERSION, in order."""
    return [statement for step in range(version, SCHEMA_VERSION) for statement in MIGRATIONS[step]]
