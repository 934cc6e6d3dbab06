"""rein's interactive terminal UI, on prompt_toolkit: the reply streams in place above the editor
and finished output goes to the terminal's scrollback; a live status line and footer; a multi-line
editor with history and completion; inline menus for extensions' questions (tool approvals).

    code = await run_interactive(make_session, first="fix the tests")

`make_session(ui)` builds the `AgentSession` with the UI it is given, so extensions notify and ask
through the screen the person is looking at. When stdin or stdout is not a terminal, each line of
stdin is a prompt instead (no screen, nobody to ask).

Print and JSON modes never draw a screen, so this door loads prompt_toolkit on first use (PEP 562).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rein.tui._entry import is_terminal, run_interactive

_LAZY: dict[str, str] = {"is_terminal": "rein.tui._entry", "run_interactive": "rein.tui._entry"}

__all__ = ["is_terminal", "run_interactive"]


def __getattr__(name: str) -> object:
    """Load the module behind a public name on first use."""
    if name not in _LAZY:
        raise AttributeError(f"module 'rein.tui' has no attribute {name!r}")
    return getattr(importlib.import_module(_LAZY[name]), name)
