"""The machine-facing defaults: the clock, the asyncio timer, the detached on-stop runner."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from rein.builtins.timebox import call_later
from rein.machine import run_detached, wall_clock_ms


def test_the_wall_clock_is_milliseconds_since_the_epoch() -> None:
    before = time.time_ns() // 1_000_000
    read = wall_clock_ms()
    assert before <= read <= time.time_ns() // 1_000_000


def test_call_later_runs_on_the_running_loop_and_can_be_cancelled() -> None:
    ran: list[str] = []

    async def main() -> None:
        call_later(0, lambda: ran.append("kept"))
        call_later(0, lambda: ran.append("cancelled")).cancel()
        await asyncio.sleep(0)  # one loop iteration: the zero-delay timer is due
        await asyncio.sleep(0)

    asyncio.run(main())
    assert ran == ["kept"]


def test_call_later_without_a_loop_schedules_nothing() -> None:
    ran: list[str] = []
    handle = call_later(0, lambda: ran.append("never"))
    handle.cancel()
    assert ran == []


def wait_for(path: Path) -> str:
    """The detached command writes its file when it gets to run; poll for it (bounded)."""
    deadline = time.monotonic() + 60  # a failure bound only: a Python process starting on a busy machine
    while not path.exists() or not path.read_text().endswith("\n"):
        assert time.monotonic() < deadline, f"{path} never appeared"
        time.sleep(0.01)
    return path.read_text()


def test_the_on_stop_command_runs_detached_in_its_own_session(tmp_path: Path) -> None:
    out = tmp_path / "out"
    code = f"import os; open({str(out)!r}, 'w').write(f'{{os.getsid(0)}}\\n')"
    run_detached(f'{sys.executable} -c "{code}"')
    assert int(wait_for(out)) != os.getsid(0)  # its own session: it outlives rein and its terminal


def test_a_command_that_cannot_start_is_dropped(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*_args: object, **_kwargs: object) -> subprocess.Popen[bytes]:
        raise OSError("no shell")

    monkeypatch.setattr(subprocess, "Popen", refuse)
    run_detached("true")
