"""The upstream connection pool: httpx2's own, over connections read straight from asyncio.

httpx2 reads through httpcore2's anyio backend, which on every read opens a cancel scope with a timer,
yields once to the event loop (one more turn, one more `epoll_wait`) and maps exceptions; and whose
check of an idle keep-alive connection (run on every idle connection each time a request starts or
ends) rebuilds anyio's table of socket attributes, calling `getpeername`. Per chunk relayed that was
most of what the proxy spent beyond its own work. Here a connection is an asyncio protocol with a
buffer: a read returns what arrived, and waits (under `asyncio.timeout`) only when nothing has.
Errors are httpcore2's, as its backends raise them, so httpx2 maps them as it always does.
"""

from __future__ import annotations

import asyncio
import select
import ssl
from collections.abc import Iterable
from typing import Protocol

import httpcore2
import httpx2
from httpcore2._types import SOCKET_OPTION  # the backend interface's own type; no public alias

HIGH_WATER = 256 * 1024
"""Bytes buffered before the connection stops reading the socket (until the reader catches up)."""
HAPPY_EYEBALLS = 0.25
"""Seconds before the next address is tried alongside (RFC 8305's delay; anyio's too)."""


class _Socket(Protocol):
    """What the idle check needs of a socket (asyncio gives a `TransportSocket`)."""

    def fileno(self) -> int: ...


class _Connection(asyncio.Protocol):
    """The asyncio side of one connection: what arrived, and who waits for it or for the writes."""

    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self.buffer = bytearray()
        self.ended = False
        self.lost: Exception | None = None
        self._reader: asyncio.Future[None] | None = None
        self._writers: list[asyncio.Future[None]] = []
        self._paused = False
        self._writing_paused = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        if len(self.buffer) > HIGH_WATER and self.transport is not None and not self._paused:
            self._paused = True
            self.transport.pause_reading()
        self._wake()

    def eof_received(self) -> bool:
        self.ended = True
        self._wake()
        return False  # close the transport: HTTP/1.1 has nothing to say after the server's end

    def connection_lost(self, exc: Exception | None) -> None:
        self.ended = True
        self.lost = exc
        self._wake()
        self.resume_writing()

    def pause_writing(self) -> None:
        self._writing_paused = True

    def resume_writing(self) -> None:
        self._writing_paused = False
        for waiter in self._writers:
            if not waiter.done():
                waiter.set_result(None)
        self._writers.clear()

    def take(self, max_bytes: int) -> bytes:
        data = bytes(self.buffer[:max_bytes])
        del self.buffer[:max_bytes]
        if self._paused and len(self.buffer) <= HIGH_WATER // 4 and self.transport is not None:
            self._paused = False
            self.transport.resume_reading()
        return data

    async def readable(self) -> None:
        """Until there is something to read, or the end."""
        self._reader = asyncio.get_running_loop().create_future()
        try:
            await self._reader
        finally:
            self._reader = None

    async def drained(self) -> None:
        if self._writing_paused:
            waiter = asyncio.get_running_loop().create_future()
            self._writers.append(waiter)
            await waiter

    def _wake(self) -> None:
        if self._reader is not None and not self._reader.done():
            self._reader.set_result(None)


