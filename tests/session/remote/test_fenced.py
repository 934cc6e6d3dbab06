"""`ServerTransport` and a 409 WRITER_FENCED: sent again after a jittered pause (or the answer's
`Retry-After`) a bounded number of times; other 409s are not. A scripted HTTP server on 127.0.0.1
answers each request in turn and records what arrived."""

from __future__ import annotations

import asyncio
import itertools
import json
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from types import TracebackType

import pytest

from rein.session.remote import ServerError, ServerTransport

Reply = tuple[int, dict[str, object]]
FENCED: Reply = (409, {"error": "the session is being written elsewhere, retry", "code": "WRITER_FENCED"})
SUMMARY: Reply = (200, {"sessionId": "s1", "entryCount": 1, "revision": 1})


@dataclass
class Answer:
    status: int
    body: dict[str, object]
    headers: dict[str, str] = field(default_factory=dict)


class ScriptedServer:
    """Answers the n-th request with `script[n]` (the last one once the script runs out)."""

    def __init__(self, script: Sequence[Answer]) -> None:
        self.script = list(script)
        self.seen: list[tuple[float, str, bytes]] = []
        self.url = ""
        self._server: asyncio.Server | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    async def __aenter__(self) -> ScriptedServer:
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        self.url = f"http://127.0.0.1:{self._server.sockets[0].getsockname()[1]}"
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        assert self._server is not None
        self._server.close()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        await self._server.wait_closed()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._tasks.add(task)
        try:
            await self._answer(reader, writer)
        except (ConnectionError, asyncio.IncompleteReadError, asyncio.CancelledError):
            pass  # the client closed its connection, or the server is closing
        finally:
            writer.close()
            self._tasks.discard(task)

    async def _answer(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while True:  # keep-alive: one connection may carry every request
            head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1")
            length = next(
                (
                    int(line.split(":", 1)[1])
                    for line in head.split("\r\n")
                    if line.lower().startswith("content-length:")
                ),
                0,
            )
            body = await reader.readexactly(length)
            self.seen.append((time.monotonic(), head.split(" ", 2)[1], body))
            answer = self.script[min(len(self.seen), len(self.script)) - 1]
            text = json.dumps(answer.body).encode()
            extra = "".join(f"{name}: {value}\r\n" for name, value in answer.headers.items())
            writer.write(
                f"HTTP/1.1 {answer.status} X\r\ncontent-type: application/json\r\n{extra}"
                f"content-length: {len(text)}\r\n\r\n".encode()
                + text
            )
            await writer.drain()


def answers(*pairs: Reply, retry_after: str | None = None) -> list[Answer]:
    headers = {"retry-after": retry_after} if retry_after is not None else {}
    return [Answer(status, body, headers if status == 409 else {}) for status, body in pairs]


async def post(server: ScriptedServer, *, backoff: float, fenced_retries: int = 5) -> dict[str, object]:
    transport = ServerTransport(server.url, backoff=backoff, fenced_retries=fenced_retries)
    try:
        return await transport.post_json("/api/session/tree/append", {"sessionId": "s1", "entries": []})
    finally:
        await transport.aclose()


def test_a_fenced_write_is_sent_again_until_it_goes_through() -> None:
    async def go() -> None:
        async with ScriptedServer(answers(FENCED, FENCED, SUMMARY)) as server:
            assert await post(server, backoff=0.01) == SUMMARY[1]
        assert len(server.seen) == 3
        assert {path for _, path, _ in server.seen} == {"/api/session/tree/append"}
        assert len({body for _, _, body in server.seen}) == 1, "the same body each time"

    asyncio.run(go())


def test_fenced_retries_are_bounded_then_the_409_is_the_error() -> None:
    async def go() -> None:
        async with ScriptedServer(answers(FENCED)) as server:
            with pytest.raises(ServerError) as caught:
                await post(server, backoff=0.001, fenced_retries=3)
        assert (caught.value.status, caught.value.code) == (409, "WRITER_FENCED")
        assert len(server.seen) == 4

    asyncio.run(go())


def test_another_409_is_not_sent_again() -> None:
    running: Reply = (409, {"error": "a run is in progress", "code": "RUN_IN_PROGRESS"})

    async def go() -> None:
        async with ScriptedServer(answers(running, SUMMARY)) as server:
            with pytest.raises(ServerError) as caught:
                await post(server, backoff=0.001)
        assert caught.value.code == "RUN_IN_PROGRESS"
        assert len(server.seen) == 1

    asyncio.run(go())


def test_retry_after_sets_the_pause() -> None:
    async def go() -> None:
        async with ScriptedServer(answers(FENCED, SUMMARY, retry_after="1")) as server:
            assert await post(server, backoff=0.001) == SUMMARY[1]
        (first, _, _), (second, _, _) = server.seen
        assert second - first >= 0.95, "the pause the server asked for, not the 1 ms backoff"

    asyncio.run(go())


def test_the_pauses_are_jittered() -> None:
    """Two clients refused at the same moment do not come back at the same moment: each pause is drawn
    from [0, backoff * 2**n], so eight pauses of one client are not all alike."""

    async def go() -> None:
        async with ScriptedServer(answers(*[FENCED] * 8, SUMMARY)) as server:
            await post(server, backoff=0.005, fenced_retries=8)
        times = [at for at, _, _ in server.seen]
        gaps = [later - earlier for earlier, later in itertools.pairwise(times)]
        assert len(gaps) == 8
        assert max(gaps[:3]) <= 0.005 * 4 + 0.05, "the first pauses stay within backoff * 2**n"
        ratios = [gap / (0.005 * 2**n) for n, gap in enumerate(gaps)]
        assert max(ratios) - min(ratios) > 0.1, f"pauses in fixed steps: {gaps}"

    asyncio.run(go())


def test_a_503_waits_the_retry_after_the_server_asks_for() -> None:
    """A server whose database is away answers 503 with `Retry-After`: the client waits that long, not
    its own backoff, then sends the request again."""
    away = Answer(503, {"error": "store unavailable, retry", "code": "INTERNAL_ERROR"}, {"retry-after": "1"})

    async def go() -> None:
        async with ScriptedServer([away, Answer(*SUMMARY)]) as server:
            assert await post(server, backoff=0.001) == SUMMARY[1]
        (first, _, _), (second, _, _) = server.seen
        assert second - first >= 0.95, "the pause the server asked for, not the 1 ms backoff"

    asyncio.run(go())
