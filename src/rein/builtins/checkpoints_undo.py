"""Undo over a session file, shared by `/undo` and `rein undo`: the checkpoints of the active branch,
and the files of any point of the tree (the tree's "continue from here").

The checkpoint and undo records are `custom` entries of the session (`rein.checkpoints.CHECKPOINT`,
`UNDO`); their trees live in the project's shadow repository (`rein.checkpoints.ShadowRepo`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from rein.checkpoints import (
    UNDO,
    Row,
    ShadowRepo,
    Undone,
    differing_now,
    every,
    on_branch,
    restore_tree,
    tree_at,
    undo,
)
from rein.session import CustomEntry, Entry, Session

UNDO_NOTE = "The person undid the file changes of your last {turns} turn(s); these files are back as before:"
"""What the model is told after an undo (so it does not trust its memory of the files)."""


def rows(entries: Iterable[Entry]) -> list[Row]:
    """Session entries as the checkpoints engine reads them."""
    out: list[Row] = []
    for entry in entries:
        if isinstance(entry, CustomEntry) and isinstance(entry.data, dict):
            data = {str(key): value for key, value in entry.data.items()}
            out.append(Row(id=entry.id, parent_id=entry.parent_id, custom_type=entry.custom_type, data=data))
        else:
            out.append(Row(id=entry.id, parent_id=entry.parent_id))
    return out


@dataclass(frozen=True, slots=True, kw_only=True)
class UndoResult:
    undone: Undone
    turns: int

    def lines(self) -> list[str]:
        return self.undone.lines(self.turns)

    def note(self) -> str:
        listed = "\n".join(f"- {f.path} ({f.action})" for f in self.undone.files)
        return UNDO_NOTE.format(turns=self.turns) + "\n" + listed


def undo_turns(store: Session, repo: ShadowRepo, turns: int) -> UndoResult | str:
    """Undo the files of the last `turns` turns of the active branch that changed files, and record
    it in the session. Returns why not (a line) when there is nothing to undo. Raises
    `CheckpointError` when git fails."""
    pending = on_branch(rows(store.tree.active_path()))
    if not pending:
        return "no turn of this branch changed files (or they are undone already)"
    chosen = pending[-turns:]
    undone = undo(repo, chosen)
    store.append_custom(UNDO, undone.to_data())
    return UndoResult(undone=undone, turns=len(chosen))


@dataclass(frozen=True, slots=True, kw_only=True)
class PointFiles:
    """The files of a point of the tree: its tree id, and which files the session's turns changed
    that differ from it now."""

    tree: str
    paths: frozenset[str]
    differing: tuple[str, ...]


def files_at(store: Session, repo: ShadowRepo, leaf: str | None) -> PointFiles | None:
    """What restoring the files of `leaf` would change; None when the session has no checkpoints."""
    entries = rows(store.tree)
    tree = tree_at(entries, rows(store.tree.path(leaf)))
    if tree is None:
        return None
    paths = frozenset(p for c in every(entries) for p in c.paths())
    _, differing = differing_now(repo, tree, paths)
    return PointFiles(tree=tree, paths=paths, differing=tuple(sorted(differing)))


def restore_point(store: Session, repo: ShadowRepo, point: PointFiles) -> Undone:
    """Put the files back as they are at a point of the tree, and record it as an undo entry."""
    done = restore_tree(repo, point.tree, point.paths)
    store.append_custom(UNDO, done.to_data())
    return done


def restore_lines(done: Undone) -> list[str]:
    """The report of a point's restore (`/tree`, the page's "continue from here"): one line per file."""
    head = f"restored the files of that point, {len(done.files)} file(s):"
    return [head, *(f"  {f.action:<9}  {f.path}" for f in done.files)]


def shown(paths: Sequence[str], limit: int = 5) -> str:
    return ", ".join(paths[:limit]) + (f", and {len(paths) - limit} more" if len(paths) > limit else "")
