"""The hook's fast path: hand the host's JSON to the user's hook daemon and print its answer.

A hook is a fresh process per tool call. Importing the steering engine costs about ten times the
interpreter's own start, so `rein hook HOST EVENT` first asks the daemon (`_daemon`), which keeps the
engine and the compiled policies loaded, over a unix socket in a private directory:

    rein hook claude pre-tool-use ──► connect <runtime>/hook-<id>.sock ──► {stdout, stderr, code}
                                  └─► anything else: None, and the caller answers in-process

This module imports the standard library's light modules only, and returns None on every failure:
no daemon, a directory that is not private, a daemon that does not answer within its budget, an
answer that is not well formed. The caller then evaluates in this process, so a failure of the fast
path costs time and never turns into an allow.

The daemon's socket is keyed by the interpreter, rein's package directory and the home directory, so
two installs of rein (or two HOMEs) never share a daemon. `REIN_HOOK_DAEMON=off` turns the fast path
off; `REIN_RUNTIME_DIR` names the private directory (default `$XDG_RUNTIME_DIR/rein`, else
`/tmp/rein-<uid>`).
"""

# ruff: noqa: PTH100, PTH118, PTH120
# (pathlib costs this path about 6 ms of imports, half its budget; os.path costs none)

from __future__ import annotations

import json
import os
import socket
import stat
import sys
import zlib

BUDGET = 2.0
"""Seconds to wait for the daemon's answer before evaluating in-process (`REIN_HOOK_DAEMON_TIMEOUT`)."""
PROTOCOL = 1
LIMIT = 64 << 20
"""The largest request or answer either side reads, in bytes."""


def enabled() -> bool:
    return os.environ.get("REIN_HOOK_DAEMON", "on").lower() not in ("off", "0", "no", "false")


def runtime_dir() -> str:
    chosen = os.environ.get("REIN_RUNTIME_DIR")
    if chosen:
        return chosen
    shared = os.environ.get("XDG_RUNTIME_DIR")
    return os.path.join(shared, "rein") if shared else f"/tmp/rein-{os.getuid()}"


def private(directory: str) -> bool:
    """Whether `directory` is a real directory (not a link) that only this user can enter."""
    try:
        info = os.lstat(directory)
    except OSError:
        return False
    return stat.S_ISDIR(info.st_mode) and info.st_uid == os.getuid() and not info.st_mode & 0o077


def identity(home: str) -> dict[str, str]:
    """What a daemon must match to answer this process: the interpreter, rein and the home directory."""
    package = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    return {"python": sys.executable, "rein": package, "home": home}


def socket_path(home: str) -> str:
    key = "\0".join(identity(home).values()).encode()
    return os.path.join(runtime_dir(), f"hook-{zlib.crc32(key):08x}.sock")


def budget() -> float:
    try:
        return float(os.environ.get("REIN_HOOK_DAEMON_TIMEOUT", BUDGET))
    except ValueError:
        return BUDGET


def ask(request: dict[str, object], home: str, timeout: float) -> dict[str, object] | None:
    """Send one request to the daemon for `home`; its JSON answer, or None (absent, slow, garbled)."""
    if not private(runtime_dir()):
        return None
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as client:
            client.settimeout(timeout)
            client.connect(socket_path(home))
            client.sendall(json.dumps({**request, "v": PROTOCOL, **identity(home)}).encode())
            client.shutdown(socket.SHUT_WR)
            chunks: list[bytes] = []
            size = 0
            while chunk := client.recv(65536):
                chunks.append(chunk)
                size += len(chunk)
                if size > LIMIT:
                    return None
        answer = json.loads(b"".join(chunks)) if chunks else None
    except (OSError, ValueError):
        return None
    return answer if isinstance(answer, dict) else None


def answer(host: str, event: str, stdin: str, home: str) -> tuple[str, str, int] | None:
    """The daemon's answer to one hook call as (stdout, stderr, exit code), or None."""
    if not enabled():
        return None
    got = ask({"op": "hook", "host": host, "event": event, "stdin": stdin}, home, budget())
    if got is None:
        return None
    out, err, code = got.get("stdout"), got.get("stderr"), got.get("code")
    if isinstance(out, str) and isinstance(err, str) and isinstance(code, int) and not isinstance(code, bool):
        return out, err, code
    return None
