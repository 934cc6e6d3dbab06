"""The sessions on disk, one summary each: what `rein sessions` lists and `/resume` offers.

Each file is opened (rein's or pi's dialect), so the summary carries its entry count, its first prompt
and its model. A file that cannot be read is listed with its `problem` instead of stopping the listing.
Message payloads are read leniently as JSON (rein's and pi's shapes alike): this module, like the rest
of the store, imports nothing from `rein.ai`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from rein.session._context import message_text
from rein.session._entries import MessageEntry
from rein.session._file import newest_first
from rein.session._paths import SESSIONS_DIR, sessions_dir
from rein.session._session import Session
from rein.session._tree import TreeView
from rein.session.errors import SessionError

HOOKS_DIR = "hooks"
"""`sessions/hooks/` holds the hook adapters' state, not sessions."""


@dataclass(frozen=True, slots=True, kw_only=True)
class SessionInfo:
    """One session file, summarized. For a file that cannot be read, `problem` says why, `id` is taken
    from the file name, `cwd` and `created` are None and the counts are 0."""

    path: Path
    id: str
    cwd: str | None
    created: str | None
    """The header's ISO-8601 timestamp (UTC), as written."""
    modified: datetime
    """When the file was last written (local time, aware)."""
    entries: int
    bytes: int
    first_prompt: str
    model: str | None
    """`provider/model` as the active branch last names it (a model change or an assistant reply)."""
    problem: str | None = None


def list_sessions(home: Path, cwd: str | os.PathLike[str], limit: int | None = None) -> list[SessionInfo]:
    """The sessions of `cwd`, most recently written first (at most `limit`). Files of another
    directory that shares the slug are left out; unreadable files are listed with their problem."""
    wanted = os.fspath(cwd)
    paths = newest_first(sessions_dir(home, cwd), "*.jsonl")
    infos = (summarize(path) for path in paths[:limit])
    return [info for info in infos if info.cwd in (None, wanted)]


def list_all_sessions(home: Path) -> list[SessionInfo]:
    """Every project's sessions under `home/.rein/sessions/`, most recently written first."""
    root = home / SESSIONS_DIR
    found: list[SessionInfo] = []
    for directory in sorted(root.iterdir()) if root.is_dir() else ():
        if directory.is_dir() and directory.name != HOOKS_DIR:
            found.extend(summarize(path) for path in newest_first(directory, "*.jsonl"))
    return sorted(found, key=lambda info: (info.modified, info.path.name), reverse=True)


def summarize(path: Path) -> SessionInfo:
    """One file's summary; never raises for a file that cannot be read or is not a session."""
    try:
        stat = path.stat()
        store = Session.open(path)
    except (SessionError, OSError) as error:
        try:
            modified = datetime.fromtimestamp(path.stat().st_mtime).astimezone()
        except OSError:
            modified = datetime.fromtimestamp(0).astimezone()
        return SessionInfo(
            path=path,
            id=path.stem.rpartition("_")[2],
            cwd=None,
            created=None,
            modified=modified,
            entries=0,
            bytes=0,
            first_prompt="",
            model=None,
            problem=_problem(path, error),
        )
    model = store.context().model
    return SessionInfo(
        path=path,
        id=store.id,
        cwd=store.header.cwd,
        created=store.header.timestamp,
        modified=datetime.fromtimestamp(stat.st_mtime).astimezone(),
        entries=len(store.tree),
        bytes=stat.st_size,
        first_prompt=first_prompt(store.tree),
        model=f"{model.provider}/{model.model_id}" if model else None,
    )


def first_prompt(tree: TreeView) -> str:
    """The text of the first user message in the file (either dialect); "" if there is none."""
    for entry in tree:
        if isinstance(entry, MessageEntry) and entry.message.get("role") == "user":
            return message_text(entry.message.get("content"))
    return ""


def _problem(path: Path, error: Exception) -> str:
    if isinstance(error, OSError):
        return f"{path}: cannot be read: {error.strerror or error}"
    text = str(error)
    return text if text.startswith(str(path)) else f"{path}: {text}"
