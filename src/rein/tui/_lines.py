"""The interactive session when stdin or stdout is not a terminal (a pipe, a file, `TERM=dumb`):
each line of stdin is a prompt or a `/command`, run in order; the output is the same scrollback
text without the live area. Questions are answered None (nobody is there to ask), so approvals
deny. EOF ends the session with 0; Ctrl-C aborts the run and ends it with 130."""

from __future__ import annotations

import asyncio
import contextlib
import signal
import sys
import threading
from collections.abc import Callable

from rein.extensions import UI
from rein.session import AgentSession
from rein.tui._events import EventView
from rein.tui._live import Live
from rein.tui._replay import context_tokens, echo
from rein.tui._scrollback import Scrollback
from rein.tui._session import banner, quit_line, run_prompt, show_session, switched, wants_quit
from rein.tui._style import STYLE
from rein.tui._ui import LineUI

INTERRUPTED = 130


async def run_lines(make_session: Callable[[UI], AgentSession], first: str | None) -> int:
    out = Scrollback(STYLE)
    live = Live()
    session = make_session(LineUI(out, live))
    view = EventView(
        live,
        out,
        lambda: None,
        abort=session.abort,
        switched=lambda store: switched(out, live, session, store),
        context=lambda: context_tokens(session),
        keep=0,
    )
    session.subscribe(view.event)
    session.subscribe_notices(view.notice)
    loop = asyncio.get_running_loop()
    lines: asyncio.Queue[str | None] = asyncio.Queue()
    interrupted = False

    def interrupt() -> None:
        nonlocal interrupted
        interrupted = True
        session.abort()
        lines.put_nowait(None)

    with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
        loop.add_signal_handler(signal.SIGINT, interrupt)
    # A daemon thread: a blocked read of a terminal or pipe must not keep the process alive at exit.
    threading.Thread(target=_read_lines, args=(loop, lines), daemon=True).start()
    try:
        print(banner(session.cwd) + " (stdin is not a terminal: one prompt per line)", file=sys.stderr)
        show_session(out, session, "resumed")
        await session.start()
        pending = first
        while not interrupted:
            text = pending if pending is not None else await lines.get()
            pending = None
            if text is None or wants_quit(session, text.strip()):
                break
            if not text.strip():
                continue
            out.write(echo(text.strip()))
            await run_prompt(session, out, live, text.strip())
            if session.quit_requested:
                break
    finally:
        await session.shutdown()
        with contextlib.suppress(Exception):
            loop.remove_signal_handler(signal.SIGINT)
    if len(session.store.tree):  # a session with nothing in it is not worth coming back to
        print(quit_line(session), file=sys.stderr)
    return INTERRUPTED if interrupted else 0


def _read_lines(loop: asyncio.AbstractEventLoop, lines: asyncio.Queue[str | None]) -> None:
    try:
        for line in sys.stdin:
            loop.call_soon_threadsafe(lines.put_nowait, line)
    except (OSError, ValueError, UnicodeDecodeError):
        pass
    with contextlib.suppress(RuntimeError):  # the loop already closed
        loop.call_soon_threadsafe(lines.put_nowait, None)
