"""The session service: the protocol's semantics (the fork's idempotent appends, leaf switches, full
syncs, legacy message appends) over a `Store`, with a per-process cache of each session.

The cache holds a session's parsed entries, their id index and prefix hashes. Before using it the
service reads the session row (one cheap query): same revision, use it; entries only appended by
another process (the cached tree hash is still the prefix hash at the cached count), load just the
new ones; anything else (a full `tree/sync` elsewhere), reload it all.

Every write takes the session's writer lease (`store.acquire`) and commits with the revision it read
and that lease; if another writer got there first (RevisionConflict) or took the lease over
(WriterFenced), it reloads and tries again, a bounded number of times, so servers sharing one
PostgreSQL converge. Writes to one session within this process are serialized by a lock.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from rein.server._errors import ProtocolError
from rein.server._view import BranchCounts, Entry, SessionView
from rein.server.store import (
    Change,
    EntryRow,
    RevisionConflict,
    SessionRow,
    Store,
    WriterFenced,
)
from rein.session.remote._protocol import EMPTY_TREE_HASH, js_json, next_tree_hash, static_context_hash

ATTEMPTS = 5
Key = tuple[str, str]


@dataclass(frozen=True, slots=True)
class _Plan:
    """What a write wants, given the session as it is: its new entries, leaf and static context."""

    leaf_id: str | None
    """The leaf after the write (None: before the first entry)."""
    append: Sequence[Entry] = ()
    static_context: Mapping[str, object] | None = None
    replace: bool = False


Planner = Callable[[SessionView], _Plan | None]
"""Decides a write from the current view (None: nothing to do); raises ProtocolError to refuse it."""


def _now_ms() -> int:
    return int(time.time() * 1000)


def _iso(ms: int) -> str:
    return datetime.fromtimestamp(ms / 1000, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _context_hash(context: Mapping[str, object] | None) -> str:
    if context is None:
        return ""
    prompt, tools = context.get("systemPrompt"), context.get("tools")
    return static_context_hash(
        prompt if isinstance(prompt, str) else None, tools if isinstance(tools, list) else None
    )


def _leaf_error(leaf_id: str) -> ProtocolError:
    return ProtocolError(
        400, "LEAF_ID_NOT_FOUND", f"leafId {leaf_id} does not exist in session tree", {"leafId": leaf_id}
    )


class SessionService:
    """The protocol over a store. Every method is a coroutine, takes the owner first, and raises
    `ProtocolError` for a refused request; `StoreError` escapes for a backend failure."""

    def __init__(self, store: Store, holder: str) -> None:
        self.store = store
        self.holder = holder
        self._cache: dict[Key, SessionView] = {}
        self._locks: dict[Key, asyncio.Lock] = {}

    def _lock(self, key: Key) -> asyncio.Lock:
        return self._locks.setdefault(key, asyncio.Lock())

    async def _load(self, owner: str, sid: str) -> SessionView | None:
        key = (owner, sid)
        row = await self.store.session(owner, sid)
        cached = self._cache.get(key)
        if row is None:
            self._cache.pop(key, None)
            return None
        if cached is not None and cached.row.revision == row.revision:
            if cached.row.cwd != row.cwd:  # set by another server: metadata keeps the revision
                cached = self._cache[key] = dataclasses.replace(cached, row=row)
            return cached
        entries: list[Entry] = []
        hashes = [EMPTY_TREE_HASH]
        start = 0
        counts = BranchCounts()
        if cached is not None and cached.row.entry_count <= row.entry_count:
            count = cached.row.entry_count
            if await self.store.prefix_hash(owner, sid, count) == cached.row.tree_hash:
                entries, hashes, start = list(cached.entries), list(cached.hashes), count
                counts = cached.counts
        for stored in await self.store.entries(owner, sid, start):
            if stored.seq >= row.entry_count:
                break  # committed by another server after `row` was read: the next refresh takes it
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
            index={str(entry["id"]): i for i, entry in enumerate(entries)},
            counts=counts,
        )
        self._cache[key] = view
        return view

    async def _load_or_create(self, owner: str, sid: str) -> SessionView:
        view = await self._load(owner, sid)
        if view is not None:
            return view
        now = _now_ms()
        await self.store.create(
            SessionRow(
                owner=owner,
                session_id=sid,
                static_context=None,
                static_context_hash="",
                leaf_id=None,
                revision=0,
                entry_count=0,
                tree_hash=EMPTY_TREE_HASH,
                created_ms=now,
                updated_ms=now,
            )
        )
        view = await self._load(owner, sid)
        assert view is not None, "a created session must load"
        return view

    async def _write(self, owner: str, sid: str, planner: Planner) -> SessionView:
        async with self._lock((owner, sid)):
            for attempt in range(ATTEMPTS):
                view = await self._load_or_create(owner, sid)
                plan = planner(view)
                if plan is None:
                    return view
                change, rows = self._change(view, plan)
                lease = await self.store.acquire(sid, self.holder)
                try:
                    row = await self.store.commit(owner, sid, change, revision=view.row.revision, lease=lease)
                except (RevisionConflict, WriterFenced):
                    if attempt == ATTEMPTS - 1:
                        raise
                    continue
                return self._remember(view, plan, rows, row)
        raise AssertionError("unreachable")

    def _change(self, view: SessionView, plan: _Plan) -> tuple[Change, list[EntryRow]]:
        start, tree = (0, EMPTY_TREE_HASH) if plan.replace else (view.row.entry_count, view.row.tree_hash)
        rows: list[EntryRow] = []
        for offset, entry in enumerate(plan.append):
            tree = next_tree_hash(tree, entry)
            rows.append(
                EntryRow(seq=start + offset, entry_id=str(entry["id"]), json=js_json(entry), tree_hash=tree)
            )
        context = plan.static_context
        change = Change(
            append=rows,
            replace=plan.replace,
            leaf_id=plan.leaf_id,
            static_context=None if context is None else js_json(context),
            static_context_hash=None if context is None else _context_hash(context),
            tree_hash=tree,
            entry_count=start + len(rows),
            now_ms=_now_ms(),
        )
        return change, rows

    def _remember(self, view: SessionView, plan: _Plan, rows: list[EntryRow], row: SessionRow) -> SessionView:
        if plan.replace:
            entries, hashes, index = list(plan.append), [EMPTY_TREE_HASH], {}
        else:  # copied, not rebuilt: views of older revisions stay as they were
            entries, hashes, index = [*view.entries, *plan.append], list(view.hashes), dict(view.index)
        hashes += [stored.tree_hash for stored in rows]
        index.update((stored.entry_id, stored.seq) for stored in rows)
        context = dict(plan.static_context) if plan.static_context is not None else view.static_context
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
        return (await self._write(owner, sid, _context_plan(static_context))).row

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

        def plan(view: SessionView) -> _Plan | None:
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
                raise _leaf_error(leaf_id)
            context = _changed_context(view, static_context)
            if not fresh and view.row.leaf_id == leaf_id and context is None:
                return None
            return _Plan(append=list(fresh.values()), leaf_id=leaf_id, static_context=context)

        return await self._write(owner, sid, plan)

    async def switch(self, owner: str, sid: str, leaf_id: str | None) -> SessionView:
        """Move the leaf to a known entry (or None); the tree hash stays, the revision grows."""

        def plan(view: SessionView) -> _Plan:
            if leaf_id is not None and leaf_id not in view.index:
                raise _leaf_error(leaf_id)
            return _Plan(leaf_id=leaf_id)

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
            raise _leaf_error(leaf_id)

        def plan(view: SessionView) -> _Plan:
            context = _changed_context(view, static_context)
            return _Plan(append=list(entries), leaf_id=leaf_id, static_context=context, replace=True)

        return await self._write(owner, sid, plan)

    async def append_messages(
        self, owner: str, sid: str, messages: Sequence[Entry], static_context: dict[str, object] | None = None
    ) -> SessionView:
        """The fork's legacy `/api/session/append`: each message becomes a message entry on the leaf."""

        def plan(view: SessionView) -> _Plan:
            wrapped = _wrap(messages, view.row.leaf_id)
            leaf = str(wrapped[-1]["id"]) if wrapped else view.row.leaf_id
            return _Plan(append=wrapped, leaf_id=leaf, static_context=_changed_context(view, static_context))

        return await self._write(owner, sid, plan)

    async def replace_messages(
        self, owner: str, sid: str, messages: Sequence[Entry], static_context: dict[str, object] | None = None
    ) -> SessionView:
        """The fork's legacy `/api/session/sync`: the tree becomes one chain of these messages."""
        wrapped = _wrap(messages, None)
        leaf = str(wrapped[-1]["id"]) if wrapped else None

        def plan(view: SessionView) -> _Plan:
            context = _changed_context(view, static_context)
            return _Plan(append=wrapped, leaf_id=leaf, static_context=context, replace=True)

        return await self._write(owner, sid, plan)

    async def append_entry(self, owner: str, sid: str, entry: dict[str, object]) -> SessionRow:
        """Append one server-made entry (a compaction) under the current leaf and move the leaf to it.
        `entry["parentId"]` is set in place (keeping its key position), so the caller's dict is what
        was stored and hashed."""

        def plan(view: SessionView) -> _Plan:
            entry["parentId"] = view.row.leaf_id
            return _Plan(append=[entry], leaf_id=str(entry["id"]))

        return (await self._write(owner, sid, plan)).row


def _context_plan(static_context: dict[str, object] | None) -> Planner:
    def plan(view: SessionView) -> _Plan | None:
        context = _changed_context(view, static_context)
        return None if context is None else _Plan(leaf_id=view.row.leaf_id, static_context=context)

    return plan


def _changed_context(view: SessionView, context: dict[str, object] | None) -> dict[str, object] | None:
    """`context` if it would change the session's static context, else None (nothing to write)."""
    if context is None or (
        view.static_context is not None and js_json(view.static_context) == js_json(context)
    ):
        return None
    return context


def _wrap(messages: Sequence[Entry], parent: str | None) -> list[Entry]:
    wrapped: list[Entry] = []
    for message in messages:
        stamp = message.get("timestamp")
        ms = int(stamp) if isinstance(stamp, int | float) and not isinstance(stamp, bool) else _now_ms()
        entry: Entry = {
            "type": "message",
            "id": str(uuid.uuid4()),
            "parentId": parent,
            "timestamp": _iso(ms),
            "message": message,
        }
        wrapped.append(entry)
        parent = str(entry["id"])
    return wrapped
