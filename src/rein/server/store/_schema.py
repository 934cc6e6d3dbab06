"""The tables both backends keep, in SQL that SQLite and PostgreSQL both accept (SQLite reads BIGINT
as INTEGER). Entry JSON is TEXT, never jsonb: tree hashes are over the bytes as the client sent them.

Leases are keyed by `session_id` alone (not owner + session): two owners with the same session id
share one writer lease, which only makes the lock coarser. Lease rows are never deleted, so a fence
never goes back to a value a stale writer still holds.
"""

from __future__ import annotations

from typing import Final

SCHEMA_VERSION: Final = 2

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
        PRIMARY KEY (owner, session_id, run_id)
    )""",
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
}
"""version -> the statements that bring a database at that version to the next one (TABLES always
describes the newest: a new database never migrates)."""
SET_VERSION: Final = "UPDATE schema_version SET version = ?"


def upgrade(version: int) -> list[str]:
    """The statements that bring a database at `version` to SCHEMA_VERSION, in order."""
    return [statement for step in range(version, SCHEMA_VERSION) for statement in MIGRATIONS[step]]
