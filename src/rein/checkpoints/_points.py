"""Checkpoints in a session tree: the ones on a branch, and the files at any point of the tree.

Entries are read as `(id, parent id, custom type, data)` rows, so the session package stays out of
the engine: hosts pass their tree's entries in.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from rein.checkpoints._changes import CHECKPOINT, UNDO, Checkpoint, undone_ids


@dataclass(frozen=True, slots=True, kw_only=True)
class Row:
    """One session entry as the checkpoints read it; `custom_type` is None for other entries."""

    id: str
    parent_id: str | None
    custom_type: str | None = None
    data: Mapping[str, object] | None = None


def on_branch(path: Sequence[Row]) -> list[Checkpoint]:
    """The checkpoints of a root-to-leaf path not undone on it, oldest first."""
    undone = undone_ids([r.data for r in path if r.custom_type == UNDO and r.data is not None])
    found = [_checkpoint(r) for r in path]
    return [c for c in found if c is not None and c.id not in undone]


def every(rows: Iterable[Row]) -> list[Checkpoint]:
    """Every checkpoint of the tree, in file order."""
    return [c for c in (_checkpoint(r) for r in rows) if c is not None]


def tree_at(rows: Sequence[Row], path: Sequence[Row]) -> str | None:
    """The files' tree at the end of `path` (root to the point continued from): after the latest
    checkpoint or undo on it, or after the checkpoint whose run ended right at the point (it is
    written after a run's last reply, so continuing from that reply means its files); before the
    first checkpoint of the tree when the point comes before them all. None: no checkpoints."""
    children: dict[str, Checkpoint] = {}
    for row in rows:
        checkpoint = _checkpoint(row)
        if checkpoint is not None and row.parent_id is not None:
            children[row.parent_id] = checkpoint
    for row in reversed(path):
        if row.custom_type == UNDO and row.data is not None and isinstance(row.data.get("after"), str):
            return str(row.data["after"])
        checkpoint = _checkpoint(row) or children.get(row.id)
        if checkpoint is not None:
            return checkpoint.after
    first = next(iter(every(rows)), None)
    return first.before if first is not None else None


def _checkpoint(row: Row) -> Checkpoint | None:
    if row.custom_type != CHECKPOINT or row.data is None:
        return None
    return Checkpoint.from_data(row.data)
