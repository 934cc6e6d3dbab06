"""Finished output goes above the live area, into the terminal's own scrollback.

While the application runs, lines are batched and printed in one go: the live area is erased, the
lines are written, and the live area is drawn again below them. The terminal stays in raw mode the
whole time (unlike `run_in_terminal`, which switches to cooked mode and would echo keys typed during
the print), so type-ahead is neither echoed nor lost; the screen's output (`_terminal`) keeps
bracketed paste on through the erase. Without a running application (before it starts, after it
ends, the line-by-line mode) lines are printed at once.
"""

from __future__ import annotations

import asyncio

from prompt_toolkit import print_formatted_text
from prompt_toolkit.application import Application
from prompt_toolkit.formatted_text import FormattedText, StyleAndTextTuples
from prompt_toolkit.renderer import print_formatted_text as render_to
from prompt_toolkit.styles import BaseStyle


class Scrollback:
    def __init__(self, style: BaseStyle) -> None:
        self._style = style
        self._app: Application[None] | None = None
        self._pending: list[StyleAndTextTuples] = []
        self._scheduled = False

    def attach(self, app: Application[None] | None) -> None:
        """Print above `app` from now on (None: print directly)."""
        self.flush()
        self._app = app

    def line(self, text: str, style: str = "") -> None:
        self.write([(style, text)])

    def write(self, fragments: StyleAndTextTuples) -> None:
        """Print `fragments` as one or more whole lines (a newline is added)."""
        app = self._app
        if app is None or not app.is_running:
            print_formatted_text(FormattedText(fragments), style=self._style)
            return
        self._pending.append(fragments)
        if not self._scheduled:
            self._scheduled = True  # one print for every line written before it runs
            asyncio.get_running_loop().call_soon(self.flush)

    def flush(self) -> None:
        """Print what is pending now."""
        self._scheduled = False
        pending, self._pending = self._pending, []
        if not pending:
            return
        app = self._app
        if app is None or not app.is_running:
            for fragments in pending:
                print_formatted_text(FormattedText(fragments), style=self._style)
            return
        joined: StyleAndTextTuples = []
        for fragments in pending:
            joined.extend(fragments)
            joined.append(("", "\n"))
        app.renderer.erase()
        render_to(app.output, joined, self._style, color_depth=app.color_depth)
        app.invalidate()
