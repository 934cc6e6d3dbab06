"""Run the app under uvicorn: bind first (so `--port 0` works and the printed URL is the real one),
open the store in the serving loop, print one line, serve until SIGTERM or SIGINT, close the store.
"""

from __future__ import annotations

import asyncio
import socket
import sys
from collections.abc import Callable
from types import FrameType
from urllib.parse import urlsplit, urlunsplit

import uvicorn

from rein.server._app import create_app
from rein.server._config import ServerConfig
from rein.server.store import StoreError, default_sqlite_path, open_store


class _Server(uvicorn.Server):
    def __init__(self, config: uvicorn.Config, on_exit: Callable[[], None]) -> None:
        super().__init__(config)
        self.on_exit = on_exit

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        super().handle_exit(sig, frame)
        # a signal is how `rein serve` is asked to stop: exit 0 after the shutdown, not re-raised
        self._captured_signals.clear()
        self.on_exit()  # end the web page's event streams, which would hold the shutdown forever


def describe_store(url: str) -> str:
    """`sqlite PATH`, or the PostgreSQL URL with its password masked."""
    if url.startswith(("postgresql://", "postgres://")):
        parts = urlsplit(url)
        if parts.password is not None:
            netloc = f"{parts.username or ''}:***@{parts.hostname or ''}" + (
                f":{parts.port}" if parts.port else ""
            )
            url = urlunsplit(parts._replace(netloc=netloc))
        return f"postgresql {url}"
    return f"sqlite {url.removeprefix('sqlite://')}"


def bind(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)  # asyncio sets TCP_NODELAY only then
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host.strip("[]"), port))
    sock.listen(2048)
    sock.setblocking(False)
    return sock


async def _serve(config: ServerConfig, sock: socket.socket, url: str) -> int:
    try:
        store = await open_store(url)
    except StoreError as error:
        print(f"rein serve: {error}", file=sys.stderr)
        return 2
    try:
        app = create_app(config, store)
        server = _Server(uvicorn.Config(app, log_level="warning", lifespan="on"), app.state.buses.close)
        host, port = sock.getsockname()[:2]
        shown = f"[{host}]" if ":" in host else host
        print(f"rein serve: listening on http://{shown}:{port} (store: {describe_store(url)})", flush=True)
        await server.serve(sockets=[sock])
    finally:
        await store.close()
    return 0


def serve(config: ServerConfig) -> int:
    """Serve until asked to stop. 0 on a clean stop, 2 when the port or the store cannot be opened."""
    try:
        sock = bind(config.host, config.port)
    except OSError as error:
        print(
            f"rein serve: cannot listen on {config.host}:{config.port}: {error.strerror or error}",
            file=sys.stderr,
        )
        return 2
    url = config.db or str(default_sqlite_path(config.home))
    with sock:
        return asyncio.run(_serve(config, sock, url))
