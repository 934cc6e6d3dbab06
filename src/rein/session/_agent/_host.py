"""The extensions' host: their registry, the runner that calls their handlers, and the session's notices.

A notice (`ttsr_triggered`, `compaction`, an extension's error, ...) reaches the session's listeners at
once and the extensions' handlers without being waited for: it may be raised from the stream hook, which
must not block the stream (fire-and-forget, as in pi). A run waits for those handlers (`settle`) before
it returns.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from rein.extensions import UI, ExtensionAPI, ExtensionContext, ExtensionRunner, Factory, Host, Registry

SessionListener = Callable[[str, object], None]
"""Told of session-level notices (`ttsr_triggered`, extension errors, ...): (name, payload)."""


class ExtensionHost:
    def __init__(self, ui: UI, context: Callable[[], ExtensionContext]) -> None:
        self.ui = ui
        self.registry = Registry()
        self.runner = ExtensionRunner(self.registry, context, self._failed)
        self.listeners: list[SessionListener] = []
        self._background: set[asyncio.Task[None]] = set()

    def load(self, name: str, factory: Factory, host: Host) -> None:
        """Run an extension's `extension(rein)`; a raise is reported and the others still load."""
        try:
            factory(ExtensionAPI(name, self.registry, host))
        except Exception as error:
            self.ui.notify(f"extension {name} failed to load: {error!r}", "error")

    def notice(self, event: str, payload: object) -> None:
        """Tell the session's listeners (the UI, a server's relay), now."""
        for listener in self.listeners:
            listener(event, payload)

    def notify_soon(self, event: str, payload: object) -> None:
        """Tell `event`'s handlers in a background task (needs a running event loop)."""
        if self.runner.has(event):
            task = asyncio.get_running_loop().create_task(self.runner.notify(event, payload))
            self._background.add(task)
            task.add_done_callback(self._background.discard)

    async def settle(self) -> None:
        """Wait for the handlers `notify_soon` started."""
        await asyncio.gather(*self._background)

    def _failed(self, name: str, event: str, error: BaseException) -> None:
        self.ui.notify(f"extension {name} failed on {event}: {error!r}", "warning")
        self.notice("extension_error", (name, event, error))
