"""The values a checkpoint is made of: what a turn changed, and what an undo did.

Both are kept in the session as `custom` entries (`checkpoint`, `checkpoint_undo`), so they are plain
data here: `to_data` writes the entry's data, `from_data` reads it back (None for data that is not one).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

Change = Literal["added", "modified", "deleted"]
"""What a turn did to a file."""
Action = Literal["restored", "removed", "recreated"]
"""What an undo did to a file: put its old content back, deleted a file the turn created, or
recreated one the turn deleted."""

CHECKPOINT = "checkpoint"
"""The custom type of a turn's checkpoint entry."""
UNDO = "checkpoint_undo"
"""The custom type of an undo's entry."""

_CHANGES: dict[str, Change] = {"A": "added", "M": "modified", "T": "modified", "D": "deleted"}
_ACTIONS: dict[Change, Action] = {"added": "recreated", "modified": "restored", "deleted": "removed"}


def change_of(status: str) -> Change:
    """The change a `git diff-tree --name-status` letter names (a type change is a modification)."""
    return _CHANGES.get(status[:1], "modified")


def action_of(change: Change) -> Action:
    """What restoring a file does, from how it differs between now and the restored tree."""
    return _ACTIONS[change]


@dataclass(frozen=True, slots=True, kw_only=True)
class FileChange:
    path: str
    """Relative to the project, with `/`."""
    change: Change


@dataclass(frozen=True, slots=True, kw_only=True)
class Checkpoint:
    """A turn that changed files: the project's tree before and after it (git tree ids in the
    project's shadow repository) and the files that differ."""

    id: str
    before: str
    after: str
    files: tuple[FileChange, ...]

    def to_data(self) -> dict[str, object]:
        files = [{"path": f.path, "change": f.change} for f in self.files]
        return {"id": self.id, "before": self.before, "after": self.after, "files": files}

    @classmethod
    def from_data(cls, data: Mapping[str, object]) -> Checkpoint | None:
        ident, before, after, files = (data.get(k) for k in ("id", "before", "after", "files"))
        if not (isinstance(ident, str) and isinstance(before, str) and isinstance(after, str)):
            return None
        if not isinstance(files, list):
            return None
        changes = tuple(
            FileChange(path=f["path"], change=_change(f.get("change")))
            for f in files
            if isinstance(f, dict) and isinstance(f.get("path"), str)
        )
        return cls(id=ident, before=before, after=after, files=changes)

    def paths(self) -> frozenset[str]:
        return frozenset(f.path for f in self.files)


def _change(value: object) -> Change:
    """A recorded change; anything else reads as a modification (the file is restored either way)."""
    return "added" if value == "added" else "deleted" if value == "deleted" else "modified"


@dataclass(frozen=True, slots=True, kw_only=True)
class Restored:
    path: str
    action: Action


@dataclass(frozen=True, slots=True, kw_only=True)
class Undone:
    """What an undo did: the checkpoints it undid (newest first), each file it put back, the files
    someone changed after the turn (restored all the same), and the tree of the files just before the
    undo, kept in the shadow repository so the undone state is not lost, and the tree after it."""

    ids: tuple[str, ...]
    files: tuple[Restored, ...]
    edited: tuple[str, ...]
    tree: str
    after: str

    def to_data(self) -> dict[str, object]:
        files = [{"path": f.path, "action": f.action} for f in self.files]
        data: dict[str, object] = {"undone": list(self.ids), "tree": self.tree, "after": self.after}
        return {**data, "files": files, "edited": list(self.edited)}

    def lines(self, turns: int) -> list[str]:
        """The report: one line per file, then the files changed since the turn."""
        if not self.files:
            return [f"undid {turns} turn(s): the files were already as before them"]
        head = f"undid {turns} turn(s), {len(self.files)} file(s):"
        out = [head, *(f"  {f.action:<9}  {f.path}" for f in self.files)]
        if self.edited:
            shown = ", ".join(self.edited[:5]) + (", ..." if len(self.edited) > 5 else "")
            out.append(f"changed since the turn, restored all the same: {shown}")
        return out


def undone_ids(undos: Sequence[Mapping[str, object]]) -> frozenset[str]:
    """Every checkpoint id the undo entries name."""
    out: set[str] = set()
    for data in undos:
        ids = data.get("undone")
        if isinstance(ids, list):
            out.update(i for i in ids if isinstance(i, str))
    return frozenset(out)
