"""Run the proxy under uvicorn: bind first (so `--port 0` works and the printed URL is the real one),
print what it checks, serve until SIGTERM or SIGINT, in one process or `workers` (`rein.proxy._workers`).

A signal stops the proxy gracefully: it stops accepting, lets the open streams finish for up to
`shutdown_timeout` seconds (then cancels what is left, closing those connections), and exits 0. A second
SIGINT stops at once."""

from __future__ import annotations

import asyncio
import socket
import sys
from types import FrameType

import uvicorn

from rein.proxy._app import ProxyApp
from rein.proxy._config import ProxyConfig
from rein.proxy._workers import serve_workers

SHUTDOWN_TIMEOUT = 30
"""Default seconds the open streams have to finish once the proxy is asked to stop."""


class _Server(uvicorn.Server):
    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        if not self.should_exit:
            timeout = self.config.timeout_graceful_shutdown
            print(
                f"rein proxy: stopping; open streams have {timeout} s to finish",
                file=sys.stderr,
                flush=True,
            )
        super().handle_exit(sig, frame)
        self._captured_signals.clear()  # a signal is how the proxy is asked to stop: exit 0, not re-raised


def describe(app: ProxyApp) -> list[str]:
    """The lines printed at start: rules, windows, and the rules a window cannot hold."""
    config, shared = app.config, app.shared
    lines = [f"rules: {len(config.rules)} loaded"]
    lines += [f"rule file not loaded: {issue}" for issue in config.issues if issue.severity == "error"]
    for source, window in sorted(shared.windows.items()):
        if source == "tool":
            lines.append("hold-back (tool): each call until complete")
            continue
        held = f"{window.span} chars, and up to {window.line} of an unfinished line"
        lines.append(f"hold-back ({source}): {held}")
        if not window.bounded:
            names = ", ".join(window.unbounded_rules)
            lines.append(
                f"  may match more than {config.max_hold} chars ({source}): {names}; a late match follows "
                f"--late-policy {config.late_policy}"
            )
    return lines + shared.steering.describe()


def _announce(app: ProxyApp, sock: socket.socket, host: str, workers: int) -> None:
    for line in describe(app):
        print(f"rein proxy: {line}", file=sys.stderr)
    port = sock.getsockname()[1]
    shown = f"[{host}]" if ":" in host else host
    more = f", {workers} workers" if workers > 1 else ""
    print(
        f"rein proxy listening on http://{shown}:{port} ({app.config.upstream}{more})",
        file=sys.stderr,
        flush=True,
    )


async def _serve(config: ProxyConfig, sock: socket.socket, host: str, shutdown_timeout: int) -> int:
    app = ProxyApp(config)
    try:
        _announce(app, sock, host, 1)
        settings = uvicorn.Config(
            app,
            log_level="warning",
            lifespan="on",
            access_log=False,
            timeout_graceful_shutdown=shutdown_timeout,
        )
        await _Server(settings).serve(sockets=[sock])
    finally:
        await app.aclose()
    return 0


def _workers(config: ProxyConfig, sock: socket.socket, host: str, workers: int, shutdown_timeout: int) -> int:
    app = ProxyApp(config)  # for the start lines only: each worker builds its own
    try:
        _announce(app, sock, host, workers)
    finally:
        asyncio.run(app.aclose())
    return serve_workers(config, sock, workers, shutdown_timeout)


def serve(
    config: ProxyConfig, host: str, port: int, *, workers: int = 1, shutdown_timeout: int = SHUTDOWN_TIMEOUT
) -> int:
    """Serve until asked to stop: 0 on a clean stop, 2 when the port cannot be opened."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host.strip("[]"), port))
        sock.listen(2048)
    except OSError as error:
        sock.close()
        print(f"rein proxy: cannot listen on {host}:{port}: {error.strerror or error}", file=sys.stderr)
        return 2
    sock.setblocking(False)
    with sock:
        if workers > 1:
            return _workers(config, sock, host, workers, shutdown_timeout)
        return asyncio.run(_serve(config, sock, host, shutdown_timeout))
