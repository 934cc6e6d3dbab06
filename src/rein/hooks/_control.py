"""Start, stop and ask the hook daemon (`rein hook daemon start|stop|status`, and the hook call that
finds no daemon and starts one for the next call).

The daemon is started detached: a new session, no terminal, stdin/stdout/stderr on /dev/null (a host
waits for its hook's stdout to close, so the daemon must not hold it), HOME set to the home it serves.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from rein.hooks._client import ask, enabled, private, runtime_dir, socket_path

WAIT = 10.0
"""Seconds `start` and `stop` wait for the daemon to come up or go away."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Status:
    socket: str
    pid: int
    started: float
    served: int
    policies: int


def status(home: str, timeout: float = 1.0) -> Status | None:
    """The running daemon for `home`, or None."""
    got = ask({"op": "status"}, home, timeout)
    if got is None:
        return None
    pid, started, served, policies = (got.get(key) for key in ("pid", "started", "served", "policies"))
    if not (isinstance(pid, int) and isinstance(started, float | int) and isinstance(served, int)):
        return None
    return Status(
        socket=socket_path(home),
        pid=pid,
        started=float(started),
        served=served,
        policies=policies if isinstance(policies, int) else 0,
    )


def spawn(home: str) -> None:
    """Start a daemon for `home` in the background and return at once (a second one exits by itself)."""
    subprocess.Popen(
        [sys.executable, "-m", "rein.cli", "hook", "daemon", "run"],
        env={**os.environ, "HOME": home},
        cwd="/",
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
        close_fds=True,
    )


def start(home: str) -> Status | str:
    """The daemon's status once it answers, starting it when none runs; else why it could not start."""
    if not enabled():
        return "the hook daemon is turned off (REIN_HOOK_DAEMON=off)"
    running = status(home)
    if running is not None:
        return running
    spawn(home)
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        running = status(home)
        if running is not None:
            return running
        time.sleep(0.05)
    where = runtime_dir()
    if Path(where).exists() and not private(where):
        return f"{where}: not a private directory (mode 0700, owned by you), so no daemon runs there"
    return f"the hook daemon did not answer within {WAIT:.0f} s ({socket_path(home)})"


def stop(home: str) -> bool:
    """Stop the daemon for `home`; True when one was running."""
    if ask({"op": "stop"}, home, 2.0) is None:
        return False
    deadline = time.monotonic() + WAIT
    while Path(socket_path(home)).exists() and time.monotonic() < deadline:
        time.sleep(0.02)
    return True
