"""The extension `UI` of the two modes: on the screen (notices to the scrollback, statuses to the
status line, questions as inline dialogs), and line by line (questions answered None: nobody is
there to ask)."""

from __future__ import annotations

from collections.abc import Sequence

from rein.extensions import Level
from rein.tui._live import Live
from rein.tui._screen import Screen
from rein.tui._scrollback import Scrollback


class LineUI:
    def __init__(self, out: Scrollback, live: Live) -> None:
        self.out = out
        self.live = live

    def notify(self, message: str, level: Level = "info") -> None:
        self.out.line(message, f"class:notice.{level}")

    def set_status(self, key: str, text: str | None) -> None:
        if text is None:
            self.live.statuses.pop(key, None)
        else:
            self.live.statuses[key] = text

    async def select(self, title: str, options: Sequence[str]) -> str | None:
        return None

    async def input(self, title: str, placeholder: str = "") -> str | None:
        return None


class ScreenUI(LineUI):
    def __init__(self, screen: Screen) -> None:
        super().__init__(screen.out, screen.live)
        self.screen = screen

    def set_status(self, key: str, text: str | None) -> None:
        super().set_status(key, text)
        self.screen.invalidate()

    async def select(self, title: str, options: Sequence[str]) -> str | None:
        if not self.screen.accepting():
            return None
        return await self.screen.select(title, options)

    async def input(self, title: str, placeholder: str = "") -> str | None:
        if not self.screen.accepting():
            return None
        return await self.screen.input(title, placeholder)
