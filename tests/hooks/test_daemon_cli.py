"""`rein hook daemon start|status|stop|run`: what each prints and how it exits."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from rein.hooks._client import socket_path
from tests.hooks._daemon_rig import Rig, daemons, rigged

RUNNING = re.compile(
    r"hook daemon: running, pid (\d+), socket (\S+), up \d+ s, (\d+) calls served, (\d+) policies cached\n"
)


@pytest.fixture
def rig(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Rig]:
    yield from rigged(tmp_path, monkeypatch)


@pytest.mark.slow
def test_start_status_and_stop(rig: Rig) -> None:
    idle = rig.rein("hook", "daemon", "status")
    assert (idle.returncode, idle.stdout) == (0, "hook daemon: not running (the next hook call starts it)\n")
    started = rig.rein("hook", "daemon", "start")
    assert started.returncode == 0, started.stderr
    shown = RUNNING.fullmatch(started.stdout)
    assert shown is not None, started.stdout
    pid, where, served, _ = shown.groups()
    assert where == socket_path(str(rig.home)) and served == "0"
    assert rig.running().pid == int(pid)
    again = rig.rein("hook", "daemon", "start")  # one runs: nothing new starts
    assert again.returncode == 0 and RUNNING.fullmatch(again.stdout)
    assert RUNNING.fullmatch(again.stdout).group(1) == pid  # type: ignore[union-attr]
    assert daemons(rig.runtime) == [int(pid)]
    status = rig.rein("hook", "daemon", "status")
    assert status.returncode == 0 and RUNNING.fullmatch(status.stdout)
    stopped = rig.rein("hook", "daemon", "stop")
    assert (stopped.returncode, stopped.stdout) == (0, "hook daemon: stopped\n")
    assert not Path(where).exists()
    assert rig.status() is None
    twice = rig.rein("hook", "daemon", "stop")
    assert (twice.returncode, twice.stdout) == (0, "hook daemon: not running\n")


@pytest.mark.slow
def test_run_refuses_a_second_daemon_for_the_same_socket(rig: Rig) -> None:
    assert rig.rein("hook", "daemon", "start").returncode == 0
    second = rig.rein("hook", "daemon", "run")
    assert second.returncode == 1
    assert rig.running().served == 0  # the first still answers


@pytest.mark.parametrize("args", [(), ("bogus",), ("start", "stop")])
def test_a_bad_daemon_command_is_a_usage_error(rig: Rig, args: tuple[str, ...]) -> None:
    done = rig.rein("hook", "daemon", *args)
    assert done.returncode == 2
    assert "rein hook daemon" in done.stderr and "start, stop, status, run" in done.stderr
    assert daemons(rig.runtime) == []


@pytest.mark.parametrize(
    ("action", "usage"),
    [
        ("daemon", "rein hook daemon start|stop|status|run"),
        ("doctor", "rein hook doctor [--user | --project] HOST"),
    ],
)
def test_help(rig: Rig, action: str, usage: str) -> None:
    done = rig.rein("hook", action, "--help")
    assert done.returncode == 0 and done.stderr == ""
    assert usage in done.stdout
    assert "Exit status" in done.stdout
    if action == "daemon":
        for command in ("start", "stop", "status", "run"):
            assert re.search(rf"^\s+{command}\s+\S", done.stdout, re.MULTILINE), command
        assert "REIN_HOOK_DAEMON=off" in done.stdout
    else:
        assert "--project" in done.stdout and "--user" in done.stdout
