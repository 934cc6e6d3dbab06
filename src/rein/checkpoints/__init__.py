"""Checkpoints: each turn's file changes kept in a shadow git repository per project under `~/.rein/`,
so the files of the last turns can be put back (`/undo`, `rein undo`, the tree's "continue from here").

    ShadowRepo(project, home)     snapshots (`snapshot`), what differs (`changes`), restoring (`restore`),
                                  the files' contents (`blobs`); `exclude=` paths a host writes itself
    Checkpoint, FileChange        a turn's before and after trees and its files (a session entry's data)
    undo(repo, checkpoints)       restore the files of those turns; returns `Undone`, its report `lines`
    on_branch(path), tree_at(rows, path)   the checkpoints of a branch, the files' tree at any point

The user's own repository is never read or written (see `_repo`); this package imports nothing of rein's.
"""

from rein.checkpoints._changes import (
    CHECKPOINT,
    UNDO,
    Action,
    Change,
    Checkpoint,
    FileChange,
    Restored,
    Undone,
    undone_ids,
)
from rein.checkpoints._points import Row, every, on_branch, tree_at
from rein.checkpoints._repo import CHECKPOINTS_DIR, MAX_FILES, ShadowRepo, store_dir
from rein.checkpoints._undo import differing_now, pending, restore_tree, undo
from rein.checkpoints.errors import CheckpointError, TooManyFiles

__all__ = [
    "CHECKPOINT",
    "CHECKPOINTS_DIR",
    "MAX_FILES",
    "UNDO",
    "Action",
    "Change",
    "Checkpoint",
    "CheckpointError",
    "FileChange",
    "Restored",
    "Row",
    "ShadowRepo",
    "TooManyFiles",
    "Undone",
    "differing_now",
    "every",
    "on_branch",
    "pending",
    "restore_tree",
    "store_dir",
    "tree_at",
    "undo",
    "undone_ids",
]
