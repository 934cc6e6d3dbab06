"""A read-only view of one session as the service caches it: its entries (parsed, in append order),
their prefix hashes, the active branch and the messages the model sees on it.

`messages()` follows pi's session context closely enough for the wire's `messageCount` and history
`messages`, not exactly: after the last compaction on the branch it gives one summary message, the
kept entries from `firstKeptEntryId`, and everything after the compaction; message entries give
their `message`, custom messages and branch summaries a user message. pi's own `convertToLlm` may
differ in details (custom message display flags, extension-defined roles).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from rein.server.store import SessionRow

Entry = dict[str, object]
COMPACTION_PREFIX = (
    "The conversation history before this point was compacted into the following summary:\n\n<summary>\n"
)
BRANCH_PREFIX = "The following is a summary of a branch that this conversation came back from:\n\n<summary>\n"
SUMMARY_SUFFIX = "\n</summary>"


Lookup = Callable[[str | None], Entry | None]
"""An entry of the tree by id (None for an unknown id or None)."""


class BranchCounts:
    """`len(branch_messages(branch to leaf))` in O(1) per new entry. Memoized per entry: `R`, the
    messages on the path from the root through it; `L`, the last compaction on that path; its depth.
    With `C` the leaf's last compaction and `k` its first kept entry, the context is the summary, the
    messages from `k` up to `C` (when `k` is on the path) and those after `C`:
    `1 + (R(parent C) - R(parent k)) + (R(leaf) - R(C))`. None means a parent cycle (a tree sent whole)."""

    def __init__(self) -> None:
        self._run: dict[str, tuple[int, str | None, int]] = {}
        self._kept: dict[str, int] = {}  # compaction id -> R(parent k); 0 kept messages when k is off-path

    def message_count(self, leaf: str | None, entry: Lookup) -> int | None:
        leaf_run = self._walk(leaf, entry)
        if leaf_run is None or leaf_run[1] is None:
            return None if leaf_run is None else leaf_run[0]
        compaction = entry(leaf_run[1])
        assert compaction is not None
        at = self._walk(leaf_run[1], entry)
        before = self._walk(_parent(compaction), entry)
        if at is None or before is None:
            return None
        kept = self._kept_from(compaction, before, entry)
        return None if kept is None else 1 + before[0] - kept + leaf_run[0] - at[0]

    def _walk(self, entry_id: str | None, entry: Lookup) -> tuple[int, str | None, int] | None:
        """(R, L, depth) of `entry_id` ((0, None, 0) before the root), its ancestors memoized first."""
        pending: list[Entry] = []
        seen: set[str] = set()
        current = entry(entry_id)
        while current is not None and str(current.get("id")) not in self._run:
            if str(current.get("id")) in seen:
                return None
            seen.add(str(current.get("id")))
            pending.append(current)
            current = entry(_parent(current))
        run = (0, None, 0) if current is None else self._run[str(current.get("id"))]
        for item in reversed(pending):
            last = str(item.get("id")) if item.get("type") == "compaction" else run[1]
            run = (run[0] + (_message(item) is not None), last, run[2] + 1)
            self._run[str(item.get("id"))] = run
        return run

    def _kept_from(self, compaction: Entry, before: tuple[int, str | None, int], entry: Lookup) -> int | None:
        """R(parent k) when the first kept entry `k` is on the compaction's path, else R(parent C)
        (nothing before the compaction is kept). Climbed once per compaction."""
        key = str(compaction.get("id"))
        if key not in self._kept:
            first = compaction.get("firstKeptEntryId")
            kept = entry(first if isinstance(first, str) else None)
            target = self._walk(str(kept.get("id")), entry) if kept is not None else None
            result = before[0]
            if kept is not None and target is not None:
                current = entry(_parent(compaction))
                for _ in range(before[2] - target[2]):  # climb to the kept entry's depth
                    current = entry(_parent(current)) if current is not None else None
                if current is kept:
                    parent = self._walk(_parent(kept), entry)
                    if parent is None:
                        return None
                    result = parent[0]
            self._kept[key] = result
        return self._kept[key]


def _parent(entry: Entry) -> str | None:
    parent = entry.get("parentId")
    return parent if isinstance(parent, str) else None


@dataclass(frozen=True, slots=True, kw_only=True)
class SessionView:
    """A session at one revision. The lists are shared with the service's cache: read, never mutate."""

    row: SessionRow
    entries: Sequence[Entry]
    static_context: dict[str, object] | None
    hashes: Sequence[str] = field(repr=False)
    """`hashes[n]` is the tree hash of the first n entries."""
    index: Mapping[str, int] = field(repr=False)
    """entry id -> position in `entries`."""
    counts: BranchCounts = field(default_factory=BranchCounts, repr=False)
    """Running message counts per entry, shared by the views of one tree (entries never change)."""

    def prefix_hash(self, count: int) -> str | None:
        return self.hashes[count] if 0 <= count < len(self.hashes) else None

    def branch(self) -> list[Entry]:
        """Root..leaf by parentId; stops at a missing parent or a cycle rather than looping."""
        path: list[Entry] = []
        seen: set[str] = set()
        current = self.row.leaf_id
        while current is not None and current not in seen and current in self.index:
            seen.add(current)
            entry = self.entries[self.index[current]]
            path.append(entry)
            parent = entry.get("parentId")
            current = parent if isinstance(parent, str) else None
        path.reverse()
        return path

    def messages(self) -> list[Entry]:
        return branch_messages(self.branch())

    def _entry(self, entry_id: str | None) -> Entry | None:
        return self.entries[self.index[entry_id]] if entry_id is not None and entry_id in self.index else None

    def message_count(self) -> int:
        """`len(self.messages())` without walking the branch: every mutation answers it, and an append
        to a long session must not cost the session's length. None from the counts (a parent cycle
        in a tree the client sent whole) falls back to the walk."""
        counted = self.counts.message_count(self.row.leaf_id, self._entry)
        return len(self.messages()) if counted is None else counted

    def summary(self) -> dict[str, object]:
        """The state summary every mutation answers."""
        return {
            "sessionId": self.row.session_id,
            "staticContextHash": self.row.static_context_hash,
            "treeHash": self.row.tree_hash,
            "messageCount": self.message_count(),
            "entryCount": self.row.entry_count,
            "leafId": self.row.leaf_id,
            "revision": self.row.revision,
        }

    def listing(self) -> dict[str, object]:
        """One row of `GET /api/sessions`: the summary plus its times (ms since the epoch) and its
        directory (`cwd`, as its client sent it; None if it sent none)."""
        times = {"createdAt": self.row.created_ms, "updatedAt": self.row.updated_ms}
        return {**self.summary(), **times, "cwd": self.row.cwd}


