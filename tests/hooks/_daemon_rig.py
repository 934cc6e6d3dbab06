"""A home, a project and a private runtime directory for tests that run rein's hook daemon for real.

tests/conftest.py turns the daemon off for every test; a `Rig` turns it on for the `rein` processes it
starts (and for this test process, so `status()` can ask the daemon directly), in its own short runtime
directory (unix socket paths are capped at 108 bytes, pytest's tmp paths are long), and stops every
daemon it may have started when the test ends: `rein hook daemon stop`, else a kill of the pid the
daemon reported.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from rein.hooks._control import Status, status
from tests.cli.helpers import rein_env
from tests.hooks.conftest import STEERING

DEADLINE = 15.0
"""Seconds to wait for a daemon to come up or for its counters to move."""


@dataclass
class Rig:
    home: Path
    project: Path
    runtime: Path
    homes: list[Path] = field(default_factory=list)
    """Every home whose daemon this test may have started (stopped at the end)."""

    def env(self, home: Path | None = None, **extra: str) -> dict[str, str]:
        home = home or self.home
        if home not in self.homes:
            self.homes.append(home)
        return {
            **rein_env(home),
            "REIN_RUNTIME_DIR": str(self.runtime),
            "REIN_HOOK_DAEMON": "on",
            "REIN_HOOK_DAEMON_IDLE": "120",  # a daemon the finalizer missed still goes away
            **extra,
        }

    def rein(
        self,
        *args: str,
        stdin: str = "",
        home: Path | None = None,
        cwd: Path | None = None,
        extra: Mapping[str, str] | None = None,
    ) -> subprocess.CompletedProcess[str]:
        """`rein ARGS` as a process, with this rig's environment plus `extra`."""
        return subprocess.run(
            [sys.executable, "-m", "rein.cli", *args],
            cwd=cwd or self.project,
            env=self.env(home, **(extra or {})),
            input=stdin,
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )

    def hook(
        self, host: str, event: str, payload: Mapping[str, object] | str, **extra: str
    ) -> subprocess.CompletedProcess[str]:
        """One hook call as a host makes it; `REIN_HOOK_DAEMON="off"` in `extra` for the in-process one."""
        stdin = payload if isinstance(payload, str) else json.dumps(payload)
        return self.rein("hook", host, event, stdin=stdin, extra=extra)

    def status(self, home: Path | None = None) -> Status | None:
        return status(str(home or self.home))

    def wait(self, until: Callable[[Status | None], bool], home: Path | None = None) -> Status | None:
        """The daemon's status once `until` holds for it; fails the test after `DEADLINE` seconds."""
        deadline = time.monotonic() + DEADLINE
        while True:
            got = self.status(home)
            if until(got):
                return got
            assert time.monotonic() < deadline, f"the daemon's status stayed {got}"
            time.sleep(0.02)

    def running(self, home: Path | None = None) -> Status:
        got = self.wait(lambda s: s is not None, home)
        assert got is not None
        return got

    def served(self, home: Path | None = None) -> int:
        return self.running(home).served

    def stop_all(self) -> None:
        """Stop each daemon politely, then end any daemon process still running in this rig's runtime
        directory (one that was still starting when the test ended, say): a hook call starts its
        daemon before it exits, so every such process exists by now."""
        for home in self.homes:
            if self.status(home) is not None:
                self.rein("hook", "daemon", "stop", home=home)
        left = daemons(self.runtime)
        for pid in left:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + DEADLINE
        while any(map(alive, left)) and time.monotonic() < deadline:
            time.sleep(0.02)


def alive(pid: int) -> bool:
    """Whether process `pid` runs (a zombie no longer does: its parent may never reap it)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rpartition(")")[2].split()[0] != "Z"


def wait_gone(runtime: Path) -> None:
    """Wait until no hook daemon runs in `runtime` (those that refuse to serve exit by themselves)."""
    deadline = time.monotonic() + DEADLINE
    while left := daemons(runtime):
        assert time.monotonic() < deadline, f"hook daemons {left} still run in {runtime}"
        time.sleep(0.02)


def daemons(runtime: Path) -> list[int]:
    """The pids of the hook daemons whose runtime directory is `runtime` (or starts with its name: a
    test's variant of it, such as a link)."""
    found: list[int] = []
    wanted = f"REIN_RUNTIME_DIR={runtime}".encode()
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
            environ = (entry / "environ").read_bytes().split(b"\0")
        except OSError:
            continue
        if argv[-4:-1] != [b"hook", b"daemon", b"run"] or not alive(int(entry.name)):
            continue
        if any(variable.startswith(wanted) for variable in environ):
            found.append(int(entry.name))
    return found


def rigged(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Rig]:
    """The body of each test module's `rig` fixture: a home, a project below it with
    tests/hooks/conftest.py's STEERING, and a private runtime directory; daemons started in it are
    stopped when the test ends."""
    home = tmp_path / "home"
    project = home / "project"
    (project / ".rein").mkdir(parents=True)
    (project / ".rein" / "steering.toml").write_text(STEERING)
    runtime = Path(tempfile.mkdtemp(prefix="rein-rt-"))
    monkeypatch.setenv("REIN_RUNTIME_DIR", str(runtime))
    made = Rig(home=home, project=project, runtime=runtime, homes=[home])
    try:
        yield made
    finally:
        made.stop_all()
        shutil.rmtree(runtime, ignore_errors=True)
