"""The terminal the screen draws on, set up against three ways a screen loses lines or keys (see
`Terminal` and `terminal_output`)."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator

from prompt_toolkit.data_structures import Size
from prompt_toolkit.output.vt100 import Vt100_Output


class Terminal(Vt100_Output):
    """The terminal output the screen draws on. Bracketed paste stays on while the screen is up:
    prompt_toolkit turns it off each time the live area is erased for a print and on again at the
    next redraw, and a paste arriving in between came in as typed lines, each newline an Enter."""

    pasting = True

    def disable_bracketed_paste(self) -> None:
        if not self.pasting:
            super().disable_bracketed_paste()


@contextlib.contextmanager
def terminal_output() -> Iterator[Terminal]:
    """The terminal, on its own duplicate of stdout's descriptor, with no cursor-position requests.

    - The duplicate: llama.cpp silences its logs by pointing descriptors 1 and 2 at /dev/null while it
      loads a model (in a worker thread, process-wide); a redraw written to descriptor 1 meanwhile
      was lost, and the next one, drawn relative to it, overwrote a line of the conversation.
    - No requests: prompt_toolkit asks where the cursor is to reserve the rows below it; an answer
      that arrives after a print reports a row that is no longer free, and the live area is drawn too
      tall. Without them the live area is just as tall as what it shows.
    """
    encoding = sys.stdout.encoding or "utf-8"
    stream = os.fdopen(os.dup(sys.stdout.fileno()), "w", encoding=encoding, errors="replace")
    try:
        output = Terminal(
            stream, lambda: _size(stream.fileno()), term=os.environ.get("TERM"), enable_cpr=False
        )
        try:
            yield output
        finally:
            output.pasting = False
            output.disable_bracketed_paste()
            output.flush()
    finally:
        stream.close()


def _size(fd: int) -> Size:
    try:
        columns, rows = os.get_terminal_size(fd)
    except OSError:
        return Size(rows=24, columns=80)
    return Size(rows=rows or 24, columns=columns or 80)
