"""The local SSE server (`rein.ai.testing.SseServer`) on its own event loop in a thread, so a test
can drive `rein` in a terminal while the server answers it with scripted replies."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine, Mapping, Sequence
from types import TracebackType
from typing import TypeVar

from rein.ai import TextContent, ThinkingContent, ToolCall
from rein.ai.testing import Pause, Reply, Request, SseServer, Step, chat_reply

T = TypeVar("T")


class ServerThread:
    def __init__(self, *replies: Reply) -> None:
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._server = SseServer(replies)

    def __enter__(self) -> ServerThread:
        self._thread.start()
        self._call(self._server.start())
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._call(self._server.close())
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=10)
        self._loop.close()

    def _call(self, coroutine: Coroutine[object, object, T]) -> T:
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop).result(timeout=10)

    @property
    def base_url(self) -> str:
        return self._server.url + "/v1"

    def args(self) -> tuple[str, ...]:
        """`rein` options that talk to this server."""
        return ("--provider", "openai", "--base-url", self.base_url, "--model", "test-model")

    def push(self, *replies: Reply) -> None:
        self._loop.call_soon_threadsafe(self._server.push, *replies)

    @property
    def requests(self) -> list[Request]:
        return list(self._server.requests)

    @property
    def disconnects(self) -> int:
        return self._server.disconnects

    def messages(self, request: int) -> list[Mapping[str, object]]:
        """The chat messages of one request (-1: the latest)."""
        body = self.requests[request].body
        found = body.get("messages") if isinstance(body, dict) else None
        return [m for m in found if isinstance(m, dict)] if isinstance(found, list) else []

    def tool_results(self, request: int) -> list[str]:
        return [str(m.get("content")) for m in self.messages(request) if m.get("role") == "tool"]


def text(value: str, *, usage: tuple[int, int, int] = (20, 10, 0)) -> Reply:
    return Reply(steps=chat_reply(TextContent(text=value), usage=usage))


def slow_text(value: str, *, pause: float, chunk: int = 4) -> Reply:
    """`value` in chunks with a pause before each: a reply that takes a while."""
    steps: list[Step] = []
    for event in chat_reply(TextContent(text=value), chunk=chunk):
        steps.extend((Pause(seconds=pause), event))
    return Reply(steps=steps)


def thinking_then_text(thought: str, value: str) -> Reply:
    return Reply(steps=chat_reply(ThinkingContent(thinking=thought), TextContent(text=value)))


def tool_call(name: str, arguments: str, *, call_id: str = "call_1", before: str = "") -> Reply:
    blocks: Sequence[TextContent | ToolCall] = [
        *([TextContent(text=before)] if before else []),
        ToolCall(id=call_id, name=name, raw_arguments=arguments),
    ]
    return Reply(steps=chat_reply(*blocks, finish_reason="tool_calls"))
