"""The storage interface of the session server: what a backend (SQLite, PostgreSQL) keeps and how it
commits. Backends know rows, not the protocol: the session service (`rein.server._service`) decides
what to write; a backend writes it atomically and durably (fsync'd or committed) before it returns.

Every session is owned by one principal (`owner`: the token's user; "" on an open loopback server) and
named by the client's `session_id`; two owners never see each other's sessions.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Final, Literal, Protocol

RunStatus = Literal["running", "completed", "failed"]


class StoreError(Exception):
    """A backend failure (disk, connection). The message names the database, never a password."""


class RevisionConflict(StoreError):
    """`commit` saw another revision than the caller read: another writer changed the session."""


class WriterFenced(StoreError):
    """`commit` carried a fencing token older than the session's lease: another server took it over."""


@dataclass(frozen=True, slots=True, kw_only=True)
class SessionRow:
    """A session's header and cached summary (no entries)."""

    owner: str
    session_id: str
    static_context: str | None
    """The static context as the client sent it (JSON text), or None before the first init with one."""
    static_context_hash: str
    leaf_id: str | None
    revision: int
    entry_count: int
    tree_hash: str
    """The rolling hash of all `entry_count` entries (cached; never recomputed on load)."""
    created_ms: int
    updated_ms: int
    cwd: str | None = None
    """The session's project directory as its client last named it (metadata: setting it changes
    neither the revision nor the hashes), None while unknown."""


@dataclass(frozen=True, slots=True, kw_only=True)
class EntryRow:
    """One tree entry: its position, its JSON text exactly as received, and the tree hash of the prefix
    ending with it (so the hash of any prefix is a lookup)."""

    seq: int
    """0-based position in the session's append order."""
    entry_id: str
    json: str
    tree_hash: str


class _Keep(enum.Enum):
    LEAF = "keep the leaf"


KEEP_LEAF: Final = _Keep.LEAF
"""`Change.leaf_id` for a change that leaves the leaf where it is (a static context update)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Change:
    """One mutation, committed as one transaction."""

    append: Sequence[EntryRow] = ()
    """Entries to add after the current ones (their `seq` continue the session's)."""
    replace: bool = False
    """Drop every entry first (the fork's full `tree/sync`): `append` then holds the whole tree."""
    leaf_id: str | Literal[_Keep.LEAF] | None = KEEP_LEAF
    """The leaf after the change, None for before the first entry; KEEP_LEAF keeps the current one
    (after a `replace`, which drops it, no leaf)."""
    static_context: str | None = None
    """New static context JSON text; None keeps the current one."""
    static_context_hash: str | None = None
    tree_hash: str = ""
    """The tree hash after the change (the last appended entry's, or the current one's)."""
    entry_count: int = 0
    """The entry count after the change."""
    now_ms: int = 0


@dataclass(frozen=True, slots=True, kw_only=True)
class Lease:
    session_id: str
    holder: str
    fence: int
    """Grows by one every time the lease changes hands; a commit must carry the current one."""


@dataclass(frozen=True, slots=True, kw_only=True)
class RunRow:
    owner: str
    session_id: str
    run_id: str
    status: RunStatus
    message: str | None = None
    """The final assistant message (JSON text) of a completed run."""
    error_message: str | None = None
    created_ms: int = 0
    updated_ms: int = 0


@dataclass(frozen=True, slots=True, kw_only=True)
class ChunkRow:
    request_id: str
    target: str
    chunk_index: int
    total_chunks: int
    sha256: str
    chunk: str


@dataclass(frozen=True, slots=True, kw_only=True)
class CompletedRequest:
    """The tombstone of an assembled chunked request: a retried chunk gets the original body back."""

    request_id: str
    target: str
    total_chunks: int
    body: str
    completed_index: int
    chunks: dict[int, str] = field(default_factory=dict)
    """index -> sha256 of each chunk, to tell an identical retry from a divergent one."""


class Store(Protocol):
    """A durable session store. Every method is a coroutine; every write is durable before it returns."""

    async def close(self) -> None: ...

    # sessions
    async def session(self, owner: str, session_id: str) -> SessionRow | None: ...
    async def create(self, row: SessionRow) -> SessionRow:
        """Insert a new session; if it already exists (a race with another server), return that one."""
        ...

    async def entries(self, owner: str, session_id: str, start: int = 0) -> list[EntryRow]:
        """Entries with `seq >= start`, in order."""
        ...

    async def prefix_hash(self, owner: str, session_id: str, count: int) -> str | None:
        """The tree hash of the first `count` entries (EMPTY_TREE_HASH for 0), None past the end."""
        ...

    async def commit(
        self, owner: str, session_id: str, change: Change, *, revision: int, lease: Lease
    ) -> SessionRow:
        """Apply `change` if the session is still at `revision` and `lease.fence` is current, in one
        transaction; the new revision is `revision + 1`. Raises RevisionConflict or WriterFenced."""
        ...

    async def sessions(self, owner: str) -> list[SessionRow]:
        """The owner's sessions, most recently updated first."""
        ...

    async def delete(self, owner: str, session_id: str) -> bool: ...

    async def set_cwd(self, owner: str, session_id: str, cwd: str) -> None:
        """Record the session's directory without a revision bump (it is metadata, not the tree: the
        protocol's revision and hashes stay, so the fork's clients see nothing new). A missing session
        is a no-op."""
        ...

    # writer leases
    async def acquire(self, session_id: str, holder: str) -> Lease:
        """Take the session's writer lease for `holder` (kept if already held by it; otherwise taken
        over with the fence raised by one) and return it."""
        ...

    # the run journal
    async def put_run(self, run: RunRow) -> None:
        """Insert or replace the run (same owner, session and run id)."""
        ...

    async def run(self, owner: str, session_id: str, run_id: str) -> RunRow | None: ...
    async def expire_runs(self, before_ms: int) -> int: ...

    # chunked requests
    async def put_chunk(self, owner: str, chunk: ChunkRow, now_ms: int) -> ChunkRow | None:
        """Store `chunk` unless its index is already there; return the stored one if it was."""
        ...

    async def chunks(self, owner: str, request_id: str) -> list[ChunkRow]: ...
    async def pending_bytes(self) -> int: ...
    async def complete_request(self, owner: str, done: CompletedRequest, now_ms: int) -> None:
        """Drop the request's pending chunks and keep its tombstone, in one transaction."""
        ...

    async def completed_request(self, owner: str, request_id: str) -> CompletedRequest | None: ...
    async def expire_chunks(
        self, *, pending_before_ms: int, completed_before_ms: int, max_pending_bytes: int
    ) -> None:
        """Drop pending requests idle since before `pending_before_ms` (then the oldest ones while the
        pending bytes exceed `max_pending_bytes`) and tombstones completed before `completed_before_ms`."""
        ...