class _Stream(httpcore2.AsyncNetworkStream):
    def __init__(self, connection: _Connection) -> None:
        assert connection.transport is not None
        self._connection = connection
        self._transport = connection.transport

    async def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        connection = self._connection
        if not connection.buffer and not connection.ended:
            try:
                async with asyncio.timeout(timeout):
                    await connection.readable()
            except TimeoutError as error:
                raise httpcore2.ReadTimeout(str(error)) from error
        if connection.buffer:
            return connection.take(max_bytes)
        if connection.lost is not None:
            raise httpcore2.ReadError(str(connection.lost)) from connection.lost
        return b""

    async def write(self, buffer: bytes, timeout: float | None = None) -> None:
        if not buffer:
            return
        if self._transport.is_closing():
            raise httpcore2.WriteError("the connection is closed")
        self._transport.write(buffer)
        try:
            async with asyncio.timeout(timeout):
                await self._connection.drained()
        except TimeoutError as error:
            raise httpcore2.WriteTimeout(str(error)) from error
        if self._connection.lost is not None:
            raise httpcore2.WriteError(str(self._connection.lost)) from self._connection.lost

    async def aclose(self) -> None:
        self._transport.close()

    async def start_tls(
        self, ssl_context: ssl.SSLContext, server_hostname: str | None = None, timeout: float | None = None
    ) -> httpcore2.AsyncNetworkStream:
        loop = asyncio.get_running_loop()
        try:
            async with asyncio.timeout(timeout):
                transport = await loop.start_tls(
                    self._transport, self._connection, ssl_context, server_hostname=server_hostname
                )
        except TimeoutError as error:
            self._transport.close()
            raise httpcore2.ConnectTimeout(str(error)) from error
        except (OSError, ssl.SSLError) as error:
            self._transport.close()
            raise httpcore2.ConnectError(str(error)) from error
        if not isinstance(transport, asyncio.Transport):
            raise httpcore2.ConnectError("TLS could not start on the connection")
        self._connection.transport = transport
        return _Stream(self._connection)

    def get_extra_info(self, info: str) -> object:
        transport = self._transport
        if info == "is_readable":
            found = transport.get_extra_info("socket")
            sock = found if callable(getattr(found, "fileno", None)) else None
            return bool(self._connection.buffer) or self._connection.ended or _readable(sock)
        if info == "ssl_object":
            return transport.get_extra_info("ssl_object")
        if info == "client_addr":
            return transport.get_extra_info("sockname")
        if info == "server_addr":
            return transport.get_extra_info("peername")
        if info == "socket":
            return transport.get_extra_info("socket")
        return None


class _Backend(httpcore2.AsyncNetworkBackend):
    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[SOCKET_OPTION] | None = None,
    ) -> httpcore2.AsyncNetworkStream:
        loop = asyncio.get_running_loop()
        local = (local_address, 0) if local_address is not None else None
        try:
            async with asyncio.timeout(timeout):
                transport, connection = await loop.create_connection(
                    _Connection, host, port, local_addr=local, happy_eyeballs_delay=HAPPY_EYEBALLS
                )
        except TimeoutError as error:
            raise httpcore2.ConnectTimeout(str(error)) from error
        except OSError as error:
            raise httpcore2.ConnectError(str(error)) from error
        return _opened(transport, connection, socket_options)

    async def connect_unix_socket(
        self, path: str, timeout: float | None = None, socket_options: Iterable[SOCKET_OPTION] | None = None
    ) -> httpcore2.AsyncNetworkStream:
        loop = asyncio.get_running_loop()
        try:
            async with asyncio.timeout(timeout):
                transport, connection = await loop.create_unix_connection(_Connection, path)
        except TimeoutError as error:
            raise httpcore2.ConnectTimeout(str(error)) from error
        except OSError as error:
            raise httpcore2.ConnectError(str(error)) from error
        return _opened(transport, connection, socket_options)

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)


def _opened(
    transport: asyncio.BaseTransport, connection: _Connection, options: Iterable[SOCKET_OPTION] | None
) -> _Stream:
    sock = transport.get_extra_info("socket")
    for option in options or ():
        sock.setsockopt(*option)  # asyncio sets TCP_NODELAY already
    return _Stream(connection)


def _readable(sock: _Socket | None) -> bool:
    """Whether a read would return at once (on an idle connection: the server closed it); a socket
    that is gone counts as readable, as httpcore2's own check has it."""
    if sock is None or sock.fileno() < 0:
        return True
    poller = select.poll()
    poller.register(sock, select.POLLIN)
    return bool(poller.poll(0))


def transport(limits: httpx2.Limits, verify: ssl.SSLContext | None = None) -> httpx2.AsyncHTTPTransport:
    """httpx2's transport (verification, environment, limits as its defaults have them; `verify`: the
    TLS context instead of httpx2's) over this module's connections."""
    made = httpx2.AsyncHTTPTransport(limits=limits)
    made._pool = httpcore2.AsyncConnectionPool(  # its one pool, built as it builds it, with our backend
        ssl_context=verify or httpx2.create_ssl_context(),
        max_connections=limits.max_connections,
        max_keepalive_connections=limits.max_keepalive_connections,
        keepalive_expiry=limits.keepalive_expiry,
        network_backend=_Backend(),
    )
    return made
