"""`RemoteSession`: a session whose tree lives on a `rein serve` server.

It is an in-memory `Session` (no local file: the server is the durable, authoritative copy, and a
resumed session is loaded from the server's history, so a local cache would only be a second truth to
reconcile), plus `flush`, which sends the server what it lacks, and `compact`, the server's
authoritative compaction. Entries travel in pi's dialect (`encode_entry(entry, PI_KEYS)`); entries
that came from the server keep their exact wire form, so both sides hash the same bytes.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Mapping
from urllib.parse import quote

import httpx2

from rein.protocol import EMPTY_TREE_HASH, next_tree_hash
from rein.session._codec import decode_or_unknown, encode_entry
from rein.session._entries import MessageEntry, SessionHeader
from rein.session._pi import PI_KEYS
from rein.session._session import Session, timestamp
from rein.session._tree import SessionTree
from rein.session.remote._errors import ServerError, SessionReconciled, SyncFailed
from rein.session.remote._sync import Reconciled, Snapshot, TreeSync, WireEntry, snapshot_from
from rein.session.remote._transport import ServerTransport, decode_json


class RemoteSession(Session):
    """A session on the server `transport` talks to; `id` is the session id the server knows.

    `static_context` (`{systemPrompt, tools}`) is what the next flush initializes the server session
    with; the provider sets it from each request. The lead's `AgentSession` calls `flush` after each
    turn; `ServerProvider` calls it before each request.
    """

    def __init__(self, *, header: SessionHeader, transport: ServerTransport) -> None:
        super().__init__(header=header, tree=SessionTree(), path=None, keys=PI_KEYS)
        self.transport = transport
        self.tracker = TreeSync(transport, header.id, cwd=header.cwd or None)
        self.static_context: dict[str, object] | None = None
        self._wire: dict[str, WireEntry] = {}
        self._hashes: list[str] = [EMPTY_TREE_HASH]

    def wire_entries(self) -> list[WireEntry]:
        """Every entry in the server's dialect, in append order."""
        wire = self._wire
        out: list[WireEntry] = []
        for entry in self.tree:
            raw = wire.get(entry.id)
            if raw is None:
                raw = wire[entry.id] = encode_entry(entry, PI_KEYS)
            out.append(raw)
        return out

    def prefix_hashes(self, entries: list[WireEntry]) -> list[str]:
        """`prefix_hashes(entries)`, extended from the cache: the tree only grows between replaces."""
        hashes = self._hashes
        for raw in entries[len(hashes) - 1 :]:
            hashes.append(next_tree_hash(hashes[-1], raw))
        return hashes

    async def flush(self) -> None:
        """Send the server what it lacks (phase `tree_sync`).

        Raises `SessionReconciled` when the server's history differed: the local tree has been
        replaced by the server's, and the caller stops what it was doing. Raises `SyncFailed` for any
        other failure; if the newest entry was a reply the server does not have, it is first detached
        from the active branch (the leaf moves to its parent; the reply stays in the tree), and a later
        flush uploads it by the known-prefix rule, without calling the model again.
        """
        entries = self.wire_entries()
        try:
            await self.tracker.sync(
                entries, self.leaf_id, self.static_context, hashes=self.prefix_hashes(entries)
            )
        except Reconciled as reconciled:
            self.replace(reconciled.snapshot)
            raise SessionReconciled from None
        except ServerError as error:
            raise SyncFailed(error, self._detach_reply()) from error

    def _detach_reply(self) -> str | None:
        leaf = self.tree.get(self.leaf_id) if self.leaf_id is not None else None
        if (
            isinstance(leaf, MessageEntry)
            and leaf.message.get("role") == "assistant"
            and leaf.id not in self.tracker.known.synced_ids
        ):
            self.branch(leaf.parent_id)
            return leaf.id
        return None

    def replace(self, snapshot: Snapshot) -> None:
        """Make the local tree the server's `snapshot` (its wire entries kept as they are)."""
        tree = SessionTree()
        wire: dict[str, WireEntry] = {}
        for raw in snapshot.entries:
            tree.load(decode_or_unknown(raw, PI_KEYS))
            wire[str(raw["id"])] = raw
        tree.move_leaf(snapshot.leaf_id if snapshot.leaf_id in tree else None)
        self._tree, self._wire, self._hashes = tree, wire, [EMPTY_TREE_HASH]

    async def compact(
        self, *, instructions: str | None = None, settings: Mapping[str, object] | None = None
    ) -> dict[str, object]:
        """Compact the active branch on the server (authoritative): the local tree becomes the
        server's answer (a patch on the flushed tree, or the whole tree). Returns the server's answer
        (`compaction`, `compactionEntry`, ...). Raises `SessionReconciled`, `SyncFailed`, `ServerError`
        (phase `compact`; a 400 "Nothing to compact" among them)."""
        await self.flush()
        entries = self.wire_entries()
        body: dict[str, object] = {
            "sessionId": self.id,
            "baseTreeHash": self.tracker.known.tree_hash,
            "reinSummary": True,  # the summary text keeps rein's operational state for rein's context
        }
        if instructions:
            body["customInstructions"] = instructions
        if settings is not None:
            body["settings"] = dict(settings)
        answer = await self.transport.post_json("/api/session/compact", body, phase="compact")
        snapshot = snapshot_from(answer, entries)
        self.replace(snapshot)
        self.tracker.adopt(answer)
        self.tracker.mark(snapshot.entries, snapshot.leaf_id)
        return answer

    async def load_history(self) -> bool:
        """Replace the local tree with the server's; False if the server has no such session."""
        snapshot = await self.tracker.history([], EMPTY_TREE_HASH)
        if snapshot is None:
            return False
        self.replace(snapshot)
        return True

    async def aclose(self) -> None:
        await self.transport.aclose()


