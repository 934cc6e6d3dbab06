"""Checkpoints on the page: the runs' snapshots leave out what the server writes, a turn's file changes
are shown as diffs (as edit tool cards show theirs), and a turn can be undone, as `/undo` does.

    server_paths(config)              the database (its -wal, -shm, -journal), the state dir, uploads,
                                      its stdout and stderr when they are files
    repo_for(config, cwd)             the project's `ShadowRepo`, those paths excluded
    checkpoint_body(entry, undone)    a checkpoint or undo entry's article body for the conversation
    find(entries, checkpoint_id)      a session's checkpoint by id
    changes(repo, checkpoint)         `{"id", "files", "html"}`: a unified diff per file
    undo_from(store, repo, id)        undo that turn and the later turns of the branch (as `/undo N`)
"""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping, Sequence
from pathlib import Path

from rein.ai import JsonValue
from rein.builtins.checkpoints_undo import UndoResult, rows, undo_turns
from rein.checkpoints import CHECKPOINT, UNDO, Checkpoint, CheckpointError, ShadowRepo, on_branch
from rein.html import diff, esc
from rein.server._config import ServerConfig
from rein.server._errors import ProtocolError
from rein.server._view import Entry
from rein.server.store import default_sqlite_path
from rein.session import CustomEntry, Session

MAX_SHOWN = 256 * 1024
"""A file larger than this (before or after) is named, not diffed: the page is for reading."""
SQLITE = "sqlite://"


def server_paths(config: ServerConfig) -> tuple[Path, ...]:
    """Every path the server writes: snapshots leave them out, so an undo never rewinds the server."""
    paths = [config.home / ".rein" / "server"]
    db = config.db.strip()
    file: Path | None = None
    if not db:
        file = default_sqlite_path(config.home)
    elif db.startswith(SQLITE):
        file = Path(db.removeprefix(SQLITE))
    elif "://" not in db:
        file = Path(db).expanduser().absolute()
    if file is not None:
        paths += [file, *(file.with_name(file.name + tail) for tail in ("-wal", "-shm", "-journal"))]
    if config.upload_dir:
        paths.append(Path(config.upload_dir))
    return (*paths, *_logs())


def _logs() -> list[Path]:
    """The server's stdout and stderr when they are files (`rein serve > serve.log` in the project)."""
    out: list[Path] = []
    for fd in (1, 2):
        try:
            if stat.S_ISREG(os.fstat(fd).st_mode):
                out.append(Path(f"/proc/self/fd/{fd}").readlink())
        except OSError:  # closed, or no /proc (macOS): the log is not excluded
            continue
    return out


def repo_for(config: ServerConfig, cwd: str) -> ShadowRepo:
    return ShadowRepo(Path(cwd).resolve(), config.home, exclude=server_paths(config))


def _data(entry: Entry) -> Mapping[str, object] | None:
    data = entry.get("data")
    return data if isinstance(data, dict) else None


def _custom_type(entry: Entry) -> object:
    return entry.get("customType", entry.get("custom_type"))


def undone_on(branch: Sequence[Entry]) -> frozenset[str]:
    """The checkpoint ids the branch's undo entries name."""
    out: set[str] = set()
    for entry in branch:  # every request walks the whole branch: the type first, cheapest
        if entry.get("type") != "custom" or _custom_type(entry) != UNDO:
            continue
        data = _data(entry)
        if data is not None:
            ids = data.get("undone")
            if isinstance(ids, list):
                out.update(i for i in ids if isinstance(i, str))
    return frozenset(out)


def find(entries: Sequence[Entry], checkpoint_id: str) -> Checkpoint | None:
    for entry in entries:
        data = _data(entry)
        if entry.get("type") == "custom" and _custom_type(entry) == CHECKPOINT and data is not None:
            checkpoint = Checkpoint.from_data(data)
            if checkpoint is not None and checkpoint.id == checkpoint_id:
                return checkpoint
    return None


