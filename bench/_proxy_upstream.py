"""The upstream of the proxy benchmark: a fast Chat Completions SSE server in its own process.

`python -m bench._proxy_upstream` listens on a free port of 127.0.0.1, prints `listening PORT` on
stdout, and serves until its stdin closes. Every POST to a path ending in `/chat/completions` streams
a reply of `bench.chunks` content chunks (a field of the request body, which the proxy forwards
unchanged), `bench.interval` seconds apart (0: as fast as the socket takes them), over HTTP/1.1
keep-alive, as real providers do. Each chunk's content is the monotonic clock at the moment it is
written, in microseconds (at least 12 digits: 13 characters a chunk), then a space: the client reads
each chunk's one-way latency off the text it receives, however the proxy split or merged the chunks
on the way. The clock (CLOCK_MONOTONIC) is shared by every process of the machine. With `bench.say`
and `bench.at`, chunk number `at` of a first attempt (a request of one message) is `say` instead: a
rule breaker mid-stream, which a retry (more messages) does not repeat.

It is not `rein.ai.testing.SseServer`, whose replies are scripted before they are sent: the stamps
are taken as each chunk leaves.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
import time

from rein.ai.testing import read_request

_HEAD = (
    b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\n"
    b"transfer-encoding: chunked\r\n\r\n"
)
_CHUNK = '{"id":"chatcmpl-bench","object":"chat.completion.chunk","created":1,"model":"bench","choices":'
_ROLE = f'{_CHUNK}[{{"index":0,"delta":{{"role":"assistant","content":""}},"finish_reason":null}}]}}'
_CONTENT = _CHUNK + '[{"index":0,"delta":{"content":"%012d "},"finish_reason":null}]}'
_FINISH = f'{_CHUNK}[{{"index":0,"delta":{{}},"finish_reason":"stop"}}]}}'
_BAD = b"HTTP/1.1 404 Not Found\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}"


def stamp_us() -> int:
    """The clock the stamps are written with; the client reads the same one."""
    return time.monotonic_ns() // 1000


def _frame(data: str) -> bytes:
    event = f"data: {data}\n\n".encode()
    return b"%x\r\n%s\r\n" % (len(event), event)


async def _stream(
    writer: asyncio.StreamWriter, chunks: int, interval: float, say: tuple[int, str] | None = None
) -> None:
    writer.write(_HEAD + _frame(_ROLE))
    await writer.drain()
    for n in range(chunks):
        if interval and n:
            await asyncio.sleep(interval)
        if say is not None and n == say[0]:
            writer.write(_frame(_CONTENT.replace("%012d ", "%s") % json.dumps(say[1])[1:-1]))
        else:
            writer.write(_frame(_CONTENT % stamp_us()))
        await writer.drain()
    writer.write(_frame(_FINISH) + _frame("[DONE]") + b"0\r\n\r\n")
    await writer.drain()


async def _handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while True:  # keep-alive: one request after another on the connection
            request = await read_request(reader)
            spec = request.body.get("bench") if isinstance(request.body, dict) else None
            if not request.path.endswith("/chat/completions") or not isinstance(spec, dict):
                writer.write(_BAD)
                await writer.drain()
                continue
            chunks, interval = spec.get("chunks", 10), spec.get("interval", 0.0)
            messages = request.body.get("messages") if isinstance(request.body, dict) else None
            said, at = spec.get("say"), spec.get("at")
            first = isinstance(messages, list) and len(messages) == 1
            say = (at, said) if first and isinstance(said, str) and isinstance(at, int) else None
            await _stream(writer, int(str(chunks)), float(str(interval)), say)
    except (ConnectionError, asyncio.IncompleteReadError, ValueError, IndexError):
        pass  # the client went away (or sent something that is not HTTP)
    finally:
        writer.close()
        with contextlib.suppress(ConnectionError):
            await writer.wait_closed()


async def serve() -> None:
    server = await asyncio.start_server(_handle, "127.0.0.1", 0, backlog=512)
    print(f"listening {server.sockets[0].getsockname()[1]}", flush=True)
    loop = asyncio.get_running_loop()
    await loop.run_in_executor(None, sys.stdin.read)  # until the benchmark closes our stdin
    server.close()


if __name__ == "__main__":
    asyncio.run(serve())
