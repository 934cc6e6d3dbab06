"""The screen's application on a pipe instead of a terminal: keys are bytes written to the pipe,
the output is discarded, and a test waits on the screen's state (never on a fixed sleep)."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Callable

from prompt_toolkit.application import create_app_session
from prompt_toolkit.history import InMemoryHistory
from prompt_toolkit.input import PipeInput, create_pipe_input
from prompt_toolkit.output import DummyOutput, Output

from rein.ai import Model
from rein.tui._layout import build_app
from rein.tui._screen import Screen
from rein.tui._scrollback import Scrollback
from rein.tui._style import STYLE

MODEL = Model(provider="test", id="model")


@contextlib.asynccontextmanager
async def running_screen(output: Output | None = None) -> AsyncIterator[tuple[Screen, PipeInput]]:
    with create_pipe_input() as pipe, create_app_session(input=pipe, output=output or DummyOutput()):
        screen = Screen(Scrollback(STYLE), InMemoryHistory())
        app = build_app(screen, lambda: MODEL)
        screen.out.attach(app)
        running = asyncio.ensure_future(app.run_async())
        await until(lambda: app.is_running)
        try:
            yield screen, pipe
        finally:
            if not running.done():
                app.exit()
            await running


async def until(test: Callable[[], bool], timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while not test():
        if time.monotonic() > deadline:
            raise AssertionError("the screen never reached the state waited for")
        await asyncio.sleep(0.01)
