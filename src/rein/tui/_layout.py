"""The live area, drawn at the bottom of the terminal (not full screen, so the scrollback keeps the
conversation), top to bottom:

    the reply streaming now, thinking, running tools, queued prompts
    a question from an extension (a menu, or a title and an answer line)
    a separator, the editor, completions
    the status line and the footer

It is redrawn on every change and every half second, so the elapsed time and an extension's status
(the timebox counts down every second) stay live while the model streams.
"""

from __future__ import annotations

from collections.abc import Callable

from prompt_toolkit.application import Application
from prompt_toolkit.data_structures import Point
from prompt_toolkit.filters import Condition
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.layout import (
    BufferControl,
    ConditionalContainer,
    Dimension,
    FormattedTextControl,
    HSplit,
    Layout,
    Window,
)
from prompt_toolkit.layout.menus import CompletionsMenu
from prompt_toolkit.output import Output

from rein.ai import Model
from rein.tui._dialogs import Placeholder
from rein.tui._events import live_lines
from rein.tui._keys import key_bindings
from rein.tui._screen import Screen
from rein.tui._status import footer, status_line
from rein.tui._style import STYLE

LIVE_ROWS = 14
EDITOR_ROWS = 10
QUESTION_ROWS = 16
REFRESH = 0.5
"""Seconds between redraws when nothing else asks for one (the clock and countdowns)."""
ESC_WAIT = 0.05
"""How long a lone Esc byte may wait for the rest of an escape sequence, and how long a bare Esc
waits for a second key of a binding (Alt-Enter): short, so Esc acts at once."""


def build_app(screen: Screen, model: Callable[[], Model], output: Output | None = None) -> Application[None]:
    def lines() -> StyleAndTextTuples:
        return live_lines(screen.live, asking=screen.menu is not None or screen.ask is not None)

    live = Window(
        FormattedTextControl(lines, get_cursor_position=lambda: _end_of(lines())),
        wrap_lines=True,
        height=Dimension(max=LIVE_ROWS),
        dont_extend_height=True,
    )
    question = Window(
        FormattedTextControl(
            screen.question,
            get_cursor_position=lambda: Point(x=0, y=screen.menu.selected_row() if screen.menu else 0),
        ),
        wrap_lines=True,
        height=Dimension(max=QUESTION_ROWS),
        dont_extend_height=True,
    )
    answer = Window(
        BufferControl(
            screen.answer,
            input_processors=[Placeholder(lambda: screen.ask.placeholder if screen.ask else "")],
        ),
        get_line_prefix=lambda line, wrap: [("class:prompt", "? ")],
        height=1,
    )
    editor = Window(
        BufferControl(screen.editor),
        get_line_prefix=lambda line, wrap: [("class:prompt", "> " if line == 0 and wrap == 0 else "  ")],
        wrap_lines=True,
        height=Dimension(max=EDITOR_ROWS),
        dont_extend_height=True,
    )

    def status() -> str:
        return status_line(model(), screen.live)

    has_live = Condition(lambda: bool(lines()))
    asking = Condition(lambda: screen.ask is not None)
    questioned = Condition(lambda: screen.menu is not None or screen.ask is not None)
    root = HSplit(
        [
            ConditionalContainer(live, filter=has_live),
            ConditionalContainer(HSplit([question, ConditionalContainer(answer, filter=asking)]), questioned),
            Window(char="-", height=1, style="class:separator"),
            editor,
            CompletionsMenu(max_height=8, scroll_offset=1),
            Window(FormattedTextControl(status), height=1, style="class:status"),
            Window(FormattedTextControl(lambda: footer(screen.live)), height=1),
        ]
    )
    app: Application[None] = Application(
        layout=Layout(root, focused_element=editor),
        key_bindings=key_bindings(screen),
        output=output,
        style=STYLE,
        full_screen=False,
        erase_when_done=True,
        refresh_interval=REFRESH,
        min_redraw_interval=0.02,
    )
    app.ttimeoutlen = ESC_WAIT
    app.timeoutlen = ESC_WAIT

    def focus() -> None:
        app.layout.focus(answer if screen.ask is not None else editor)
        app.invalidate()

    screen.focus_changed = focus
    screen.app = app
    return app


def _end_of(fragments: StyleAndTextTuples) -> Point:
    """Where the live area's text ends: the window scrolls there, so a long reply shows its end."""
    text = "".join(fragment[1] for fragment in fragments)
    return Point(x=len(text) - (text.rfind("\n") + 1), y=text.count("\n"))
