"""What both backends decide the same way: the summary a commit leaves, the requests the byte bound
drops, tombstone hashes as JSON, and URLs with their password masked."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from urllib.parse import urlsplit, urlunsplit

from rein.protocol import EMPTY_TREE_HASH
from rein.server.store._base import KEEP_LEAF, Change, Lease, RevisionConflict, SessionRow, WriterFenced


@dataclass(frozen=True, slots=True, kw_only=True)
class Plan:
    """The session row's new fields after a change."""

    start: int
    """The `seq` of the first appended entry."""
    entry_count: int
    tree_hash: str
    leaf_id: str | None
    static_context: str | None
    static_context_hash: str


def plan_commit(current: SessionRow, change: Change) -> Plan:
    """The summary after `change`, from the rows themselves: the count and tree hash follow the
    appended entries (or stay), so the cached summary always matches the stored rows. A change whose
    own `tree_hash`/`entry_count` disagree, or whose `seq` do not continue the session, is a caller
    bug: ValueError."""
    start = 0 if change.replace else current.entry_count
    for offset, entry in enumerate(change.append):
        if entry.seq != start + offset:
            raise ValueError(f"entry {entry.entry_id!r} has seq {entry.seq}, expected {start + offset}")
    count = start + len(change.append)
    if change.append:
        digest = change.append[-1].tree_hash
    else:
        digest = EMPTY_TREE_HASH if change.replace else current.tree_hash
    if change.tree_hash and (change.tree_hash != digest or change.entry_count != count):
        raise ValueError(
            f"change says {change.entry_count} entries with hash {change.tree_hash[:12]}, "
            f"its rows give {count} with hash {digest[:12]}"
        )
    if not change.tree_hash and change.entry_count not in (0, count):
        raise ValueError(f"change says {change.entry_count} entries, its rows give {count}")
    leaf = change.leaf_id
    if leaf is KEEP_LEAF:
        leaf = None if change.replace else current.leaf_id
    return Plan(
        start=start,
        entry_count=count,
        tree_hash=digest,
        leaf_id=leaf,
        static_context=current.static_context if change.static_context is None else change.static_context,
        static_context_hash=change.static_context_hash or current.static_context_hash,
    )


def check_lease(held: Sequence[object] | None, lease: Lease) -> None:
    """Refuse a commit unless `lease` is the session's current one (`held` is its `(holder, fence)` row,
    None if the session never had a lease)."""
    if held is None or (held[0], held[1]) != (lease.holder, lease.fence):
        now = "no lease" if held is None else f"lease {held[1]} held by {held[0]!r}"
        raise WriterFenced(
            f"session {lease.session_id!r}: lease {lease.fence} of {lease.holder!r} is stale ({now})"
        )


def check_revision(current: SessionRow | None, session_id: str, revision: int) -> SessionRow:
    if current is None or current.revision != revision:
        seen = "gone" if current is None else f"at revision {current.revision}"
        raise RevisionConflict(f"session {session_id!r} is {seen}, not at revision {revision}")
    return current


def over_budget(requests: Sequence[tuple[str, str, int]], max_bytes: int) -> list[tuple[str, str]]:
    """The `(owner, request_id)` to drop, oldest first, until the rest fit in `max_bytes`; `requests`
    are `(owner, request_id, bytes)` ordered oldest first."""
    total = sum(size for _, _, size in requests)
    dropped: list[tuple[str, str]] = []
    for owner, request_id, size in requests:
        if total <= max_bytes:
            break
        dropped.append((owner, request_id))
        total -= size
    return dropped


def dump_hashes(chunks: dict[int, str]) -> str:
    return json.dumps({str(index): digest for index, digest in sorted(chunks.items())})


def load_hashes(text: str) -> dict[int, str]:
    loaded: dict[str, str] = json.loads(text)
    return {int(index): digest for index, digest in loaded.items()}


def mask_url(url: str) -> str:
    """`url` with any password replaced by `***`, for messages and logs."""
    try:
        parts = urlsplit(url)
        password = parts.password
    except ValueError:
        return url
    if password is None:
        return url
    host = parts.netloc.rpartition("@")[2]
    netloc = f"{parts.username or ''}:***@{host}"
    return urlunsplit((parts.scheme, netloc, parts.path, parts.query, parts.fragment))
