"""What hosts take from the machine for the timebox engine (`rein.timebox` reads no clock and runs
nothing): the wall clock and the detached on-stop runner. Both rein's own session
(`rein.builtins.timebox`) and the Claude Code hooks (`rein.hooks`) use them, as defaults that tests
replace. Light: a hook process imports it."""

from __future__ import annotations

import subprocess
import time


def wall_clock_ms() -> int:
    return time.time_ns() // 1_000_000


_started: list[subprocess.Popen[bytes]] = []
"""Commands still running: kept so they are reaped (`poll`) rather than left as zombies or warned about."""


def run_detached(command: str) -> None:
    """Start `/bin/sh -c command` in its own session, stdio closed, and do not wait: it outlives rein
    (and a hook process). A command that cannot start is dropped: a stop must not fail on it."""
    _started[:] = [process for process in _started if process.poll() is None]
    try:
        process = subprocess.Popen(
            ["/bin/sh", "-c", command],
            start_new_session=True,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
    except OSError:
        return
    _started.append(process)
