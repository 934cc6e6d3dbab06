"""Rows to dataclasses and back, for both backends (a SQLite tuple and an asyncpg record both unpack
as a sequence in the column order of `_sql`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeVar, cast

from rein.protocol import EMPTY_TREE_HASH
from rein.server.store._base import (
    Change,
    ChunkRow,
    CompletedRequest,
    EntryRow,
    RunRow,
    RunStatus,
    SessionRow,
    StoreError,
)
from rein.server.store._common import Plan, dump_hashes, load_hashes

T = TypeVar("T")
Row = Sequence[Any]
"""A database row: its column types are whatever the driver gives, checked by the dataclass use."""


def must(value: T | None) -> T:
    if value is None:
        raise StoreError("the database returned no row where one was just written")
    return value


def session_row(row: Row | None) -> SessionRow | None:
    if row is None:
        return None
    owner, sid, context, context_hash, leaf, revision, count, digest, created, updated, cwd = row
    return SessionRow(
        owner=owner, session_id=sid, static_context=context, static_context_hash=context_hash, leaf_id=leaf,
        revision=revision, entry_count=count, tree_hash=digest, created_ms=created, updated_ms=updated,
        cwd=cwd,
    )  # fmt: skip


def session_values(row: SessionRow) -> tuple[object, ...]:
    return (
        row.owner, row.session_id, row.static_context, row.static_context_hash, row.leaf_id,
        row.revision, row.entry_count, row.tree_hash, row.created_ms, row.updated_ms, row.cwd,
    )  # fmt: skip


def update_values(
    plan: Plan, owner: str, session_id: str, revision: int, change: Change
) -> tuple[object, ...]:
    # the context as the change gives it (None: the row's own, COALESCEd in SQL), so a write planned
    # from a stale read never puts back a context another writer changed without a revision bump
    return (
        change.static_context, change.static_context_hash, plan.leaf_id, revision + change.bump,
        plan.entry_count, plan.tree_hash, change.now_ms, owner, session_id,
    )  # fmt: skip


def entry_row(row: Row) -> EntryRow:
    seq, entry_id, text, digest = row
    return EntryRow(seq=seq, entry_id=entry_id, json=text, tree_hash=digest)


def append_values(owner: str, session_id: str, entry: EntryRow) -> tuple[object, ...]:
    return (owner, session_id, entry.seq, entry.entry_id, entry.json, entry.tree_hash)


Since = tuple[SessionRow | None, str | None, list[EntryRow]]


def since_rows(rows: Sequence[Row], count: int) -> Since:
    """`Store.session_since` from the rows of `SESSION_SINCE` (the session's columns, then an entry's:
    none, the one before `count` with no JSON, or a new one)."""
    if not rows:
        return None, None, []
    check = EMPTY_TREE_HASH if count == 0 else None
    entries: list[EntryRow] = []
    for row in rows:
        seq, entry_id, text, digest = tuple(row)[11:]
        if seq is None:
            continue
        if text is None:
            check = digest
        else:
            entries.append(EntryRow(seq=seq, entry_id=entry_id, json=text, tree_hash=digest))
    return session_row(tuple(rows[0])[:11]), check, entries


def run_row(row: Row) -> RunRow:
    owner, sid, run_id, status, message, error, created, updated, holder, until = row
    return RunRow(
        owner=owner, session_id=sid, run_id=run_id, status=cast(RunStatus, status), message=message,
        error_message=error, created_ms=created, updated_ms=updated, holder=holder, lease_until_ms=until,
    )  # fmt: skip


def run_values(run: RunRow) -> tuple[object, ...]:
    return (
        run.owner, run.session_id, run.run_id, run.status, run.message, run.error_message,
        run.created_ms, run.updated_ms, run.holder, run.lease_until_ms,
    )  # fmt: skip


def renew_values(run: RunRow) -> tuple[object, ...]:
    return (
        run.lease_until_ms, run.updated_ms, run.message, run.owner, run.session_id, run.run_id, run.holder,
    )  # fmt: skip


def finish_values(run: RunRow) -> tuple[object, ...]:
    return (
        run.status, run.message, run.error_message, run.updated_ms, run.owner, run.session_id, run.run_id,
        run.holder,
    )  # fmt: skip


def chunk_row(row: Row) -> ChunkRow:
    request_id, target, index, total, sha, chunk = row
    return ChunkRow(
        request_id=request_id, target=target, chunk_index=index, total_chunks=total, sha256=sha, chunk=chunk
    )


def chunk_values(owner: str, chunk: ChunkRow, now_ms: int) -> tuple[object, ...]:
    return (
        owner, chunk.request_id, chunk.chunk_index, chunk.target, chunk.total_chunks, chunk.sha256,
        chunk.chunk, now_ms,
    )  # fmt: skip


def completed_row(request_id: str, row: Row) -> CompletedRequest:
    target, total, body, index, hashes = row
    return CompletedRequest(
        request_id=request_id, target=target, total_chunks=total, body=body, completed_index=index,
        chunks=load_hashes(hashes),
    )  # fmt: skip


def completed_values(owner: str, done: CompletedRequest, now_ms: int) -> tuple[object, ...]:
    return (
        owner, done.request_id, done.target, done.total_chunks, done.body, done.completed_index,
        dump_hashes(done.chunks), now_ms,
    )  # fmt: skip
