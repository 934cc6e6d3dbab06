"""`TreeSync`: the fork's incremental tree sync, for one session.

It remembers what the server last said it holds (`Known`: tree hash, entry count, leaf, static-context
hash) and sends only what that state lacks:

- same tree hash, other leaf: `/tree/switch`, nothing resent;
- the server's (count, hash) is a prefix of the local entries (checked with `prefix_hashes`): append
  only the tail (`/tree/append`);
- an empty server session: upload the whole tree (`/tree/sync`, chunked by the transport if large);
- a non-empty server tree that is not a prefix, or a divergence code from append/switch: fetch the
  server's history and raise `Reconciled(snapshot)`; the caller replaces its local tree and stops what
  it was doing. The client never overwrites a non-empty server tree.

A session the server lost (`SESSION_NOT_FOUND`, `SESSION_NO_STATIC_CONTEXT`) is initialized again and
the sync retried once. A failure leaves `known` as the server last confirmed it, so a retry appends
the tail again rather than re-uploading the tree.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Final
from urllib.parse import quote

from rein.protocol import (
    DIVERGENCE_CODES,
    EMPTY_TREE_HASH,
    LOST_CODES,
    prefix_hashes,
    static_context_hash,
)
from rein.session.remote._errors import ServerError
from rein.session.remote._transport import ServerTransport

WireEntry = dict[str, object]
NO_MESSAGES: Final = 2**31 - 1
"""`from` of a history request: the client reads the tree, never the server's message list."""


@dataclass(frozen=True, slots=True)
class Snapshot:
    """The server's tree: wire entries in the server's append order, and its leaf."""

    entries: list[WireEntry]
    leaf_id: str | None


class Reconciled(Exception):
    """The server's history differs from the local tree; `snapshot` is the server's, to adopt."""

    def __init__(self, snapshot: Snapshot) -> None:
        super().__init__("the server's history differs from the local tree")
        self.snapshot = snapshot


@dataclass(slots=True)
class Known:
    """What the server last confirmed. None: not known (never told, or reset)."""

    static_hash: str | None = None
    tree_hash: str | None = None
    entry_count: int | None = None
    leaf_id: str | None = None
    leaf_known: bool = False
    synced_ids: set[str] = field(default_factory=set)