def connect(
    url: str, session_id: str | None, cwd: str | os.PathLike[str], token: str | None = None
) -> RemoteSession:
    """`open_remote` without an event loop (the CLI builds its session before its loop runs, or
    inside a loop it cannot await in): the history is read with a short synchronous request."""
    transport = ServerTransport(url, token=token)
    session = _new(transport, session_id, cwd)
    if session_id is None:
        return session
    path = _history_path(session_id)
    try:
        with httpx2.Client(base_url=transport.url, headers=transport.headers, timeout=60.0) as client:
            response = client.get(path)
    except httpx2.TransportError as error:
        raise ServerError("history_reconcile", f"cannot reach {transport.url}: {error}") from None
    if response.status_code == 404:
        raise _missing(transport, session_id)
    body = decode_json(response, "history_reconcile")
    snapshot = snapshot_from(body, [])
    session.replace(snapshot)
    session.tracker.adopt(body)
    session.tracker.mark(snapshot.entries, snapshot.leaf_id)
    return session


def latest_remote_session(url: str, cwd: str | os.PathLike[str], token: str | None = None) -> str | None:
    """The id of the session of `cwd` the server updated last (`rein --server URL -c`), or None. The
    server lists each session's directory (`cwd`, sent when a client starts the session)."""
    transport = ServerTransport(url, token=token)
    try:
        with httpx2.Client(base_url=transport.url, headers=transport.headers, timeout=60.0) as client:
            response = client.get("/api/sessions")
    except httpx2.TransportError as error:
        raise ServerError("history_reconcile", f"cannot reach {transport.url}: {error}") from None
    listed = decode_json(response, "history_reconcile").get("sessions")
    wanted = os.fspath(cwd)
    mine = [
        row
        for row in (listed if isinstance(listed, list) else [])
        if isinstance(row, dict) and row.get("cwd") == wanted and isinstance(row.get("sessionId"), str)
    ]
    if not mine:
        return None
    newest = max(mine, key=_updated)
    return str(newest["sessionId"])


def _updated(row: Mapping[str, object]) -> int:
    updated = row.get("updatedAt")
    return updated if isinstance(updated, int) else 0


def _new(transport: ServerTransport, session_id: str | None, cwd: str | os.PathLike[str]) -> RemoteSession:
    header = SessionHeader(id=session_id or str(uuid.uuid4()), timestamp=timestamp(), cwd=os.fspath(cwd))
    return RemoteSession(header=header, transport=transport)


def _history_path(session_id: str) -> str:
    return f"/api/session/{quote(session_id, safe='')}/history?entriesFrom=0&baseTreeHash={EMPTY_TREE_HASH}"


def _missing(transport: ServerTransport, session_id: str) -> ServerError:
    where = f"{transport.url}/api/session/{quote(session_id, safe='')}"
    return ServerError("history_reconcile", f"no session {session_id!r} on the server ({where})", status=404)


async def open_remote(
    url: str,
    session_id: str | None,
    cwd: str | os.PathLike[str],
    token: str | None = None,
    *,
    transport: ServerTransport | None = None,
) -> RemoteSession:
    """A new session on the server at `url`, or (with `session_id`) the existing one, loaded from
    the server's history. Raises `ServerError` (phase `history_reconcile`) when the server has no
    session `session_id` or cannot be reached."""
    transport = transport or ServerTransport(url, token=token)
    session = _new(transport, session_id, cwd)
    if session_id is not None and not await session.load_history():
        await transport.aclose()
        raise _missing(transport, session_id)
    return session
