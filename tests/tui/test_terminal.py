"""The terminal output the screen draws on, and printing above the live area."""

from __future__ import annotations

import io

from prompt_toolkit.data_structures import Size

from rein.tui._terminal import Terminal
from tests.ai.helpers import run
from tests.tui.screen_harness import running_screen, until

PASTE_ON = "\x1b[?2004h"
PASTE_OFF = "\x1b[?2004l"


def terminal() -> tuple[Terminal, io.StringIO]:
    written = io.StringIO()
    return Terminal(written, lambda: Size(rows=40, columns=100), term="xterm", enable_cpr=False), written


def test_lines_print_above_the_live_area_with_paste_kept_on() -> None:
    output, written = terminal()

    async def go() -> None:
        async with running_screen(output) as (screen, _):
            await until(lambda: PASTE_ON in written.getvalue())
            screen.out.line("first finished line")
            screen.out.line("second")
            await until(lambda: "second" in written.getvalue())
            text = written.getvalue()
            assert text.index("first finished line") < text.index("second")
            assert text.count("first finished line") == 1  # both lines in one print
            assert PASTE_OFF not in text  # a paste during the print is still one paste
            assert "\x1b[6n" not in text  # no cursor-position requests

    run(go())
    output.pasting = False
    output.disable_bracketed_paste()
    output.flush()
    assert written.getvalue().endswith(PASTE_OFF)
