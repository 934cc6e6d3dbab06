"""The door's two names: run the interactive session, on a screen or line by line."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable

from rein.extensions import UI
from rein.session import AgentSession
from rein.tui._lines import run_lines
from rein.tui._loop import run_screen


async def run_interactive(make_session: Callable[[UI], AgentSession], first: str | None = None) -> int:
    """Run the interactive session until the person quits; returns the exit code (0 on a normal
    exit, 130 when Ctrl-C ended the line-by-line mode)."""
    if is_terminal():
        return await run_screen(make_session, first)
    return await run_lines(make_session, first)


def is_terminal() -> bool:
    """The screen needs a terminal on both ends, and one that understands cursor movement."""
    return sys.stdin.isatty() and sys.stdout.isatty() and os.environ.get("TERM", "") != "dumb"
