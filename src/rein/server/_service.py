"""The session service: the protocol's semantics (the fork's idempotent appends, leaf switches, full
syncs, legacy message appends) over a `Store`, with a per-process cache of each session.

The cache holds a session's parsed entries, their id index and prefix hashes. Before using it the
service reads the session row, with the entries past the cached ones when the revision moved, in one
query (`store.session_since`): same revision, use it; entries only appended by another process (the
prefix hash at the cached count is still the cached tree hash), add the new ones; anything else (a
full `tree/sync` elsewhere), reload it all.

Every write takes the session's writer lease and commits the change to the revision it read, in one
transaction (`store.commit_as`); a session that does not exist yet is created in that transaction
with its first change, so a failed write leaves nothing half-made. If another writer got there first
(RevisionConflict, or WriterFenced from a store that fences), it reloads and tries again after a
jittered, growing pause, until a deadline (10 s by default): servers sharing one PostgreSQL converge,
and a client is refused (409) only when the deadline passes. Writes to one session within this
process are serialized by a lock.
"""

from __future__ import annotations

import asyncio
import dataclasses
import itertools
import json
import random
import time
from collections.abc import Sequence

from rein.protocol import EMPTY_TREE_HASH, chain_hash, js_json
from rein.server._errors import ProtocolError
from rein.server._metrics import Metrics
from rein.server._plan import (
    Plan,
    Planner,
    changed_context,
    context_hash,
    context_plan,
    leaf_error,
    new_view,
    now_ms,
    wrap,
)
from rein.server._view import BranchCounts, Entry, SessionView
from rein.server.store import (
    Change,
    EntryRow,
    RevisionConflict,
    SessionRow,
    Store,
    WriterFenced,
)

DEADLINE = 10.0
"""Seconds a contended write is retried before the client is refused."""
FIRST_PAUSE = 0.004
MAX_PAUSE = 0.15
Key = tuple[str, str]


