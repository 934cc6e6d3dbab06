"""The statements both backends run, written once with `?` placeholders (SQLite's); PostgreSQL gets
them through `numbered` (`$1`, `$2`, ...). Both dialects accept the upserts and RETURNING used here."""

from __future__ import annotations

import itertools
import re
from typing import Final

SESSION_COLUMNS: Final = (
    "owner, session_id, static_context, static_context_hash, leaf_id, revision, entry_count, "
    "tree_hash, created_ms, updated_ms, cwd"
)
RUN_COLUMNS: Final = "owner, session_id, run_id, status, message, error_message, created_ms, updated_ms"
CHUNK_COLUMNS: Final = "request_id, target, chunk_index, total_chunks, sha256, chunk"

SESSION: Final = f"SELECT {SESSION_COLUMNS} FROM sessions WHERE owner = ? AND session_id = ?"
SESSIONS: Final = (
    f"SELECT {SESSION_COLUMNS} FROM sessions WHERE owner = ? ORDER BY updated_ms DESC, session_id"
)
CREATE: Final = (
    f"INSERT INTO sessions ({SESSION_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
    "ON CONFLICT (owner, session_id) DO NOTHING"
)
ENTRIES: Final = (
    "SELECT seq, entry_id, json, tree_hash FROM entries WHERE owner = ? AND session_id = ? AND seq >= ? "
    "ORDER BY seq"
)
PREFIX_HASH: Final = "SELECT tree_hash FROM entries WHERE owner = ? AND session_id = ? AND seq = ?"
LEASE: Final = "SELECT holder, fence FROM leases WHERE session_id = ?"
DROP_ENTRIES: Final = "DELETE FROM entries WHERE owner = ? AND session_id = ?"
APPEND: Final = (
    "INSERT INTO entries (owner, session_id, seq, entry_id, json, tree_hash) VALUES (?, ?, ?, ?, ?, ?)"
)
UPDATE_SESSION: Final = (
    "UPDATE sessions SET static_context = ?, static_context_hash = ?, leaf_id = ?, revision = ?, "
    "entry_count = ?, tree_hash = ?, updated_ms = ? WHERE owner = ? AND session_id = ? "
    f"RETURNING {SESSION_COLUMNS}"
)
# no revision or updated_ms change: the directory is metadata, not the tree
SET_CWD: Final = "UPDATE sessions SET cwd = ? WHERE owner = ? AND session_id = ?"
DROP_RUNS: Final = "DELETE FROM runs WHERE owner = ? AND session_id = ?"
DROP_SESSION: Final = "DELETE FROM sessions WHERE owner = ? AND session_id = ? RETURNING 1"
ACQUIRE: Final = (
    "INSERT INTO leases (session_id, holder, fence) VALUES (?, ?, 1) "
    "ON CONFLICT (session_id) DO UPDATE SET holder = excluded.holder, fence = CASE "
    "WHEN leases.holder = excluded.holder THEN leases.fence ELSE leases.fence + 1 END "
    "RETURNING holder, fence"
)
PUT_RUN: Final = (
    f"INSERT INTO runs ({RUN_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?) "
    "ON CONFLICT (owner, session_id, run_id) DO UPDATE SET status = excluded.status, "
    "message = excluded.message, error_message = excluded.error_message, "
    "created_ms = excluded.created_ms, updated_ms = excluded.updated_ms"
)
RUN: Final = f"SELECT {RUN_COLUMNS} FROM runs WHERE owner = ? AND session_id = ? AND run_id = ?"
EXPIRE_RUNS: Final = "DELETE FROM runs WHERE updated_ms < ? RETURNING 1"
PUT_CHUNK: Final = (
    "INSERT INTO chunks (owner, request_id, chunk_index, target, total_chunks, sha256, chunk, updated_ms) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (owner, request_id, chunk_index) DO NOTHING RETURNING 1"
)
CHUNK: Final = f"SELECT {CHUNK_COLUMNS} FROM chunks WHERE owner = ? AND request_id = ? AND chunk_index = ?"
CHUNKS: Final = f"SELECT {CHUNK_COLUMNS} FROM chunks WHERE owner = ? AND request_id = ? ORDER BY chunk_index"
DROP_REQUEST: Final = "DELETE FROM chunks WHERE owner = ? AND request_id = ?"
COMPLETE: Final = (
    "INSERT INTO completed_requests (owner, request_id, target, total_chunks, body, completed_index, "
    "chunk_hashes, completed_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?) "
    "ON CONFLICT (owner, request_id) DO UPDATE SET target = excluded.target, "
    "total_chunks = excluded.total_chunks, body = excluded.body, completed_index = excluded.completed_index, "
    "chunk_hashes = excluded.chunk_hashes, completed_ms = excluded.completed_ms"
)
COMPLETED: Final = (
    "SELECT target, total_chunks, body, completed_index, chunk_hashes FROM completed_requests "
    "WHERE owner = ? AND request_id = ?"
)
EXPIRE_IDLE: Final = (
    "DELETE FROM chunks WHERE (owner, request_id) IN (SELECT owner, request_id FROM chunks "
    "GROUP BY owner, request_id HAVING max(updated_ms) < ?)"
)
EXPIRE_COMPLETED: Final = "DELETE FROM completed_requests WHERE completed_ms < ?"
# chunk text is base64 (ASCII), so characters are bytes; SQLite before 3.43 has no octet_length
PENDING_BYTES: Final = "SELECT coalesce(sum(length(chunk)), 0) FROM chunks"
PENDING_REQUESTS: Final = (
    "SELECT owner, request_id, sum(length(chunk)) FROM chunks GROUP BY owner, request_id "
    "ORDER BY max(updated_ms), owner, request_id"
)


def numbered(sql: str) -> str:
    """`sql` with its `?` placeholders as PostgreSQL's `$1`, `$2`, ..."""
    counter = itertools.count(1)
    return re.sub(r"\?", lambda _: f"${next(counter)}", sql)
