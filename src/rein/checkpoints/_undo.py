"""Undo and the state of a point in the session tree, over a `ShadowRepo`.

Undo restores a file changed by the person after the turn too, and says so: undo is asked for by name,
and the state it overwrites is a snapshot kept in the shadow repository (the undo entry's `tree`), so
nothing is lost; refusing would leave a half-undone turn whenever a formatter or an editor touched a file.
"""

from __future__ import annotations

from collections.abc import Sequence

from rein.checkpoints._changes import Checkpoint, Restored, Undone, action_of
from rein.checkpoints._repo import ShadowRepo


def pending(checkpoints: Sequence[Checkpoint], undone: frozenset[str]) -> list[Checkpoint]:
    """The checkpoints not undone yet, oldest first."""
    return [c for c in checkpoints if c.id not in undone]


def undo(repo: ShadowRepo, checkpoints: Sequence[Checkpoint]) -> Undone:
    """Restore the files `checkpoints` changed (the last N turns, oldest first) to what they were
    before the oldest turn that changed each file."""
    current = repo.snapshot()
    files: dict[str, Restored] = {}
    edited: list[str] = []
    claimed: set[str] = set()
    for checkpoint in reversed(checkpoints):  # the newest turn that touched a file says how it ended
        mine = checkpoint.paths() - claimed
        claimed |= mine
        edited += repo.differing(checkpoint.after, current, mine) if mine else []
    restored: set[str] = set()
    for checkpoint in checkpoints:  # the oldest turn that touched a file says how it began
        mine = checkpoint.paths() - restored
        restored |= mine
        for path, change in repo.restore(checkpoint.before, mine, current) if mine else ():
            files[path] = Restored(path=path, action=action_of(change))
    return Undone(
        ids=tuple(c.id for c in reversed(checkpoints)),
        files=tuple(sorted(files.values(), key=lambda f: f.path)),
        edited=tuple(sorted(edited)),
        tree=current,
        after=repo.snapshot() if files else current,
    )


def restore_tree(repo: ShadowRepo, tree: str, paths: frozenset[str]) -> Undone:
    """Put `paths` back as they are in `tree` (the files of a point in the session tree)."""
    current = repo.snapshot()
    done = repo.restore(tree, paths, current)
    files = tuple(Restored(path=p, action=action_of(c)) for p, c in sorted(done))
    return Undone(ids=(), files=files, edited=(), tree=current, after=repo.snapshot() if files else current)


def differing_now(repo: ShadowRepo, tree: str, paths: frozenset[str]) -> tuple[str, list[str]]:
    """A snapshot of now, and which of `paths` differ between it and `tree`."""
    current = repo.snapshot()
    return current, repo.differing(current, tree, paths)
