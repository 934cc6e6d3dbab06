"""`rein hook HOST EVENT`, the call a host makes around every tool call: the hook daemon's answer when
it gives one, else `rein.cli.hook`'s in-process answer, after which a daemon is started for the next
call. Reached from `rein.cli.main` before any other rein module loads: this path imports only the
daemon's client (the standard library's socket and json), so a warm call costs about two interpreter
starts, not the engine's import.
"""

from __future__ import annotations

import importlib
import os
import sys

from rein.hooks import HOSTS, answer, enabled

USAGE = 2


def run(host: str, event: str) -> int:
    stdin = sys.stdin.buffer.read().decode("utf-8", errors="replace")
    home = os.path.expanduser("~")  # noqa: PTH111 (pathlib is not loaded on this path)
    got = answer(host, event, stdin, home) if host in HOSTS else None
    if got is not None:
        sys.stdout.write(got[0])
        sys.stderr.write(got[1])
        return got[2]
    code = int(importlib.import_module("rein.cli.hook").call(host, event, stdin, prog="rein hook"))
    if code != USAGE and enabled():
        sys.stdout.flush()
        importlib.import_module("rein.hooks._control").spawn(home)
    return code
