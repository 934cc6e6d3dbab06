"""Run the app under uvicorn: bind first (so `--port 0` works and the printed URL is the real one),
open the store in the serving loop, print one line (the address, the model, the store), serve until
SIGTERM or SIGINT, close the store.

SIGTERM drains first: the app is marked draining (`/ready` answers 503, so a load balancer stops
sending here) and requests are served `--drain-seconds` more before the shutdown. SIGINT (Ctrl+C) and
a second signal stop at once.
"""

from __future__ import annotations

import asyncio
import gc
import signal
import socket
import sys
import time
from collections.abc import Callable
from types import FrameType
from urllib.parse import urlsplit, urlunsplit

import uvicorn
from starlette.applications import Starlette

from rein.server._app import create_app
from rein.server._config import ServerConfig
from rein.server._http import limited_protocol
from rein.server.store import StoreError, default_sqlite_path, open_store

GRACE_SECONDS = 3
"""After the drain, how long open responses (a run's stream) may go on; then they are cut and the
runs handed over (`interrupted`, with their reply so far), as a client recovers them."""


class _Server(uvicorn.Server):
    def __init__(self, config: uvicorn.Config, on_exit: Callable[[], None]) -> None:
        super().__init__(config)
        self.on_exit = on_exit
        self.app: Starlette | None = None
        self.drain_seconds = 0.0
        self.drain_until: float | None = None

    def set_drain(self, app: Starlette, seconds: float) -> None:
        """On SIGTERM, mark `app` draining and keep serving `seconds` before stopping."""
        self.app, self.drain_seconds = app, seconds

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        if self.app is not None:
            self.app.state.draining = True
        if sig == signal.SIGTERM and self.drain_seconds > 0 and self.drain_until is None:
            self.drain_until = time.monotonic() + self.drain_seconds  # `on_tick` stops then
            return
        self._stop(sig, frame)

    def _stop(self, sig: int, frame: FrameType | None) -> None:
        super().handle_exit(sig, frame)
        # a signal is how `rein serve` is asked to stop: exit 0 after the shutdown, not re-raised
        self._captured_signals.clear()
        self.on_exit()  # end the web page's event streams, which would hold the shutdown forever

    async def on_tick(self, counter: int) -> bool:
        if self.drain_until is not None and not self.should_exit and time.monotonic() >= self.drain_until:
            self._stop(signal.SIGTERM, None)
        return await super().on_tick(counter)


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


async def _serve(config: ServerConfig, sock: socket.socket, url: str, notice: str) -> int:
    try:
        store = await open_store(url)
    except StoreError as error:
        print(f"rein serve: {error}", file=sys.stderr)
        return 2
    try:
        app = create_app(config, store)
        protocol = limited_protocol(
            header_timeout=config.header_timeout, max_per_client=config.max_connections_per_client
        )
        uv = uvicorn.Config(
            app, http=protocol, log_level="warning", lifespan="on", timeout_graceful_shutdown=GRACE_SECONDS
        )
        server = _Server(uv, app.state.buses.close)
        server.set_drain(app, config.drain_seconds)
        host, port = sock.getsockname()[:2]
        shown = f"[{host}]" if ":" in host else host
        served = f"provider: {config.provider}, model: {config.model}, store: {describe_store(url)}"
        print(f"rein serve: listening on http://{shown}:{port} ({served})", flush=True)
        if notice:
            print(notice, file=sys.stderr, flush=True)
        gc.freeze()  # what start-up made lives for ever: a request's burst of objects never rescans it
        await server.serve(sockets=[sock])
    finally:
        await store.close()
    return 0


def serve(config: ServerConfig, notice: str = "") -> int:
    """Serve until asked to stop. 0 on a clean stop, 2 when the port or the store cannot be opened.
    `notice`, if any, goes to stderr once the server listens (why this model serves)."""
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
        return asyncio.run(_serve(config, sock, url, notice))
