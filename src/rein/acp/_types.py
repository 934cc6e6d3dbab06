"""What `rein acp` is given by its host (the CLI): how to build a session, and how that can fail."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from rein.extensions import UI
from rein.session import AgentSession

SessionFactory = Callable[[Path, Path | None, UI], AgentSession]
"""`factory(cwd, session_file, ui)`: an `AgentSession` for `cwd`, on a new session file (None) or on
the given one, its extensions loaded (steering, stream rules, timebox, approval asking through `ui`).
Raises `StartFailed` (one line) when it cannot start: no model, a bad settings or session file."""


class StartFailed(Exception):
    """A session could not start; the message is one line, told to the editor as the request's error."""


class UnknownSession(Exception):
    """No session file with this id for this directory."""

    def __init__(self, session_id: str, where: Path) -> None:
        super().__init__(f"no session {session_id!r} in {where}")
