"""The session tree: entries by id, each hanging off its parent, and the leaf pointer. Pure: no I/O.

Appending adds a child of any existing entry (normally the leaf) and moves the leaf to it. Branching
moves the leaf to an earlier entry (or to None, before the first entry); the next append hangs off it.
Nothing is ever removed. A parent is resolved when its child is added, so the parent links can never
form a cycle, whatever a file says.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Literal, Protocol

from rein.session._entries import Entry, LabelEntry
from rein.session.errors import DuplicateEntryError, UnknownEntryError


class TreeView(Protocol):
    """Read-only access to a session tree (what extensions and UIs get)."""

    @property
    def leaf_id(self) -> str | None:
        """The entry the next append hangs off; None before the first entry (or after a reset)."""
        ...

    @property
    def labels(self) -> Mapping[str, str]:
        """Entry id -> label, from every label entry in the file (the latest for a target wins)."""
        ...

    def get(self, entry_id: str) -> Entry | None: ...
    def __contains__(self, entry_id: object) -> bool: ...
    def __len__(self) -> int: ...
    def __iter__(self) -> Iterator[Entry]:
        """Every entry, in the order it was appended."""
        ...

    def children(self, entry_id: str | None) -> Sequence[Entry]:
        """Direct children of `entry_id` (None: the roots, orphans included), in append order."""
        ...

    def path(self, entry_id: str | None) -> list[Entry]:
        """Root-to-`entry_id` path; [] for None. Raises `UnknownEntryError` for an id not in the tree."""
        ...

    def active_path(self) -> list[Entry]:
        """Root-to-leaf path."""
        ...


class SessionTree:
    """The mutable tree behind a session; implements `TreeView`."""

    __slots__ = ("_children", "_entries", "_labels", "_leaf", "_parent")

    def __init__(self) -> None:
        self._entries: dict[str, Entry] = {}
        self._parent: dict[str, str | None] = {}
        self._children: dict[str | None, list[str]] = {}
        self._labels: dict[str, str] = {}
        self._leaf: str | None = None

    @property
    def leaf_id(self) -> str | None:
        return self._leaf

    @property
    def labels(self) -> Mapping[str, str]:
        return self._labels

    def get(self, entry_id: str) -> Entry | None:
        return self._entries.get(entry_id)

    def __contains__(self, entry_id: object) -> bool:
        return entry_id in self._entries

    def __len__(self) -> int:
        return len(self._entries)

    def __iter__(self) -> Iterator[Entry]:
        return iter(self._entries.values())

    def children(self, entry_id: str | None) -> Sequence[Entry]:
        return [self._entries[child] for child in self._children.get(entry_id, ())]

    def path(self, entry_id: str | None) -> list[Entry]:
        if entry_id is None:
            return []
        if entry_id not in self._entries:
            raise UnknownEntryError(f"no entry {entry_id!r} in this session")
        entries, parents = self._entries, self._parent
        out: list[Entry] = []
        current: str | None = entry_id
        while current is not None:
            out.append(entries[current])
            current = parents[current]
        out.reverse()
        return out

    def active_path(self) -> list[Entry]:
        return self.path(self._leaf)

    def check(self, entry: Entry) -> bool:
        """Whether `add(entry)` would add it: False for an identical duplicate (a no-op).

        Raises `DuplicateEntryError` for an existing id with different content, `UnknownEntryError`
        for a parent or label target not in the tree.
        """
        entries = self._entries
        existing = entries.get(entry.id)
        if existing is not None:
            if existing == entry:
                return False
            raise DuplicateEntryError(
                f"entry id {entry.id!r} is already used by a different {existing.type} entry; "
                "an append may repeat an entry only unchanged (give a new entry a new id)"
            )
        if entry.parent_id is not None and entry.parent_id not in entries:
            raise UnknownEntryError(
                f"parent {entry.parent_id!r} of entry {entry.id!r} is not in this session"
            )
        if isinstance(entry, LabelEntry) and entry.target_id not in entries:
            raise UnknownEntryError(f"label target {entry.target_id!r} is not in this session")
        return True

    def add(self, entry: Entry) -> bool:
        """Add `entry` and move the leaf to it; False (and nothing changes) for an identical duplicate.
        Raises as `check`."""
        if not self.check(entry):
            return False
        self.insert(entry)
        return True

    def load(self, entry: Entry) -> Literal["added", "orphan", "same"]:
        """Add an entry read from a file, as leniently as pi: an entry whose parent is not (yet) in
        the tree becomes a root ("orphan"); a label may name any id. "same": an identical duplicate,
        skipped. Raises `DuplicateEntryError` for an existing id with different content."""
        entries = self._entries
        existing = entries.get(entry.id)
        if existing is not None:
            if existing == entry:
                return "same"
            raise DuplicateEntryError(
                f"entry id {entry.id!r} is already used by a different {existing.type} entry"
            )
        parent = entry.parent_id
        if parent is None or parent in entries:
            self._link(entry, parent)
            return "added"
        self._link(entry, None)
        return "orphan"

    def insert(self, entry: Entry) -> None:
        """Add an entry that `check` accepted, and move the leaf to it."""
        self._link(entry, entry.parent_id)

    def _link(self, entry: Entry, parent: str | None) -> None:
        self._entries[entry.id] = entry
        self._parent[entry.id] = parent
        siblings = self._children.get(parent)
        if siblings is None:
            self._children[parent] = [entry.id]
        else:
            siblings.append(entry.id)
        if isinstance(entry, LabelEntry):
            if entry.label:
                self._labels[entry.target_id] = entry.label
            else:
                self._labels.pop(entry.target_id, None)
        self._leaf = entry.id

    def move_leaf(self, entry_id: str | None) -> None:
        """Branch: the next append hangs off `entry_id` (None: it starts a new root)."""
        if entry_id is not None and entry_id not in self._entries:
            raise UnknownEntryError(f"cannot move the leaf to {entry_id!r}: no such entry in this session")
        self._leaf = entry_id