class TreeSync:
    def __init__(self, transport: ServerTransport, session_id: str, *, cwd: str | None = None) -> None:
        self.transport = transport
        self.session_id = session_id
        self.cwd = cwd
        """The session's directory, sent with `/api/session/init` (the server lists sessions by it)."""
        self.known = Known()
        self.static_context: Mapping[str, object] | None = None
        """The static context of the latest sync, for a re-init the server's state calls for."""

    def reset(self) -> None:
        """Forget the server's state (it lost the session): the next call initializes again."""
        self.known = Known()

    async def ensure_init(self, static_context: Mapping[str, object] | None) -> None:
        """`/api/session/init` the first time, `/api/session/update` when the static context changed."""
        digest = _static_hash(static_context)
        if self.known.static_hash is not None and self.known.static_hash == digest:
            return
        endpoint = "/api/session/init" if self.known.static_hash is None else "/api/session/update"
        body: dict[str, object] = {"sessionId": self.session_id}
        if static_context is not None:
            body["staticContext"] = dict(static_context)
        if self.cwd and endpoint == "/api/session/init":
            body["cwd"] = self.cwd
        summary = await self.transport.post_json(endpoint, body, phase="session_init")
        self.known.static_hash = digest
        self.adopt(summary)

    def adopt(self, summary: Mapping[str, object]) -> None:
        """Take the state summary a mutation answered as the server-known state."""
        tree, count = summary.get("treeHash"), summary.get("entryCount")
        if isinstance(tree, str) and isinstance(count, int):
            self.known.tree_hash, self.known.entry_count = tree, count
        if "leafId" in summary:
            leaf = summary.get("leafId")
            self.known.leaf_id = leaf if isinstance(leaf, str) else None
            self.known.leaf_known = True

    def mark(self, entries: Sequence[WireEntry], leaf_id: str | None) -> None:
        """Record that the server holds exactly `entries` with leaf `leaf_id`."""
        self.known.tree_hash = prefix_hashes(entries)[-1]
        self.known.entry_count = len(entries)
        self.known.leaf_id, self.known.leaf_known = leaf_id, True
        self.known.synced_ids = {str(entry["id"]) for entry in entries}

    async def sync(
        self,
        entries: Sequence[WireEntry],
        leaf_id: str | None,
        static_context: Mapping[str, object] | None,
        *,
        hashes: list[str] | None = None,
    ) -> None:
        """Bring the server to `entries` (append order) and `leaf_id` (`hashes`: their prefix hashes,
        if the caller caches them). Raises `Reconciled` or `ServerError` (phase `session_init`,
        `tree_sync` or `history_reconcile`)."""
        hashes = hashes if hashes is not None else prefix_hashes(entries)
        if static_context is not None:
            self.static_context = static_context
        await self.ensure_init(static_context)
        try:
            await self._sync(entries, hashes, leaf_id, static_context)
        except ServerError as error:
            if error.code not in LOST_CODES:
                raise
            self.reset()
            await self.ensure_init(static_context)
            await self._sync(entries, hashes, leaf_id, static_context)

    async def _sync(
        self,
        entries: Sequence[WireEntry],
        hashes: list[str],
        leaf_id: str | None,
        static_context: Mapping[str, object] | None,
    ) -> None:
        known = self.known
        if known.tree_hash == hashes[-1] and known.entry_count == len(entries):
            if not known.leaf_known or known.leaf_id != leaf_id:
                switch: dict[str, object] = {"sessionId": self.session_id, "leafId": leaf_id}
                await self._mutate("/api/session/tree/switch", switch, entries, hashes)
            else:
                await self._verify(entries, hashes, leaf_id, static_context)
            known.synced_ids = {str(entry["id"]) for entry in entries}
            return
        count = known.entry_count
        body: dict[str, object]
        if count == 0 and known.tree_hash == EMPTY_TREE_HASH:
            await self._full(entries, leaf_id, static_context)
            return
        if count is not None and count <= len(entries) and hashes[count] == known.tree_hash:
            body = {
                "sessionId": self.session_id,
                "entries": list(entries[count:]),
                "leafId": leaf_id,
            }
            if static_context is not None:
                body["staticContext"] = dict(static_context)
            await self._mutate("/api/session/tree/append", body, entries, hashes)
            known.synced_ids = {str(entry["id"]) for entry in entries}
            return
        await self.recover(entries, hashes, leaf_id, static_context)

    async def _mutate(
        self, endpoint: str, body: dict[str, object], entries: Sequence[WireEntry], hashes: list[str]
    ) -> None:
        try:
            summary = await self.transport.post_json(endpoint, body, phase="tree_sync")
        except ServerError as error:
            if error.code not in DIVERGENCE_CODES:
                raise
            leaf = body.get("leafId")
            await self.recover(entries, hashes, leaf if isinstance(leaf, str) else None, None)
            return
        self.adopt(summary)
        if self.known.tree_hash != hashes[-1]:  # the server holds entries this client never saw
            await self.recover(entries, hashes, None, None)

    async def _full(
        self, entries: Sequence[WireEntry], leaf_id: str | None, static_context: Mapping[str, object] | None
    ) -> None:
        body: dict[str, object] = {"sessionId": self.session_id, "entries": list(entries), "leafId": leaf_id}
        if static_context is not None:
            body["staticContext"] = dict(static_context)
        self.adopt(await self.transport.post_json("/api/session/tree/sync", body, phase="tree_sync"))
        self.known.synced_ids = {str(entry["id"]) for entry in entries}

    async def _verify(
        self,
        entries: Sequence[WireEntry],
        hashes: list[str],
        leaf_id: str | None,
        static_context: Mapping[str, object] | None,
    ) -> None:
        """Nothing to send: ask whether the server changed behind this client's back (another
        client's append or compaction), with a history request that returns only what is new."""
        snapshot = await self.history(entries, hashes[-1])
        if snapshot is None:
            await self.recover(entries, hashes, leaf_id, static_context)
        elif self.known.tree_hash != hashes[-1] or snapshot.leaf_id != leaf_id:
            if self.known.tree_hash == hashes[-1]:  # only the leaf moved: this client's leaf wins
                switch: dict[str, object] = {"sessionId": self.session_id, "leafId": leaf_id}
                await self._mutate("/api/session/tree/switch", switch, entries, hashes)
                return
            raise Reconciled(snapshot)

    async def recover(
        self,
        entries: Sequence[WireEntry],
        hashes: list[str],
        leaf_id: str | None,
        static_context: Mapping[str, object] | None,
    ) -> None:
        """The server's tree is not the local one's prefix: adopt the server's if it has entries
        (raise `Reconciled`), else upload the local tree whole."""
        snapshot = await self.history(entries, hashes[-1])
        if snapshot is not None and snapshot.entries:
            raise Reconciled(snapshot)
        # The server lost the session, or holds an empty one (made by a write it refused): start it
        # again with its static context, then upload the tree whole.
        static_context = static_context if static_context is not None else self.static_context
        self.reset()
        await self.ensure_init(static_context)
        await self._full(entries, leaf_id, static_context)

    async def history(self, entries: Sequence[WireEntry], base_hash: str) -> Snapshot | None:
        """The server's tree (a patch on `entries` when they are its prefix); None if it has no such
        session. The known state becomes the snapshot's."""
        path = (
            f"/api/session/{quote(self.session_id, safe='')}/history"
            f"?entriesFrom={len(entries)}&baseTreeHash={base_hash}&from={NO_MESSAGES}"
        )
        try:
            body = await self.transport.get_json(path, phase="history_reconcile")
        except ServerError as error:
            if error.status == 404:
                return None
            raise
        snapshot = snapshot_from(body, entries)
        self.adopt(body)
        self.mark(snapshot.entries, snapshot.leaf_id)
        return snapshot


