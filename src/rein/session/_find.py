"""The session file a person names (`rein --resume X`): a path, a session id, or the start of one.

    find_session(home, cwd, "3f2a")   -> the file; `SessionNotFound` (one line) when none or several match

Ids are read from file names (`<timestamp>_<id>.jsonl`), so nothing is opened to look: this
directory's sessions first, then every project's (an id names one session wherever it lives).
"""

from __future__ import annotations

import os
from pathlib import Path

from rein.session._file import newest_first
from rein.session._paths import SESSIONS_DIR, sessions_dir
from rein.session.errors import SessionError

HOOKS_DIR = "hooks"
"""`sessions/hooks/` holds the hook adapters' state, not sessions."""
SHOWN = 4
"""Ids an ambiguous prefix lists."""


class SessionNotFound(SessionError):
    """No session, or more than one, answers to what was given; the message says which and how to
    look them up."""


def find_session(home: Path, cwd: str | os.PathLike[str], given: str) -> Path:
    """The file `given` names: an existing path, else the session whose id is `given` or (uniquely)
    starts with it. Raises `SessionNotFound`."""
    path = Path(given).expanduser()
    if path.exists():  # a directory too: opening it says "Is a directory", as for any file
        return path
    if not given or os.sep in given or given.endswith(".jsonl"):
        raise SessionNotFound(f"{given}: No such file or directory")
    for directory in (sessions_dir(home, cwd), None):
        found = _matching(home, directory, given)
        exact = [(sid, file) for sid, file in found if sid == given]
        if exact or len(found) == 1:
            return (exact or found)[0][1]
        if len(found) > 1:
            ids = sorted({sid for sid, _ in found})
            shown = ", ".join(ids[:SHOWN]) + (", ..." if len(ids) > SHOWN else "")
            raise SessionNotFound(f"{given}: the start of {len(ids)} session ids ({shown}); give more of it")
    raise SessionNotFound(f"{given}: no such file, and no session id starts so (`rein sessions` lists them)")


def _matching(home: Path, directory: Path | None, prefix: str) -> list[tuple[str, Path]]:
    """(id, file) of the sessions in `directory` (None: every project's) whose id starts with `prefix`."""
    if directory is None:
        root = home / SESSIONS_DIR
        dirs = (
            sorted(d for d in root.iterdir() if d.is_dir() and d.name != HOOKS_DIR) if root.is_dir() else []
        )
    else:
        dirs = [directory]
    found: list[tuple[str, Path]] = []
    for folder in dirs:
        for file in newest_first(folder, "*.jsonl"):
            sid = file.stem.rpartition("_")[2]
            if sid.startswith(prefix):
                found.append((sid, file))
    return found
