"""rein's interactive terminal UI, on prompt_toolkit: the reply streams in place above the editor
and finished output goes to the terminal's scrollback; a live status line and footer; a multi-line
editor with history and completion; inline menus for extensions' questions (tool approvals).

    code = await run_interactive(make_session, first="fix the tests")

`make_session(ui)` builds the `AgentSession` with the UI it is given, so extensions notify and ask
through the screen the person is looking at. When stdin or stdout is not a terminal, each line of
stdin is a prompt instead (no screen, nobody to ask).
"""

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


__all__ = ["is_terminal", "run_interactive"]
