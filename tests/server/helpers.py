"""Run `rein serve` as users do: a real subprocess on 127.0.0.1, its own home, a SQLite file in the
test's tmp dir unless `db` names another store.

    with running_server(tmp_path) as url:          # "http://127.0.0.1:PORT", /health answered
        httpx2.post(f"{url}/api/session/init", json={"sessionId": "s1"})
        kill9(url)                                  # a crash, for fault tests

The server's stdout and stderr go to files beside the database (`server_log(url)` reads stderr), so
a chatty server never blocks on a full pipe.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from tests.cli.helpers import rein_env

STARTUP_TIMEOUT = 30.0
STOP_TIMEOUT = 10.0


@dataclass(frozen=True, slots=True)
class _Running:
    process: subprocess.Popen[bytes]
    stdout: Path
    stderr: Path


_RUNNING: dict[str, _Running] = {}


def free_port() -> int:
    """A port free right now on 127.0.0.1 (for a restart that must keep its URL: `--port N`)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def server_env(
    home: Path, token: str | None = None, env: Mapping[str, str | None] | None = None
) -> dict[str, str]:
    """The environment of a server process: the caller's minus API keys, HOME=`home`, plus `env`
    (a None value removes the variable)."""
    merged = rein_env(home)
    merged.pop("REIN_SERVER_TOKEN", None)
    merged.pop("REIN_SERVER_DB", None)
    if token is not None:
        merged["REIN_SERVER_TOKEN"] = token
    for key, value in (env or {}).items():
        if value is None:
            merged.pop(key, None)
        else:
            merged[key] = value
    return merged


def serve_command(*args: str) -> list[str]:
    return [sys.executable, "-m", "rein.cli", "serve", *args]


@contextmanager
def running_server(
    tmp: Path,
    *,
    db: str | None = None,
    token: str | None = None,
    env: Mapping[str, str | None] | None = None,
    args: Sequence[str] = (),
    provider: str | None = "faux",
) -> Iterator[str]:
    """Start `rein serve` (on a free port unless `args` has `--port`; no drain on SIGTERM unless it has
    `--drain-seconds`; on `provider`, the faux one by default, unless `args` has `--provider` or it is
    None), wait until `/health` answers, yield its base URL, then stop it (SIGTERM, then SIGKILL after
    10 s). The database defaults to `tmp/sessions.db`, so a second `running_server(tmp)` reopens the
    same sessions."""
    tmp.mkdir(parents=True, exist_ok=True)
    home = tmp / "home"
    home.mkdir(exist_ok=True)
    command = serve_command("--db", db if db is not None else str(tmp / "sessions.db"), *args)
    if "--port" not in args:
        command += ["--port", "0"]
    if "--drain-seconds" not in args:  # a test's stop is immediate unless it tests the drain
        command += ["--drain-seconds", "0"]
    if provider is not None and "--provider" not in args:  # not the model `rein` would choose here
        command += ["--provider", provider]
    stamp = f"{os.getpid()}-{time.monotonic_ns()}"
    stdout, stderr = tmp / f"serve-{stamp}.out", tmp / f"serve-{stamp}.err"
    with stdout.open("wb") as out, stderr.open("wb") as err:
        process = subprocess.Popen(command, cwd=tmp, env=server_env(home, token, env), stdout=out, stderr=err)
    url = ""
    try:
        url = _wait_for_health(process, stdout, stderr)
        _RUNNING[url] = _Running(process, stdout, stderr)
        yield url
    finally:
        _RUNNING.pop(url, None)
        _stop(process)


def kill9(url: str) -> None:
    """SIGKILL the server at `url` (a crash: no shutdown code runs) and wait for it to die."""
    process = _RUNNING[url].process
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=STOP_TIMEOUT)


def process_of(url: str) -> subprocess.Popen[bytes]:
    return _RUNNING[url].process


def server_log(url: str) -> str:
    """What the server at `url` wrote to stderr so far (one line per failed request)."""
    return _RUNNING[url].stderr.read_text(encoding="utf-8", errors="replace")


def _wait_for_health(process: subprocess.Popen[bytes], stdout: Path, stderr: Path) -> str:
    deadline = time.monotonic() + STARTUP_TIMEOUT
    url = ""
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(
                f"rein serve exited {process.returncode}: {stderr.read_text(errors='replace')}"
            )
        if not url:
            url = _listening_url(stdout.read_text(errors="replace"))
        if url and _healthy(url):
            return url
        time.sleep(0.02)
    _stop(process)
    raise RuntimeError(
        f"rein serve did not answer /health in {STARTUP_TIMEOUT} s: {stderr.read_text(errors='replace')}"
    )


def _listening_url(text: str) -> str:
    marker = "listening on "
    for line in text.splitlines():
        if marker in line:
            return line.split(marker, 1)[1].split()[0]
    return ""


def _healthy(url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/health", timeout=2) as answer:
            return bool(answer.status == 200 and json.loads(answer.read()) == {"status": "ok"})
    except (OSError, urllib.error.URLError, ValueError):
        return False


def _stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is not None:
        return
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout=STOP_TIMEOUT)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=STOP_TIMEOUT)
