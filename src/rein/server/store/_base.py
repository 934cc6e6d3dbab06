"""The storage interface of the session server: what a backend (SQLite, PostgreSQL) keeps and how it
commits. Backends know rows, not the protocol: the session service (`rein.server._service`) decides
what to write; a backend writes it atomically and durably (fsync'd or committed) before it returns.

Every session is owned by one principal (`owner`: the token's user; "" on an open loopback server) and
named by the client's `session_id`; two owners never see each other's sessions.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Final, Literal, Protocol

RunStatus = Literal["running", "completed", "failed", "interrupted"]
"""`interrupted`: the process running it died or stopped (its lease lapsed, or it handed the run
over at shutdown); the run's `message` is what was streamed so far."""


Notify = Callable[[str, str, int], None]
"""`(owner, session_id, seq)`: a session's event log grew to `seq`."""


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
    bump: bool = True
    """Whether the revision grows: False for a write that leaves the tree as it is (a static context),
    as the fork's revision counts tree writes only (0 after `init`)."""


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
    holder: str | None = None
    """Who runs it: a process's holder name and the attempt (`holder#attempt`), unique per start."""
    lease_until_ms: int = 0
    """A running run whose lease ends before now belongs to a process that died."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ChunkRow:
    request_id: str
    target: str
    chunk_index: int
    total_chunks: int
    sha256: str
    chunk: str


@dataclass(frozen=True, slots=True, kw_only=True)
class ChunkInfo:
    """A stored chunk without its text: what checking one more chunk of the request needs."""

    chunk_index: int
    target: str
    total_chunks: int
    sha256: str


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

    async def session_since(
        self, owner: str, session_id: str, count: int, revision: int
    ) -> tuple[SessionRow | None, str | None, list[EntryRow]]:
        """What a cache of the session's first `count` entries at `revision` needs, read at once (one
        snapshot, one round trip): the session row (None: no such session), and unless the session
        is still at `revision`, the tree hash of its first `count` entries (None when it has fewer:
        the cached prefix is intact when the hash is the cached one) and its entries from `count` on."""
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
        """Take the session's writer lease for `holder` (as `acquire`) and apply `change` to the session
        as `base` read it (as `commit` at `base.revision`), in one transaction: the lease cannot change
        hands between the two, so only a revision that moved fails it (RevisionConflict). With
        `create`, `base` is a new session's row (revision 0), inserted in that same transaction: the
        session is stored with its first change or not at all; one that exists already (another
        writer created it first) is a RevisionConflict."""
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
    async def expire_runs(self, before_ms: int) -> int:
        """Drop finished runs last updated before `before_ms` (a running one is never dropped)."""
        ...

    async def claim_run(self, run: RunRow, now_ms: int) -> bool:
        """Start `run` (status running, its holder and lease) unless a run with its id is running
        with a lease that ends at or after `now_ms`; False when one is."""
        ...

    async def renew_run(self, run: RunRow) -> bool:
        """Extend the lease of `run` (and keep its `message`, the reply so far, when not None) if it
        is still running under `run.holder`; False when it is not (interrupted, or started again)."""
        ...

    async def finish_run(self, run: RunRow) -> bool:
        """Record the run's end (status, message, error) if `run.holder` still holds it."""
        ...

    async def interrupt_lapsed(self, now_ms: int, error: str) -> list[RunRow]:
        """Mark every running run whose lease ended before `now_ms` interrupted; return them."""
        ...

    async def live_runs(self, owner: str, now_ms: int) -> list[RunRow]:
        """The owner's running runs whose lease has not ended."""
        ...

    async def secret(self, name: str, candidate: str) -> str:
        """The server-wide secret `name`: `candidate` if this is the first asking, else the one kept
        (every process on one database gets the same)."""
        ...

    # run events (the web page's live view, on every process)
    async def put_events(self, owner: str, session_id: str, events: Sequence[str], now_ms: int) -> int:
        """Append `events` (JSON text) to the session's event log, numbered on from its newest, and
        tell every listening process; returns the number of the last one."""
        ...

    async def events_after(
        self, owner: str, session_id: str, after: int, limit: int
    ) -> list[tuple[int, str]]:
        """Up to `limit` events numbered above `after`, oldest first."""
        ...

    async def last_event(self, owner: str, session_id: str) -> int:
        """The number of the session's newest event (0 before any)."""
        ...

    async def expire_events(self, before_ms: int) -> None: ...
    async def listen(self, notify: Notify) -> bool:
        """Call `notify(owner, session_id, seq)` for every event another process appends from now on
        (re-listening after a lost connection; idempotent). True when it (re)started listening now:
        what was appended before is read from the log."""
        ...

    # chunked requests
    async def put_chunk(self, owner: str, chunk: ChunkRow, now_ms: int) -> ChunkRow | None:
        """Store `chunk` unless its index is already there; return the stored one if it was."""
        ...

    async def chunks(self, owner: str, request_id: str) -> list[ChunkRow]:
        """The request's chunks with their text, by index (read once: to assemble the request)."""
        ...

    async def chunk_infos(self, owner: str, request_id: str) -> list[ChunkInfo]:
        """The request's stored chunks by index, without reading their text."""
        ...

    async def pending_bytes(self, owner: str | None = None) -> int:
        """The bytes of pending chunks: `owner`'s, or everyone's; from sizes the database keeps, not by
        reading the chunks."""
        ...

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

    # health
    async def ping(self) -> None:
        """A trivial query (`SELECT 1`): returns once the database answers, raises StoreError if it
        cannot (`GET /ready`; the caller bounds the wait)."""
        ...