def checkpoint_body(entry: CustomEntry, undone: frozenset[str]) -> tuple[str, str, str] | None:
    """(classes, kind, inner) of a checkpoint or undo entry; None for any other entry."""
    data = entry.data if isinstance(entry.data, dict) else {}
    if entry.custom_type == UNDO:
        files = [f for f in data.get("files", []) if isinstance(f, dict)]
        listed = "".join(
            f'<li><span class="action">{esc(str(f.get("action")))}</span>'
            f" <code>{esc(str(f.get('path')))}</code></li>"
            for f in files
        )
        said = f"{len(files)} file(s) put back" if files else "the files were already as before"
        return "checkpoint-undo", "undo", f'<div class="meta">{said}</div><ul class="changed">{listed}</ul>'
    checkpoint = Checkpoint.from_data(data) if entry.custom_type == CHECKPOINT else None
    if checkpoint is None:
        return None
    ident = esc(checkpoint.id)
    listed = "".join(
        f'<li><span class="change {f.change}">{f.change}</span> <code>{esc(f.path)}</code></li>'
        for f in checkpoint.files
    )
    done = checkpoint.id in undone
    actions = (
        f'<button type="button" class="show-changes" data-checkpoint-id="{ident}">Show the diffs</button>'
        + (
            '<span class="badge undone">undone</span>'
            if done
            else f'<button type="button" class="undo-turn" data-checkpoint-id="{ident}">Undo</button>'
        )
    )
    inner = (
        f'<ul class="changed">{listed}</ul><div class="checkpoint-actions">{actions}</div>'
        f'<div class="checkpoint-diffs" data-checkpoint-id="{ident}" hidden></div>'
    )
    classes = "checkpoint undone" if done else "checkpoint pending"
    return classes, f"files changed: {len(checkpoint.files)}", inner


def _text(content: bytes | int | None) -> str | None:
    """The file's text; None when it is absent; a note in brackets when it cannot be shown."""
    if content is None:
        return None
    if isinstance(content, int):
        return f"[too large to show: {content} bytes]"
    if b"\0" in content[:8192]:
        return f"[binary file: {len(content)} bytes]"
    try:
        return content.decode("utf-8")
    except UnicodeDecodeError:
        return f"[not UTF-8 text: {len(content)} bytes]"


def changes(repo: ShadowRepo, checkpoint: Checkpoint) -> dict[str, JsonValue]:
    """The checkpoint's files, each with the unified diff from before the turn to after it. Raises
    `CheckpointError` when git fails."""
    wanted = [(tree, f.path) for f in checkpoint.files for tree in (checkpoint.before, checkpoint.after)]
    found = repo.blobs(wanted, MAX_SHOWN)
    parts: list[str] = []
    for n, change in enumerate(checkpoint.files):
        old, new = _text(found[2 * n]), _text(found[2 * n + 1])
        shown = [t for t in (old, new) if t is not None and t.startswith("[")]
        body = f'<div class="meta">{esc(shown[0])}</div>' if shown else diff(old or "", new or "")
        parts.append(
            f'<section class="file-change" data-path="{esc(change.path)}"><div class="tool-head">'
            f'<code>{esc(change.path)}</code> <span class="kind">{change.change}</span></div>{body}</section>'
        )
    files: list[JsonValue] = [{"path": f.path, "change": f.change} for f in checkpoint.files]
    return {"id": checkpoint.id, "files": files, "html": "".join(parts)}


def undo_from(store: Session, repo: ShadowRepo, checkpoint_id: str) -> UndoResult:
    """Undo the turn `checkpoint_id` and every later turn of the active branch that changed files,
    recorded in the session as `/undo N` records it. Raises `ProtocolError`: that turn is not one of
    the branch's left to undo (409), or git failed (500)."""
    pending = [c.id for c in on_branch(rows(store.tree.active_path()))]
    if checkpoint_id not in pending:
        raise ProtocolError(
            409, "INVALID_REQUEST", f"checkpoint {checkpoint_id!r} is not a turn of this branch left to undo"
        )
    try:
        result = undo_turns(store, repo, len(pending) - pending.index(checkpoint_id))
    except CheckpointError as error:
        raise ProtocolError(500, "INTERNAL_ERROR", f"undo: {error}; nothing recorded") from None
    if isinstance(result, str):  # pending is not empty: never, but the type says it may be
        raise ProtocolError(409, "INVALID_REQUEST", result)
    return result


def undo_answer(result: UndoResult) -> dict[str, JsonValue]:
    files: list[JsonValue] = [{"path": f.path, "action": f.action} for f in result.undone.files]
    return {
        "undone": list(result.undone.ids),
        "turns": result.turns,
        "files": files,
        "edited": list(result.undone.edited),
        "lines": list(result.lines()),
    }
