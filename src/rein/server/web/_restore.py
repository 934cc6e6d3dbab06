"""The page's "continue from here" with the files of that point, as `/tree` offers them: which files
would change (the page asks before it switches, never restores silently), and the restore after the
switch, recorded as an undo entry (`checkpoints_undo.files_at`, `restore_point`, as `/tree` does).

    files_answer(store, repo, entry_id)   {"entryId", "differing", "note"}: the files that differ now
                                          from that point's; `note` says why none can be restored
    restore_answer(store, repo)           put back the files of the store's leaf: {"leafId", "files",
                                          "lines"}, the lines as `/tree` reports them
"""

from __future__ import annotations

from rein.ai import JsonValue
from rein.builtins.checkpoints_undo import files_at, restore_lines, restore_point
from rein.checkpoints import CheckpointError, ShadowRepo
from rein.server._errors import ProtocolError
from rein.session import Session

KEPT = "checkpoints: {error}; the files stay as they are"
SAME = "the files are already as at that point"


def files_answer(store: Session, repo: ShadowRepo, entry_id: str) -> dict[str, JsonValue]:
    """What restoring the files of `entry_id` would change. A checkpoint failure (no git, a project
    elsewhere) is a note, not an error: the switch goes on without the question, as `/tree` does."""
    try:
        point = files_at(store, repo, entry_id)
    except CheckpointError as error:
        return {"entryId": entry_id, "differing": [], "note": KEPT.format(error=error)}
    differing: list[JsonValue] = list(point.differing) if point is not None else []
    return {"entryId": entry_id, "differing": differing, "note": None}


def restore_answer(store: Session, repo: ShadowRepo) -> dict[str, JsonValue]:
    """Put the files back as they are at the store's leaf (the entry just continued from). Raises
    `ProtocolError` 500 when git fails: the switch stays, the files as they were."""
    try:
        point = files_at(store, repo, store.leaf_id)
        done = restore_point(store, repo, point) if point is not None and point.differing else None
    except CheckpointError as error:
        raise ProtocolError(
            500, "INTERNAL_ERROR", "continued from the entry, but " + KEPT.format(error=error)
        ) from None
    files: list[JsonValue] = [{"path": f.path, "action": f.action} for f in done.files] if done else []
    lines: list[JsonValue] = list(restore_lines(done)) if done is not None else [SAME]
    return {"leafId": store.leaf_id, "files": files, "lines": lines}