class SessionService:
    """The protocol over a store. Every method is a coroutine, takes the owner first, and raises
    `ProtocolError` for a refused request; `StoreError` escapes for a backend failure."""

    def __init__(
        self, store: Store, holder: str, *, deadline: float = DEADLINE, metrics: Metrics | None = None
    ) -> None:
        self.store = store
        self.holder = holder
        self.deadline = deadline
        self.metrics = metrics
        self._cache: dict[Key, SessionView] = {}
        self._locks: dict[Key, asyncio.Lock] = {}

    def _lock(self, key: Key) -> asyncio.Lock:
        return self._locks.setdefault(key, asyncio.Lock())

    async def _load(self, owner: str, sid: str) -> SessionView | None:
        key = (owner, sid)
        cached = self._cache.get(key)
        count, revision = (cached.row.entry_count, cached.row.revision) if cached is not None else (0, -1)
        row, prefix, fetched = await self.store.session_since(owner, sid, count, revision)
        if row is None:
            self._cache.pop(key, None)
            return None
        if cached is not None and cached.row.created_ms != row.created_ms:
            cached = None  # deleted and made again elsewhere: nothing cached is of this session
            fetched = await self.store.entries(owner, sid, 0)
        if cached is not None and cached.row.revision == row.revision:
            if cached.row.static_context != row.static_context:  # set elsewhere: it keeps the revision
                context = None if row.static_context is None else json.loads(row.static_context)
                cached = self._cache[key] = dataclasses.replace(cached, row=row, static_context=context)
            elif cached.row.cwd != row.cwd:  # set by another server: metadata keeps the revision
                cached = self._cache[key] = dataclasses.replace(cached, row=row)
            return cached
        entries: list[Entry] = []
        hashes = [EMPTY_TREE_HASH]
        index: dict[str, int] = {}
        counts = BranchCounts()
        if cached is not None and prefix == cached.row.tree_hash:  # only appended to since: extend
            entries, hashes, index = list(cached.entries), list(cached.hashes), dict(cached.index)
            counts = cached.counts
        elif cached is not None and count > 0:  # replaced (a full sync elsewhere): read it all
            fetched = await self.store.entries(owner, sid, 0)
        for stored in fetched:
            if stored.seq >= row.entry_count:
                break  # committed by another server after `row` was read: the next refresh takes it
            index[stored.entry_id] = len(entries)
            entries.append(json.loads(stored.json))
            hashes.append(stored.tree_hash)
        context = (
            cached.static_context if cached and cached.row.static_context == row.static_context else None
        )
        if context is None and row.static_context is not None:
            context = json.loads(row.static_context)
        view = SessionView(
            row=row,
            entries=entries,
            static_context=context,
            hashes=hashes,
            index=index,
            counts=counts,
        )
        self._cache[key] = view
        return view

    async def _write(self, owner: str, sid: str, planner: Planner) -> SessionView:
        async with self._lock((owner, sid)):
            # counted from here: waiting for this process's own writes of the session is not contention
            deadline = time.monotonic() + self.deadline
            for attempt in itertools.count():
                view = await self._load(owner, sid)
                new = view is None
                if view is None:
                    view = new_view(owner, sid)
                plan = planner(view)
                try:
                    if plan is None and new:  # nothing to write but the session itself: one insert
                        await self.store.create(view.row)
                        continue  # load what is stored (this row, or a racing creator's)
                    if plan is None:
                        return view
                    change, rows = self._change(view, plan)
                    row = await self.store.commit_as(
                        owner, sid, change, base=view.row, holder=self.holder, create=new
                    )
                    return self._remember(view, plan, rows, row)
                except (RevisionConflict, WriterFenced):
                    left = deadline - time.monotonic()
                    if left <= 0:
                        if self.metrics is not None:
                            self.metrics.fenced_refusals.inc()
                        raise
                    if self.metrics is not None:
                        self.metrics.fenced_retries.inc()
                    # full jitter: contenders spread out instead of colliding again in step
                    pause = random.uniform(0, min(MAX_PAUSE, FIRST_PAUSE * 2**attempt))
                    await asyncio.sleep(min(pause, left))
        raise AssertionError("unreachable")

    def _change(self, view: SessionView, plan: Plan) -> tuple[Change, list[EntryRow]]:
        start, tree = (0, EMPTY_TREE_HASH) if plan.replace else (view.row.entry_count, view.row.tree_hash)
        rows: list[EntryRow] = []
        for offset, entry in enumerate(plan.append):
            text = js_json(entry)  # once: the stored text, and what the tree hash is over
            tree = chain_hash(tree, text)
            rows.append(EntryRow(seq=start + offset, entry_id=str(entry["id"]), json=text, tree_hash=tree))
        context = plan.static_context
        change = Change(
            append=rows,
            replace=plan.replace,
            leaf_id=plan.leaf_id,
            static_context=None if context is None else js_json(context),
            static_context_hash=None if context is None else context_hash(context),
            tree_hash=tree,
            entry_count=start + len(rows),
            now_ms=now_ms(),
            bump=plan.tree,
        )
        return change, rows

    def _remember(self, view: SessionView, plan: Plan, rows: list[EntryRow], row: SessionRow) -> SessionView:
        if plan.replace:
            entries, hashes, index = list(plan.append), [EMPTY_TREE_HASH], {}
        else:  # copied, not rebuilt: views of older revisions stay as they were
            entries, hashes, index = [*view.entries, *plan.append], list(view.hashes), dict(view.index)
        hashes += [stored.tree_hash for stored in rows]
        index.update((stored.entry_id, stored.seq) for stored in rows)
        context = dict(plan.static_context) if plan.static_context is not None else view.static_context
        if plan.static_context is None and row.static_context != view.row.static_context:
            context = None if row.static_context is None else json.loads(row.static_context)  # set elsewhere
        new = SessionView(
            row=row,
            entries=entries,
            static_context=context,
            hashes=hashes,
            index=index,
            counts=BranchCounts() if plan.replace else view.counts,
        )
        self._cache[(row.owner, row.session_id)] = new
        return new

    # reads

    async def get(self, owner: str, sid: str) -> SessionView | None:
        async with self._lock((owner, sid)):
            return await self._load(owner, sid)

    async def sessions(self, owner: str) -> list[SessionView]:
        """The owner's sessions, most recently updated first (each loaded: O(total entries) the first
        time, then cached)."""
        views = [await self.get(owner, row.session_id) for row in await self.store.sessions(owner)]
        return [view for view in views if view is not None]

    async def delete(self, owner: str, sid: str) -> bool:
        async with self._lock((owner, sid)):
            self._cache.pop((owner, sid), None)
            return await self.store.delete(owner, sid)

    # writes

    async def set_cwd(self, owner: str, sid: str, cwd: str) -> None:
        """Record the session's directory: the store and the cached row, no entries reloaded, no
        revision bump. A no-op when unchanged or when the session is missing."""
        async with self._lock((owner, sid)):
            view = await self._load(owner, sid)
            if view is None or view.row.cwd == cwd:
                return
            await self.store.set_cwd(owner, sid, cwd)
            self._cache[(owner, sid)] = dataclasses.replace(view, row=dataclasses.replace(view.row, cwd=cwd))

    async def init(self, owner: str, sid: str, static_context: dict[str, object] | None) -> SessionRow:
        """Create the session if missing; set its static context if one is given and differs."""
        return (await self._write(owner, sid, context_plan(static_context))).row

    async def append(
        self,
        owner: str,
        sid: str,
        entries: Sequence[Entry],
        leaf_id: str | None,
        static_context: dict[str, object] | None = None,
    ) -> SessionView:
        """Append new entries and move the leaf. Identical duplicates are skipped; a divergent one is
        ENTRY_ALREADY_EXISTS, an unknown parent PARENT_ENTRY_NOT_FOUND, an unknown leaf
        LEAF_ID_NOT_FOUND (all 400). Nothing new and the same leaf: no write, same revision."""

        def plan(view: SessionView) -> Plan | None:
            fresh: dict[str, Entry] = {}
            for entry in entries:
                entry_id = str(entry["id"])
                known = fresh.get(entry_id)
                if known is None and entry_id in view.index:
                    known = view.entries[view.index[entry_id]]
                if known is not None:
                    if known != entry:
                        raise ProtocolError(
                            400,
                            "ENTRY_ALREADY_EXISTS",
                            f"entry {entry_id} already exists",
                            {"entryId": entry_id},
                        )
                    continue
                parent = entry["parentId"]
                if isinstance(parent, str) and parent not in view.index and parent not in fresh:
                    raise ProtocolError(
                        400,
                        "PARENT_ENTRY_NOT_FOUND",
                        f"parent entry {parent} does not exist",
                        {"parentId": parent},
                    )
                fresh[entry_id] = entry
            if leaf_id is not None and leaf_id not in view.index and leaf_id not in fresh:
                raise leaf_error(leaf_id)
            context = changed_context(view, static_context)
            if not fresh and view.row.leaf_id == leaf_id and context is None:
                return None
            return Plan(append=list(fresh.values()), leaf_id=leaf_id, static_context=context)

        return await self._write(owner, sid, plan)

    async def switch(self, owner: str, sid: str, leaf_id: str | None) -> SessionView:
        """Move the leaf to a known entry (or None); the tree hash stays, the revision grows."""

        def plan(view: SessionView) -> Plan:
            if leaf_id is not None and leaf_id not in view.index:
                raise leaf_error(leaf_id)
            return Plan(leaf_id=leaf_id)

        return await self._write(owner, sid, plan)

    async def replace_tree(
        self,
        owner: str,
        sid: str,
        entries: Sequence[Entry],
        leaf_id: str | None,
        static_context: dict[str, object] | None = None,
    ) -> SessionView:
        """The fork's full `tree/sync`: the session's tree becomes `entries` (ids must be unique)."""
        ids: set[str] = set()
        for entry in entries:
            entry_id = str(entry["id"])
            if entry_id in ids:
                raise ProtocolError(
                    400, "ENTRY_ALREADY_EXISTS", f"entry {entry_id} appears twice", {"entryId": entry_id}
                )
            ids.add(entry_id)
        if leaf_id is not None and leaf_id not in ids:
            raise leaf_error(leaf_id)

        def plan(view: SessionView) -> Plan:
            context = changed_context(view, static_context)
            return Plan(append=list(entries), leaf_id=leaf_id, static_context=context, replace=True)

        return await self._write(owner, sid, plan)

    async def append_messages(
        self, owner: str, sid: str, messages: Sequence[Entry], static_context: dict[str, object] | None = None
    ) -> SessionView:
        """The fork's legacy `/api/session/append`: each message becomes a message entry on the leaf."""

        def plan(view: SessionView) -> Plan:
            wrapped = wrap(messages, view.row.leaf_id)
            leaf = str(wrapped[-1]["id"]) if wrapped else view.row.leaf_id
            return Plan(append=wrapped, leaf_id=leaf, static_context=changed_context(view, static_context))

        return await self._write(owner, sid, plan)

    async def replace_messages(
        self, owner: str, sid: str, messages: Sequence[Entry], static_context: dict[str, object] | None = None
    ) -> SessionView:
        """The fork's legacy `/api/session/sync`: the tree becomes one chain of these messages."""
        wrapped = wrap(messages, None)
        leaf = str(wrapped[-1]["id"]) if wrapped else None

        def plan(view: SessionView) -> Plan:
            context = changed_context(view, static_context)
            return Plan(append=wrapped, leaf_id=leaf, static_context=context, replace=True)

        return await self._write(owner, sid, plan)

    async def append_entry(self, owner: str, sid: str, entry: dict[str, object]) -> SessionRow:
        """Append one server-made entry (a compaction) under the current leaf and move the leaf to it.
        `entry["parentId"]` is set in place (keeping its key position), so the caller's dict is what
        was stored and hashed."""

        def plan(view: SessionView) -> Plan:
            entry["parentId"] = view.row.leaf_id
            return Plan(append=[entry], leaf_id=str(entry["id"]))

        return (await self._write(owner, sid, plan)).row
