"""The extension's timer (the status line, the time limit mid-run): one-shot callbacks on the running
asyncio loop."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Protocol


class Cancellable(Protocol):
    def cancel(self) -> None: ...


Scheduler = Callable[[float, Callable[[], None]], Cancellable]
"""`schedule(delay_seconds, callback)` runs `callback` once after the delay; the result cancels it."""


class _NotScheduled:
    def cancel(self) -> None:
        return None


def call_later(delay: float, callback: Callable[[], None]) -> Cancellable:
    """On the running asyncio loop; without one (a synchronous caller) the callback never runs."""
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        return _NotScheduled()
    return loop.call_later(delay, callback)
