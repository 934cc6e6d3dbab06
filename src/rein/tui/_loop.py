"""The interactive session on the screen: the application runs for the whole session, so keys are
read (and typed ahead) while a run streams; prompts come from the screen's queue, one run at a
time; the session is shut down before the screen closes."""

from __future__ import annotations

import asyncio
import contextlib
import signal
from collections.abc import Callable, Iterator
from pathlib import Path

from prompt_toolkit.application import Application
from prompt_toolkit.output import Output

from rein.extensions import UI
from rein.session import AgentSession
from rein.tui._complete import EditorCompleter
from rein.tui._events import EventView
from rein.tui._history import HistoryFile
from rein.tui._layout import build_app
from rein.tui._replay import context_tokens, echo
from rein.tui._screen import Screen
from rein.tui._scrollback import Scrollback
from rein.tui._session import banner, quit_line, run_prompt, show_session, switched, wants_quit
from rein.tui._style import STYLE
from rein.tui._terminal import terminal_output
from rein.tui._ui import ScreenUI

HISTORY = Path(".rein") / "history"
"""Under the home directory."""


async def run_screen(make_session: Callable[[UI], AgentSession], first: str | None) -> int:
    out = Scrollback(STYLE)
    screen = Screen(out, HistoryFile(Path.home() / HISTORY))
    with _sigint(screen), terminal_output() as output:
        session = make_session(ScreenUI(screen))
        code = await _run(screen, session, first, output)
    if len(session.store.tree):  # a session with nothing in it is not worth coming back to
        out.line(quit_line(session), "class:banner")
    return code


async def _run(screen: Screen, session: AgentSession, first: str | None, output: Output) -> int:
    out = screen.out
    screen.completer = EditorCompleter(lambda: session.registry.commands, lambda: session.cwd)
    screen.abort_run = session.abort
    view = EventView(
        screen.live,
        out,
        screen.invalidate,
        abort=session.abort,
        switched=lambda store: switched(out, screen.live, session, store),
        context=lambda: context_tokens(session),
    )
    session.subscribe(view.event)
    session.subscribe_notices(view.notice)
    app = build_app(screen, lambda: session.model, output=output)
    out.attach(app)
    with _errors_as_lines(out):
        shown = asyncio.Event()
        app.after_render += lambda _: shown.set()
        running = asyncio.ensure_future(app.run_async(set_exception_handler=False))

        def gone(_: object) -> None:
            """The screen went away (the terminal closed, or a bug): stop waiting and asking."""
            shown.set()
            screen.prompts.put_nowait(None)

        running.add_done_callback(gone)
        try:
            # The banner says "ready": the terminal must be in raw mode by then, or keys typed at
            # once would be echoed by the terminal.
            await shown.wait()
            out.line(banner(session.cwd), "class:banner")
            show_session(out, session, "resumed")
            await session.start()
            screen.live.tokens = context_tokens(session)
            await _converse(screen, session, first)
        finally:
            screen.exiting = True
            screen.dismiss()
            try:
                await session.shutdown()
            finally:
                await _close(app, running, out)
    return 0


async def _converse(screen: Screen, session: AgentSession, first: str | None) -> None:
    """Prompts from the screen, one run at a time, until the person quits; prompts queued during a
    run go next, in order."""
    if first:
        screen.prompts.put_nowait(first)
    while not screen.exiting:
        text = await screen.prompts.get()
        if text is None or wants_quit(session, text):
            return
        screen.out.write(echo(text))
        screen.invalidate()
        await run_prompt(session, screen.out, screen.live, text)
        if session.quit_requested:
            return
        for queued in screen.live.queued:
            screen.prompts.put_nowait(queued)
        screen.live.queued.clear()


async def _close(app: Application[None], running: asyncio.Future[None], out: Scrollback) -> None:
    out.flush()
    if app.future is not None and not app.future.done():
        app.exit()
    with contextlib.suppress(Exception):
        await running
    out.attach(None)


@contextlib.contextmanager
def _errors_as_lines(out: Scrollback) -> Iterator[None]:
    """An exception nobody awaited (a callback, a task) is shown as one red line, not a traceback."""
    loop = asyncio.get_running_loop()
    previous = loop.get_exception_handler()

    def handle(loop: asyncio.AbstractEventLoop, context: dict[str, object]) -> None:
        error = context.get("exception")
        out.line(f"[error] {error!r}" if error else f"[error] {context.get('message')}", "class:error")

    loop.set_exception_handler(handle)
    try:
        yield
    finally:
        loop.set_exception_handler(previous)


@contextlib.contextmanager
def _sigint(screen: Screen) -> Iterator[None]:
    """A SIGINT (Ctrl-C while the terminal is briefly not in raw mode, or `kill -INT`) is a Ctrl-C
    key, never a KeyboardInterrupt. The application installs its own while it runs."""
    loop = asyncio.get_running_loop()
    try:
        loop.add_signal_handler(signal.SIGINT, screen.interrupt)
    except (NotImplementedError, RuntimeError, ValueError):  # not the main thread, or no signals
        yield
        return
    try:
        yield
    finally:
        with contextlib.suppress(Exception):
            loop.remove_signal_handler(signal.SIGINT)
