"""A TCP proxy on 127.0.0.1 in front of a real `rein serve`, for fault tests: it records the request
lines that pass, can cut a `/api/stream` response after N bytes (a dropped connection), can answer
everything with an HTML page (a misconfigured proxy or captive portal), and can call a hook before a
request goes on (to kill the server mid-upload)."""

from __future__ import annotations

import asyncio
import contextlib
import re
from collections.abc import Callable
from types import TracebackType
from urllib.parse import urlsplit

REQUEST_LINE = re.compile(rb"(GET|POST) (/\S*) HTTP/1\.1\r\n")
HTML = b"<html><head><title>Gateway</title></head><body>Please sign in to continue.</body></html>"


class TcpProxy:
    def __init__(self, upstream: str) -> None:
        parts = urlsplit(upstream)
        self.host, self.port = parts.hostname or "127.0.0.1", parts.port or 80
        self.cut_stream_after: int | None = None
        self.html = False
        self.before: Callable[[str], None] | None = None
        self.requests: list[str] = []
        self.url = ""
        self._server: asyncio.Server | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    def count(self, path_prefix: str) -> int:
        return sum(1 for line in self.requests if line.split(" ", 1)[1].startswith(path_prefix))

    async def __aenter__(self) -> TcpProxy:
        self._server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        port = self._server.sockets[0].getsockname()[1]
        self.url = f"http://127.0.0.1:{port}"
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
            if self.html:
                await self._answer_html(reader, writer)
                return
            try:
                up_reader, up_writer = await asyncio.open_connection(self.host, self.port)
            except OSError:
                return
            streaming = asyncio.Event()
            downstream = asyncio.create_task(self._down(up_reader, writer, streaming))
            try:
                while data := await reader.read(65536):
                    for match in REQUEST_LINE.finditer(data):
                        line = f"{match.group(1).decode()} {match.group(2).decode()}"
                        self.requests.append(line)
                        if self.before is not None:
                            self.before(line)
                        if match.group(2).startswith(b"/api/stream"):
                            streaming.set()
                    up_writer.write(data)
                    await up_writer.drain()
            except (ConnectionError, OSError):
                pass
            finally:
                up_writer.close()  # the client is gone: so is its upstream connection
                downstream.cancel()
                await asyncio.gather(downstream, return_exceptions=True)
        except asyncio.CancelledError:
            pass  # the proxy is closing; asyncio logs a cancelled connection callback as an error
        finally:
            writer.close()
            self._tasks.discard(task)

    async def _down(
        self, up: asyncio.StreamReader, writer: asyncio.StreamWriter, streaming: asyncio.Event
    ) -> None:
        sent = 0
        try:
            while data := await up.read(256):
                limit = self.cut_stream_after
                if streaming.is_set() and limit is not None:
                    if sent + len(data) >= limit:
                        writer.write(data[: max(0, limit - sent)])
                        await writer.drain()
                        writer.transport.abort()  # the connection drops mid-reply
                        return
                    sent += len(data)
                writer.write(data)
                await writer.drain()
        except (ConnectionError, OSError):
            pass
        finally:
            writer.close()  # the client sees the end of the answer; _handle waits for the close

    async def _answer_html(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(ConnectionError, OSError):
            head = await reader.readuntil(b"\r\n\r\n")
            match = REQUEST_LINE.match(head)
            if match:
                self.requests.append(f"{match.group(1).decode()} {match.group(2).decode()}")
            writer.write(
                b"HTTP/1.1 200 OK\r\ncontent-type: text/html\r\nconnection: close\r\n"
                + f"content-length: {len(HTML)}\r\n\r\n".encode()
                + HTML
            )
            await writer.drain()
