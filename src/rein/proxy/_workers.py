"""`rein proxy --workers N`: N processes serving one listening socket, their counters shared.

The parent binds the socket (so `--port 0` still prints the real port), makes a folder for the metrics'
values and sets `PROMETHEUS_MULTIPROC_DIR` to it before the workers start, then hands over to uvicorn's
supervisor: it spawns the workers (fresh interpreters, each building its `ProxyApp` from the pickled
config), restarts one that dies, and on SIGTERM or SIGINT asks each to stop, which lets its open streams
finish (up to the shutdown timeout). The folder is removed when the last worker is gone. `/metrics` and
`/rein/status` read every worker's files (`rein.proxy._metrics`); budgets are shared through SQLite.
"""

from __future__ import annotations

import os
import socket
import sys
import tempfile

import uvicorn
from uvicorn.supervisors.multiprocess import Multiprocess

from rein.proxy._app import ProxyApp
from rein.proxy._config import ProxyConfig

FOLDER_VARIABLE = "PROMETHEUS_MULTIPROC_DIR"


class AppFactory:
    """What each worker calls to build its app (picklable: the config is sent to every worker)."""

    def __init__(self, config: ProxyConfig) -> None:
        self.config = config

    def __call__(self) -> ProxyApp:
        return ProxyApp(self.config)


class _Supervisor(Multiprocess):
    def handle_int(self) -> None:
        self._stop_accepting()
        super().handle_int()

    def handle_term(self) -> None:
        self._stop_accepting()
        super().handle_term()

    def _stop_accepting(self) -> None:
        """Close the parent's copy of the socket: once the workers close theirs, connecting is refused
        rather than left waiting in the backlog of a proxy that is stopping."""
        if not self.should_exit.is_set():
            timeout = self.config.timeout_graceful_shutdown
            print(
                f"rein proxy: stopping; open streams have {timeout} s to finish", file=sys.stderr, flush=True
            )
        for sock in self.sockets:
            sock.close()


def serve_workers(config: ProxyConfig, sock: socket.socket, workers: int, shutdown_timeout: int) -> int:
    """Serve on `sock` with `workers` processes until a signal stops them; 0."""
    with tempfile.TemporaryDirectory(prefix="rein-proxy-metrics-") as folder:
        os.environ[FOLDER_VARIABLE] = folder  # inherited by the workers, read when they import the library
        try:
            settings = uvicorn.Config(
                AppFactory(config),
                factory=True,
                workers=workers,
                log_level="warning",
                lifespan="on",
                access_log=False,
                timeout_graceful_shutdown=shutdown_timeout,
            )
            _Supervisor(settings, sockets=[sock]).run()
        finally:
            os.environ.pop(FOLDER_VARIABLE, None)
    return 0
