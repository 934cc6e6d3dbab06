"""`rein hook daemon start|stop|status|run`: the per-user hook daemon that keeps hook calls fast.

Hook calls start it by themselves when none runs; these commands are for looking at it, stopping it
(after changing rein's code it stops by itself), or running it in the foreground (`run`, what a hook
call starts in the background).
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from rein.hooks import IDLE, Status, serve, start, status, stop


def _shown(running: Status) -> str:
    age = time.time() - running.started
    return (
        f"hook daemon: running, pid {running.pid}, socket {running.socket}, up {age:.0f} s,"
        f" {running.served} calls served, {running.policies} policies cached"
    )


def run(action: str, where: str) -> int:
    home = str(Path.home())
    if action == "run":
        idle = float(os.environ.get("REIN_HOOK_DAEMON_IDLE", IDLE))
        return serve(home, idle)
    if action == "stop":
        print("hook daemon: stopped" if stop(home) else "hook daemon: not running")
        return 0
    if action == "status":
        running = status(home)
        print(_shown(running) if running else "hook daemon: not running (the next hook call starts it)")
        return 0
    started = start(home)
    if isinstance(started, str):
        print(f"{where}: {started}")
        return 1
    print(_shown(started))
    return 0
