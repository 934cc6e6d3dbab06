"""The mock model APIs' common part: an `SseServer(route=...)` on an event loop of its own thread, so a
real host process can talk to it while the test blocks on `subprocess.run`."""

from __future__ import annotations

import asyncio
import threading
from types import TracebackType
from typing import Self

from rein.ai.testing import Reply, Request, SseServer


class ThreadedApi:
    """Subclasses answer each request in `_route`; `unexpected` collects requests they cannot place."""

    def __init__(self) -> None:
        self.unexpected: list[Request] = []
        self._loop = asyncio.new_event_loop()
        self._server = SseServer(route=self._route)
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)

    def _route(self, request: Request) -> Reply:
        raise NotImplementedError

    def __enter__(self) -> Self:
        self._thread.start()
        asyncio.run_coroutine_threadsafe(self._server.start(), self._loop).result(timeout=10)
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        asyncio.run_coroutine_threadsafe(self._server.close(), self._loop).result(timeout=10)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=10)
        self._loop.close()

    @property
    def url(self) -> str:
        return self._server.url

    @property
    def requests(self) -> list[Request]:
        return list(self._server.requests)