def branch_messages(branch: Sequence[Entry]) -> list[Entry]:
    last = max((i for i, entry in enumerate(branch) if entry.get("type") == "compaction"), default=-1)
    if last < 0:
        return [m for entry in branch if (m := _message(entry)) is not None]
    compaction = branch[last]
    out: list[Entry] = [
        _user_text(COMPACTION_PREFIX + str(compaction.get("summary", "")) + SUMMARY_SUFFIX, compaction)
    ]
    kept = compaction.get("firstKeptEntryId")
    keeping = False
    for entry in branch[:last]:
        keeping = keeping or entry.get("id") == kept
        if keeping and (m := _message(entry)) is not None:
            out.append(m)
    out += [m for entry in branch[last + 1 :] if (m := _message(entry)) is not None]
    return out


def _message(entry: Entry) -> Entry | None:
    kind = entry.get("type")
    if kind == "message":
        message = entry.get("message")
        return message if isinstance(message, dict) else None
    if kind == "custom_message":
        return {"role": "user", "content": entry.get("content", ""), "timestamp": _ms(entry)}
    if kind == "branch_summary":
        return _user_text(BRANCH_PREFIX + str(entry.get("summary", "")) + SUMMARY_SUFFIX, entry)
    return None


def _user_text(text: str, entry: Entry) -> Entry:
    return {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": _ms(entry)}


def _ms(entry: Entry) -> int | None:
    """An entry's ISO timestamp as a message's milliseconds since the epoch."""
    stamp = entry.get("timestamp")
    try:
        return int(datetime.fromisoformat(stamp).timestamp() * 1000) if isinstance(stamp, str) else None
    except ValueError:
        return None
