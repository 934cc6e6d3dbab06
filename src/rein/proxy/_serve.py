"""Run the proxy under uvicorn: bind first (so `--port 0` works and the printed URL is the real one),
print what it checks, serve until SIGTERM or SIGINT."""

from __future__ import annotations

import asyncio
import socket
import sys
from types import FrameType

import uvicorn

from rein.proxy._app import ProxyApp
from rein.proxy._config import ProxyConfig


class _Server(uvicorn.Server):
    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
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
    return lines


async def _serve(config: ProxyConfig, sock: socket.socket, host: str) -> int:
    app = ProxyApp(config)
    try:
        for line in describe(app):
            print(f"rein proxy: {line}", file=sys.stderr)
        port = sock.getsockname()[1]
        shown = f"[{host}]" if ":" in host else host
        print(
            f"rein proxy listening on http://{shown}:{port} ({config.upstream})", file=sys.stderr, flush=True
        )
        server = _Server(uvicorn.Config(app, log_level="warning", lifespan="on", access_log=False))
        await server.serve(sockets=[sock])
    finally:
        await app.aclose()
    return 0


def serve(config: ProxyConfig, host: str, port: int) -> int:
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
        return asyncio.run(_serve(config, sock, host))