def snapshot_from(body: Mapping[str, object], base: Sequence[WireEntry]) -> Snapshot:
    """The tree a history or compaction answer carries: `treePatch` applied to `base`, or `entries`."""
    patch = body.get("treePatch")
    if isinstance(patch, Mapping):
        start, tail = patch.get("entriesFrom"), patch.get("entries")
        if isinstance(start, int) and isinstance(tail, list) and 0 <= start <= len(base):
            leaf = patch.get("leafId", body.get("leafId"))
            return Snapshot([*base[:start], *_entries(tail)], leaf if isinstance(leaf, str) else None)
    full = body.get("entries")
    if not isinstance(full, list):
        raise ServerError("history_reconcile", "the answer carried neither `entries` nor `treePatch`")
    leaf = body.get("leafId")
    return Snapshot(_entries(full), leaf if isinstance(leaf, str) else None)


def _entries(raw: list[object]) -> list[WireEntry]:
    out: list[WireEntry] = []
    for index, item in enumerate(raw):
        if not isinstance(item, dict) or not isinstance(item.get("id"), str):
            raise ServerError("history_reconcile", f"entries[{index}] is not an entry object with an id")
        out.append(item)
    return out


def _static_hash(static_context: Mapping[str, object] | None) -> str:
    if static_context is None:
        return static_context_hash(None, None)
    prompt, tools = static_context.get("systemPrompt"), static_context.get("tools")
    tool_list = [t for t in tools if isinstance(t, Mapping)] if isinstance(tools, list) else None
    return static_context_hash(prompt if isinstance(prompt, str) else None, tool_list)
