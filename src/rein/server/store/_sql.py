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
RUN_COLUMNS: Final = (
    "owner, session_id, run_id, status, message, error_message, created_ms, updated_ms, holder, "
    "lease_until_ms"
)
CHUNK_COLUMNS: Final = "request_id, target, chunk_index, total_chunks, sha256, chunk"

SESSION: Final = f"SELECT {SESSION_COLUMNS} FROM sessions WHERE owner = ? AND session_id = ?"
SESSIONS: Final = (
    f"SELECT {SESSION_COLUMNS} FROM sessions WHERE owner = ? ORDER BY updated_ms DESC, session_id"
)
CREATE: Final = (
    f"INSERT INTO sessions ({SESSION_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
    "ON CONFLICT (owner, session_id) DO NOTHING"
)
CREATE_NEW: Final = CREATE + " RETURNING 1"
ENTRIES: Final = (
    "SELECT seq, entry_id, json, tree_hash FROM entries WHERE owner = ? AND session_id = ? AND seq >= ? "
    "ORDER BY seq"
)
PREFIX_HASH: Final = "SELECT tree_hash FROM entries WHERE owner = ? AND session_id = ? AND seq = ?"
# the session row and, unless it is still at the caller's revision, the entries from its count on
# (with the one before, hash only, to check the caller's prefix): one statement, one snapshot
SESSION_SINCE: Final = (
    "SELECT " + ", ".join(f"s.{name.strip()}" for name in SESSION_COLUMNS.split(",")) + ", e.seq, "
    "e.entry_id, CASE WHEN e.seq >= ? THEN e.json END, e.tree_hash FROM sessions s LEFT JOIN entries e "
    "ON e.owner = s.owner AND e.session_id = s.session_id AND e.seq >= ? AND s.revision <> ? "
    "WHERE s.owner = ? AND s.session_id = ? ORDER BY e.seq"
)
LEASE: Final = "SELECT holder, fence FROM leases WHERE session_id = ?"
DROP_ENTRIES: Final = "DELETE FROM entries WHERE owner = ? AND session_id = ?"
APPEND: Final = (
    "INSERT INTO entries (owner, session_id, seq, entry_id, json, tree_hash) VALUES (?, ?, ?, ?, ?, ?)"
)
UPDATE_SESSION: Final = (
    "UPDATE sessions SET static_context = COALESCE(?, static_context), "
    "static_context_hash = COALESCE(?, static_context_hash), leaf_id = ?, revision = ?, "
    "entry_count = ?, tree_hash = ?, updated_ms = ? WHERE owner = ? AND session_id = ? "
    f"RETURNING {SESSION_COLUMNS}"
)
# a compare-and-set on the revision the writer read, and on the creation time: a session deleted and
# made again counts its revisions from 0 again
UPDATE_AT: Final = (
    "UPDATE sessions SET static_context = COALESCE(?, static_context), "
    "static_context_hash = COALESCE(?, static_context_hash), leaf_id = ?, revision = ?, "
    "entry_count = ?, tree_hash = ?, updated_ms = ? WHERE owner = ? AND session_id = ? AND revision = ? "
    f"AND created_ms = ? RETURNING {SESSION_COLUMNS}"
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
# ACQUIRE that writes nothing when the holder has the lease already (PostgreSQL still locks the row)
TAKE_LEASE: Final = (
    "INSERT INTO leases (session_id, holder, fence) VALUES (?, ?, 1) "
    "ON CONFLICT (session_id) DO UPDATE SET holder = excluded.holder, fence = leases.fence + 1 "
    "WHERE leases.holder <> excluded.holder"
)
_UPSERT_RUN: Final = (
    f"INSERT INTO runs ({RUN_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) "
    "ON CONFLICT (owner, session_id, run_id) DO UPDATE SET status = excluded.status, "
    "message = excluded.message, error_message = excluded.error_message, "
    "created_ms = excluded.created_ms, updated_ms = excluded.updated_ms, holder = excluded.holder, "
    "lease_until_ms = excluded.lease_until_ms"
)
PUT_RUN: Final = _UPSERT_RUN
# a run whose lease is live is someone's: only a finished or lapsed one is taken over
CLAIM_RUN: Final = f"{_UPSERT_RUN} WHERE runs.status <> 'running' OR runs.lease_until_ms < ? RETURNING 1"
RUN: Final = f"SELECT {RUN_COLUMNS} FROM runs WHERE owner = ? AND session_id = ? AND run_id = ?"
RENEW_RUN: Final = (
    "UPDATE runs SET lease_until_ms = ?, updated_ms = ?, message = coalesce(?, message) "
    "WHERE owner = ? AND session_id = ? AND run_id = ? AND holder = ? AND status = 'running' RETURNING 1"
)
FINISH_RUN: Final = (
    "UPDATE runs SET status = ?, message = ?, error_message = ?, updated_ms = ?, lease_until_ms = 0 "
    "WHERE owner = ? AND session_id = ? AND run_id = ? AND holder = ? RETURNING 1"
)
INTERRUPT_LAPSED: Final = (
    "UPDATE runs SET status = 'interrupted', error_message = ?, updated_ms = ? "
    f"WHERE status = 'running' AND lease_until_ms < ? RETURNING {RUN_COLUMNS}"
)
LIVE_RUNS: Final = (
    f"SELECT {RUN_COLUMNS} FROM runs WHERE owner = ? AND status = 'running' AND lease_until_ms >= ?"
)
EXPIRE_RUNS: Final = "DELETE FROM runs WHERE updated_ms < ? AND status <> 'running' RETURNING 1"
PUT_SECRET: Final = "INSERT INTO secrets (name, value) VALUES (?, ?) ON CONFLICT (name) DO NOTHING"
SECRET: Final = "SELECT value FROM secrets WHERE name = ?"
LAST_EVENT: Final = "SELECT coalesce(max(seq), 0) FROM run_events WHERE owner = ? AND session_id = ?"
PUT_EVENT: Final = "INSERT INTO run_events (owner, session_id, seq, event, created_ms) VALUES (?, ?, ?, ?, ?)"
EVENTS_AFTER: Final = (
    "SELECT seq, event FROM run_events WHERE owner = ? AND session_id = ? AND seq > ? ORDER BY seq LIMIT ?"
)
EXPIRE_EVENTS: Final = "DELETE FROM run_events WHERE created_ms < ?"
DROP_EVENTS: Final = "DELETE FROM run_events WHERE owner = ? AND session_id = ?"
PUT_CHUNK: Final = (
    "INSERT INTO chunks (owner, request_id, chunk_index, target, total_chunks, sha256, chunk, updated_ms) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (owner, request_id, chunk_index) DO NOTHING RETURNING 1"
)
CHUNK: Final = f"SELECT {CHUNK_COLUMNS} FROM chunks WHERE owner = ? AND request_id = ? AND chunk_index = ?"
CHUNKS: Final = f"SELECT {CHUNK_COLUMNS} FROM chunks WHERE owner = ? AND request_id = ? ORDER BY chunk_index"
CHUNK_INFOS: Final = (  # every column before `chunk`: SQLite reads no overflow page, PostgreSQL no TOAST
    "SELECT chunk_index, target, total_chunks, sha256 FROM chunks WHERE owner = ? AND request_id = ? "
    "ORDER BY chunk_index"
)
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
# `{size}`: a chunk's size in bytes without reading it. SQLite keeps chunks as BLOBs, whose length()
# is in the record header (a TEXT's is counted by reading it; octet_length only came in 3.43);
# PostgreSQL's octet_length() reads the TOAST header, its length() would decompress the text.
SQLITE_CHUNK_SIZE: Final = "length(chunk)"
POSTGRES_CHUNK_SIZE: Final = "octet_length(chunk)"
PENDING_BYTES: Final = "SELECT coalesce(sum({size}), 0) FROM chunks"
OWNER_PENDING_BYTES: Final = "SELECT coalesce(sum({size}), 0) FROM chunks WHERE owner = ?"
PENDING_REQUESTS: Final = (
    "SELECT owner, request_id, sum({size}) FROM chunks GROUP BY owner, request_id "
    "ORDER BY max(updated_ms), owner, request_id"
)


def numbered(sql: str) -> str:
    """`sql` with its `?` placeholders as PostgreSQL's `$1`, `$2`, ..."""
    counter = itertools.count(1)
    return re.sub(r"\?", lambda _: f"${next(counter)}", sql)
