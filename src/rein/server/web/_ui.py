"""The `UI` a server-side run shows itself through: notices become `notice` events, and a question
(`select`, `input`: approval of a tool call, say) becomes a `question` event whose answer arrives by
`POST .../answer`. An abort or the server's shutdown answers every open question with None, which
the asking extension treats as dismissed.
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Callable, Sequence

from rein.ai import JsonValue
from rein.extensions import Level
from rein.server.web._question import shape

Publish = Callable[[dict[str, JsonValue]], None]


class WebUI:
    """A `rein.extensions.UI` over the session's event bus."""

    def __init__(self, publish: Publish) -> None:
        self._publish = publish
        self._open: dict[str, tuple[dict[str, JsonValue], asyncio.Future[str | None]]] = {}

    def notify(self, message: str, level: Level = "info") -> None:
        self._publish({"type": "notice", "level": level, "message": message})

    def set_status(self, key: str, text: str | None) -> None:
        return None  # the page shows the run's state and counters; extension status lines are terminal-only

    async def select(self, title: str, options: Sequence[str]) -> str | None:
        return await self._ask("select", title, list(options), "")

    async def input(self, title: str, placeholder: str = "") -> str | None:
        return await self._ask("input", title, None, placeholder)

    async def _ask(self, kind: str, title: str, options: list[str] | None, placeholder: str) -> str | None:
        question_id = secrets.token_hex(8)
        shown: list[JsonValue] | None = list(options) if options is not None else None
        event: dict[str, JsonValue] = {
            "type": "question", "id": question_id, "kind": kind, "title": title,
            "options": shown, "placeholder": placeholder, "parts": shape(title, options or ()),
        }  # fmt: skip
        future: asyncio.Future[str | None] = asyncio.get_running_loop().create_future()
        self._open[question_id] = (event, future)
        self._publish(event)
        try:
            return await future
        finally:
            self._open.pop(question_id, None)
            self._publish({"type": "answered", "id": question_id})

    @property
    def question(self) -> dict[str, JsonValue] | None:
        """The oldest question waiting for an answer (the page shows it after a reload)."""
        return next(iter(self._open.values()))[0] if self._open else None

    def answer(self, question_id: str, value: str | None) -> bool:
        """Answer an open question; False if `question_id` is unknown or already answered."""
        found = self._open.get(question_id)
        if found is None or found[1].done():
            return False
        found[1].set_result(value)
        return True

    def dismiss_all(self) -> None:
        """Answer every open question with None (an abort, the shutdown)."""
        for _, future in list(self._open.values()):
            if not future.done():
                future.set_result(None)
