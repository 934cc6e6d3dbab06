"""Run `rein` as a user does: a real subprocess, in a tmp home, with no API keys from the caller."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def rein_env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY") and k != "CODEX_HOME"}
    env.update(HOME=str(home), NO_COLOR="1", COLUMNS="200")
    return env


def run_rein(*args: str, cwd: Path, home: Path, stdin: str | None = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "rein.cli", *args],
        cwd=cwd,
        env=rein_env(home),
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def run_rein_closed_stdout(
    *args: str, cwd: Path, home: Path, stdin: str = ""
) -> subprocess.CompletedProcess[str]:
    """`rein ... | head -0`, without the race: stdout is a pipe whose reader is closed before rein
    starts, so its first write fails (EPIPE), as it would once `head` has read what it wanted."""
    reader, writer = os.pipe()
    os.close(reader)
    try:
        return subprocess.run(
            [sys.executable, "-m", "rein.cli", *args],
            cwd=cwd,
            env=rein_env(home),
            input=stdin,
            stdout=writer,
            stderr=subprocess.PIPE,
            text=True,
            timeout=60,
            check=False,
        )
    finally:
        os.close(writer)
