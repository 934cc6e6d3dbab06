"""Run `rein` as a user does (a real subprocess, a tmp home, no API keys from the caller), under real
faults: a file-size limit, a tiny tmpfs or a read-only bind mount in a private mount namespace."""

from __future__ import annotations

import functools
import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest

REIN = [sys.executable, "-m", "rein.cli"]


def env(home: Path, **extra: str) -> dict[str, str]:
    out = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY") and k != "CODEX_HOME"}
    out.update(HOME=str(home), NO_COLOR="1", COLUMNS="200", **extra)
    return out


def rein(
    *args: str, cwd: Path, home: Path, preexec: Callable[[], None] | None = None
) -> subprocess.CompletedProcess[str]:
    environment = env(home)
    if preexec is not None:
        # A fault set up in the child (a file-size limit) hits every file it writes, coverage's data
        # file too: such a run is left unmeasured so its stderr is rein's alone.
        for name in ("COVERAGE_PROCESS_START", "COVERAGE_PROCESS_CONFIG"):
            environment.pop(name, None)
    return subprocess.run(
        [*REIN, *args],
        cwd=cwd,
        env=environment,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        preexec_fn=preexec,
    )


def file_size_limit(size: int) -> Callable[[], None]:
    """For `preexec`: writes past `size` bytes in any file fail (EFBIG) instead of killing the process."""

    def limit() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (size, resource.getrlimit(resource.RLIMIT_FSIZE)[1]))

    return limit


def session_files(home: Path) -> list[Path]:
    return sorted((home / ".rein" / "sessions").glob("*/*.jsonl"))


def stderr_lines(result: subprocess.CompletedProcess[str]) -> list[str]:
    return result.stderr.strip().splitlines()


@functools.cache
def namespace_command() -> list[str] | None:
    """An `unshare` command line that gives a private mount namespace where mounting works here, or
    None. Root in a container may mount directly; elsewhere a user namespace (`-r`) may allow it."""
    if shutil.which("unshare") is None:
        return None
    with tempfile.TemporaryDirectory() as probe:
        for command in (["unshare", "-rm"], ["unshare", "-m"]):
            done = subprocess.run(
                [*command, "sh", "-c", 'mount -t tmpfs -o size=16k tmpfs "$0"', probe],
                capture_output=True,
                check=False,
            )
            if done.returncode == 0:
                return command
    return None


def in_namespace(script: str, *, cwd: Path, home: Path) -> subprocess.CompletedProcess[str]:
    """Run `script` (`sh -e`) in a private mount namespace, where `$REIN ARGS...` runs rein (`REIN` is
    a shell function). Skips when mounts are not permitted here (no user namespaces, not root)."""
    command = namespace_command()
    if command is None:
        pytest.skip("mounting a tmpfs needs root or user namespaces (unshare -rm), not available here")
    return subprocess.run(
        [*command, "sh", "-ec", f'REIN() {{ "$PYTHON" -m rein.cli "$@"; }}\n{script}'],
        cwd=cwd,
        env=env(home, PYTHON=sys.executable),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
