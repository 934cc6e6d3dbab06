"""The proxy benchmark's control: a byte pipe in its own process, the least any proxy can cost.

`python -m bench._proxy_pipe UPSTREAM_PORT` listens on a free port of 127.0.0.1, prints `listening PORT`
on stdout, and copies bytes both ways between each client connection and a connection of its own to
the upstream, without reading HTTP, until its stdin closes. What it adds to a chunk's latency is the
price of one more process hop on the machine (a wake-up, a read, a write), which `rein proxy` pays too.
"""

from __future__ import annotations

import asyncio
import contextlib
import sys


async def _copy(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    except ConnectionError:
        pass
    finally:
        writer.close()


async def _pipe(port: int, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", port)
    except OSError:
        writer.close()
        return
    await asyncio.gather(_copy(reader, up_writer), _copy(up_reader, writer))
    for side in (writer, up_writer):
        with contextlib.suppress(ConnectionError):
            await side.wait_closed()


async def serve(port: int) -> None:
    server = await asyncio.start_server(
        lambda reader, writer: _pipe(port, reader, writer), "127.0.0.1", 0, backlog=512
    )
    print(f"listening {server.sockets[0].getsockname()[1]}", flush=True)
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.read)  # until our stdin closes
    server.close()


if __name__ == "__main__":
    asyncio.run(serve(int(sys.argv[1])))
