"""The scripted SSE server itself, driven by a raw HTTP client so its wire output is visible."""

from __future__ import annotations

import asyncio
import json

import pytest

from rein.ai.testing import Cut, Event, Hang, Pause, Raw, Reply, SseServer
from tests.ai.helpers import run


async def exchange(server: SseServer, body: bytes = b'{"model": "m"}', chunked: bool = False) -> bytes:
    host, port = server.url.removeprefix("http://").split(":")
    reader, writer = await asyncio.open_connection(host, int(port))
    if chunked:
        head = b"POST /v1/x HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\nX-Key: k\r\n\r\n"
        payload = b"%x\r\n%s\r\n0\r\n\r\n" % (len(body), body)
    else:
        head = b"POST /v1/x HTTP/1.1\r\nHost: t\r\nContent-Length: %d\r\nX-Key: k\r\n\r\n" % len(body)
        payload = body
    writer.write(head + payload)
    data = await reader.read()
    writer.close()
    await writer.wait_closed()
    return data


def test_records_requests_and_streams_chunked_events() -> None:
    async def scenario() -> tuple[bytes, SseServer]:
        async with SseServer(
            [Reply(steps=[Event(event="ping", data={"a": 1}), Raw(data=b"data: x\n\n")])]
        ) as server:
            return await exchange(server, chunked=True), server

    data, server = run(scenario())
    request = server.requests[0]
    assert (request.method, request.path, request.headers["x-key"], request.body) == (
        "POST",
        "/v1/x",
        "k",
        {"model": "m"},
    )
    head, _, body = data.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200 OK\r\n") and b"transfer-encoding: chunked" in head
    first = b'event: ping\ndata: {"a": 1}\n\n'
    assert body == b"%x\r\n%s\r\n9\r\ndata: x\n\n\r\n0\r\n\r\n" % (len(first), first)


def test_json_replies_and_the_missing_reply_error() -> None:
    async def scenario() -> list[bytes]:
        async with SseServer([Reply(status=529, body={"error": "busy"})]) as server:
            return [await exchange(server), await exchange(server)]

    busy, missing = run(scenario())
    assert busy.startswith(b"HTTP/1.1 529 Unknown\r\n")
    assert json.loads(busy.partition(b"\r\n\r\n")[2]) == {"error": "busy"}
    assert missing.startswith(b"HTTP/1.1 500 Internal Server Error\r\n")
    assert b"no reply left" in missing


def test_cut_ends_the_body_without_the_last_chunk() -> None:
    async def scenario() -> bytes:
        async with SseServer([Reply(steps=[Event(data="a"), Cut(), Event(data="never")])]) as server:
            return await exchange(server)

    data = run(scenario())
    assert data.endswith(b"data: a\n\n\r\n")


@pytest.mark.parametrize(
    "reply",
    [
        Reply(steps=[Event(data="a"), Hang()]),
        Reply(hang_before_headers=True),
        Reply(steps=[Pause(seconds=30)]),
    ],
)
def test_a_client_that_leaves_is_counted(reply: Reply) -> None:
    async def scenario() -> int:
        async with SseServer([reply]) as server:
            host, port = server.url.removeprefix("http://").split(":")
            _, writer = await asyncio.open_connection(host, int(port))
            writer.write(b"POST / HTTP/1.1\r\nContent-Length: 0\r\n\r\n")
            await server.wait_requests(1)  # the reply has begun: leaving now abandons it
            writer.close()
            await server.wait_disconnects(1, timeout=2)
            return server.disconnects

    assert run(scenario()) == 1


def test_wait_disconnects_times_out() -> None:
    async def scenario() -> None:
        async with SseServer() as server:
            await server.wait_disconnects(1, timeout=0.01)

    with pytest.raises(TimeoutError):
        run(scenario())
