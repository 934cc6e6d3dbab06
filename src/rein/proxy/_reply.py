"""The client's side of one exchange over ASGI: the response starts with the first byte released, so
an upstream failure before any text was shown can still reach the client as upstream's own status."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, MutableMapping

Message = MutableMapping[str, object]
Send = Callable[[Message], Awaitable[None]]
Headers = list[tuple[bytes, bytes]]


class ClientReply:
    def __init__(self, send: Send, extra: Headers) -> None:
        self._send = send
        self._extra = extra
        self._head: tuple[int, Headers] = (200, [(b"content-type", b"text/event-stream")])
        self.started = False
        self.finished = False

    @property
    def status(self) -> int | None:
        """The HTTP status sent (None before the response began)."""
        return self._head[0] if self.started else None

    def prepare(self, status: int, headers: Headers) -> None:
        """The status and headers to send with the first byte (upstream's, once its stream began)."""
        self._head = (status, headers)

    async def body(self, data: bytes) -> None:
        if not data:
            return
        await self._start()
        await self._send({"type": "http.response.body", "body": data, "more_body": True})

    async def end(self, data: bytes = b"") -> None:
        await self._start()
        self.finished = True
        await self._send({"type": "http.response.body", "body": data, "more_body": False})

    async def whole(self, status: int, headers: Headers, data: bytes) -> None:
        """A complete answer in one go (non-streamed, or upstream failed before anything was sent)."""
        self._head = (status, [*headers, (b"content-length", str(len(data)).encode())])
        await self.end(data)

    async def _start(self) -> None:
        if not self.started:
            self.started = True
            status, headers = self._head
            headers = [*headers, *self._extra]
            await self._send({"type": "http.response.start", "status": status, "headers": headers})
