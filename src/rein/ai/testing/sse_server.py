"""A local HTTP server that replays scripted SSE replies, for testing providers without a network.

    async with SseServer() as server:
        server.push(Reply(steps=anthropic_reply(TextContent(text="hi"))))
        model = Model(provider="anthropic", id="claude-test", base_url=server.url)
        ...
        assert server.requests[0].body["model"] == "claude-test"

It listens on 127.0.0.1 on a free port and answers each request with the next queued `Reply` (or, given
`route`, with what `route(request)` returns: a mock of a whole API for a real client): a JSON
body (an HTTP error before streaming), or a chunked `text/event-stream` built from steps: events,
raw bytes, pauses, an abrupt cut, or a hang that lasts until the client goes away. It records every
request and counts the replies a client abandoned before they ended (`disconnects`), which is how a
test sees that an abort closed the connection. Standard library only.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from http import HTTPStatus
from types import TracebackType

from rein.ai._messages import JsonValue


@dataclass(frozen=True, slots=True, kw_only=True)
class Event:
    """One SSE event; `data` that is not a string is written as JSON."""

    data: JsonValue
    event: str | None = None

    def encode(self) -> bytes:
        data = self.data if isinstance(self.data, str) else json.dumps(self.data)
        head = f"event: {self.event}\n" if self.event else ""
        return f"{head}data: {data}\n\n".encode()


@dataclass(frozen=True, slots=True, kw_only=True)
class Raw:
    """Bytes written as they are, e.g. a malformed event."""

    data: bytes


@dataclass(frozen=True, slots=True, kw_only=True)
class Pause:
    seconds: float


@dataclass(frozen=True, slots=True)
class Hang:
    """Send nothing more; wait until the client disconnects."""


@dataclass(frozen=True, slots=True)
class Cut:
    """Drop the connection mid-body, without ending the chunked stream."""


Step = Event | Raw | Pause | Hang | Cut


@dataclass(frozen=True, slots=True, kw_only=True)
class Reply:
    """A scripted answer: `body` (JSON, any status) or a stream of `steps`."""

    steps: Sequence[Step] = ()
    status: int = 200
    body: JsonValue = None
    headers: Mapping[str, str] = field(default_factory=dict)
    hang_before_headers: bool = False


@dataclass(frozen=True, slots=True, kw_only=True)
class Request:
    """A request as the server received it; header names are lower case, `body` is decoded JSON."""

    method: str
    path: str
    headers: Mapping[str, str]
    body: JsonValue


class SseServer:
    """See the module docstring."""

    def __init__(
        self, replies: Iterable[Reply] = (), *, route: Callable[[Request], Reply] | None = None
    ) -> None:
        self._replies: deque[Reply] = deque(replies)
        self._route = route
        self._server: asyncio.Server | None = None
        self._handlers: set[asyncio.Task[None]] = set()
        self._changed = asyncio.Condition()
        self.requests: list[Request] = []
        self.disconnects = 0
        """Replies the client left before the server finished them."""

    @property
    def url(self) -> str:
        assert self._server is not None, "start the server first"
        host, port = self._server.sockets[0].getsockname()[:2]
        return f"http://{host}:{port}"

    def push(self, *replies: Reply) -> None:
        self._replies.extend(replies)

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", 0)

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
        for task in list(self._handlers):
            task.cancel()
        await asyncio.gather(*self._handlers, return_exceptions=True)
        if self._server is not None:
            await self._server.wait_closed()

    async def __aenter__(self) -> SseServer:
        await self.start()
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.close()

    async def wait_requests(self, count: int = 1, timeout: float = 5.0) -> None:
        """Wait until `count` requests have arrived; TimeoutError otherwise."""
        async with asyncio.timeout(timeout), self._changed:
            await self._changed.wait_for(lambda: len(self.requests) >= count)

    async def wait_disconnects(self, count: int = 1, timeout: float = 5.0) -> None:
        """Wait until `count` replies were abandoned by the client; TimeoutError otherwise."""
        async with asyncio.timeout(timeout), self._changed:
            await self._changed.wait_for(lambda: self.disconnects >= count)

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._handlers.add(task)
        try:
            request = await read_request(reader)
            async with self._changed:
                self.requests.append(request)
                self._changed.notify_all()
            if self._route is not None:
                reply = self._route(request)
            else:
                reply = self._replies.popleft() if self._replies else _NO_REPLY
            if not await self._answer(reply, reader, writer):
                async with self._changed:
                    self.disconnects += 1
                    self._changed.notify_all()
        except (ConnectionError, asyncio.IncompleteReadError, ValueError):
            pass  # the client went away mid-request or sent something that is not HTTP
        finally:
            self._handlers.discard(task)
            writer.close()
            with contextlib.suppress(ConnectionError):
                await writer.wait_closed()

    async def _answer(self, reply: Reply, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> bool:
        """Send `reply`; False when the client left before it was complete."""
        if reply.hang_before_headers:
            return await _idle(reader, None)
        streaming = reply.body is None
        content = b"" if streaming else json.dumps(reply.body).encode()
        headers = {
            "content-type": "text/event-stream" if streaming else "application/json",
            "connection": "close",
            **({"transfer-encoding": "chunked"} if streaming else {"content-length": str(len(content))}),
            **reply.headers,
        }
        phrase = HTTPStatus(reply.status).phrase if reply.status in _PHRASES else "Unknown"  # e.g. 529
        head = f"HTTP/1.1 {reply.status} {phrase}\r\n"
        head += "".join(f"{name}: {value}\r\n" for name, value in headers.items())
        writer.write(head.encode() + b"\r\n" + content)
        try:
            for step in reply.steps if streaming else ():
                match step:
                    case Event() | Raw():
                        data = step.encode() if isinstance(step, Event) else step.data
                        writer.write(b"%x\r\n%s\r\n" % (len(data), data))
                        await writer.drain()
                    case Pause():
                        if not await _idle(reader, step.seconds):
                            return False
                    case Hang():
                        return await _idle(reader, None)
                    case Cut():
                        writer.transport.abort()
                        return True
            if streaming:
                writer.write(b"0\r\n\r\n")
            await writer.drain()
        except ConnectionError:
            return False
        return True


_PHRASES = frozenset(status.value for status in HTTPStatus)
_NO_REPLY = Reply(
    status=500, body={"error": {"type": "test_error", "message": "the SSE server has no reply left"}}
)


async def _idle(reader: asyncio.StreamReader, seconds: float | None) -> bool:
    """Wait `seconds` (None: until the client leaves); False as soon as the client disconnects."""
    try:
        async with asyncio.timeout(seconds):
            while await reader.read(1024):
                pass
    except TimeoutError:
        return True
    except ConnectionError:
        pass
    return False


async def read_request(reader: asyncio.StreamReader) -> Request:
    """One HTTP/1.1 request off `reader`: head, then a body by content-length or chunked, JSON-decoded."""
    head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1")
    request_line, *lines = head.split("\r\n")
    method, path, _ = request_line.split(" ", 2)
    headers = {}
    for line in lines:
        if line:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
    if headers.get("transfer-encoding", "").lower() == "chunked":
        raw = b""
        while size := int((await reader.readuntil(b"\r\n")).strip() or b"0", 16):
            raw += (await reader.readexactly(size + 2))[:-2]
        await reader.readuntil(b"\r\n")
    else:
        raw = await reader.readexactly(int(headers.get("content-length", "0")))
    body: JsonValue = json.loads(raw) if raw else None
    return Request(method=method, path=path, headers=headers, body=body)
