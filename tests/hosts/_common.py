"""What every real-host test shares: a temporary HOME with a git project, rein's hooks installed the way a
user installs them (the venv's `rein hook install <host>` as a real process), and the commands the
scripted model asks the host to run.

    box = Sandbox.make(tmp_path)
    box.install("claude")                       # `rein hook install claude` in the project, HOME=box.home
    proc = box.run([host_bin["claude"], "-p", "go"], timeout=120)
    assert not box.marker.exists()              # the blocked command did not run
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

REIN = Path(sys.executable).with_name("rein")
"""The venv's `rein` script: what a user who installed rein runs, and so what `install` writes."""

MARKER = "blocked-ran"
BLOCKED = f"touch {MARKER} && git push --force origin main"
"""A command rein's defaults block (a force push); had it run, it would leave the marker file."""
LISTED = "listed-file.txt"
LIST = "ls"
"""A command every policy allows; its output names `LISTED`, which the project holds."""
WRITTEN = "written.txt"
WRITTEN_TEXT = "written through the host's file tool\n"
STEERING = """\
[[observer]]
name = "tests"
writes = ["tests-passed"]
watch = { tool = "bash", command = "^pytest", exit_code = 0 }

[[observer]]
name = "failed"
writes = ["tests-failed"]
watch = { tool = "bash", command = "^pytest", exit_code = 1 }

[[rule]]
name = "commit-after-tests"
reason = "Run pytest in this agent loop before committing."
command = "git"
subcommand = "commit"
[rule.when]
not = { happened = { event = "tests-passed", in = "agent_loop" } }

[[rule]]
name = "no-env-write"
reason = "Never write .env files; ask the user."
tool = "write"
pattern = "\\\\.env$"
"""
"""The project policy of the exit-code scenarios: commits wait for a passing pytest, `.env` stays
unwritten, and both pytest outcomes are recorded."""
TAG = "[steering:no-force-push@defaults]"
"""The start of the reason rein gives for the blocked command: what the model must see."""


@dataclass(frozen=True, slots=True)
class Sandbox:
    home: Path
    project: Path
    runtime: Path
    """A short private directory for rein's hook daemon socket (unix socket paths are capped at 108
    bytes, so not below pytest's long tmp paths)."""
    env: dict[str, str]

    @property
    def marker(self) -> Path:
        return self.project / MARKER

    @staticmethod
    def make(tmp_path: Path, extra_env: dict[str, str] | None = None) -> Sandbox:
        home = tmp_path / "home"
        project = home / "project"
        project.mkdir(parents=True)
        runtime = Path(tempfile.mkdtemp(prefix="rein-rt-"))
        env = {
            key: value
            for key, value in os.environ.items()
            if not key.endswith(("_API_KEY", "_BASE_URL"))
            and not key.startswith(("CODEX_", "GEMINI_", "CLAUDE"))
        }
        env.update(
            HOME=str(home),
            XDG_CONFIG_HOME=str(home / ".config"),
            XDG_CACHE_HOME=str(home / ".cache"),
            XDG_DATA_HOME=str(home / ".local" / "share"),
            XDG_STATE_HOME=str(home / ".local" / "state"),
            REIN_RUNTIME_DIR=str(runtime),
            REIN_HOOK_DAEMON="on",  # as users run it (tests/conftest.py turns it off elsewhere)
            NO_COLOR="1",
            GIT_AUTHOR_NAME="t",
            GIT_AUTHOR_EMAIL="t@example.com",
            GIT_COMMITTER_NAME="t",
            GIT_COMMITTER_EMAIL="t@example.com",
            **(extra_env or {}),
        )
        box = Sandbox(home=home, project=project, runtime=runtime, env=env)
        (project / LISTED).write_text("listed\n")
        box.git("init", "-q", "-b", "main")
        box.git("add", ".")
        box.git("commit", "-q", "-m", "init")
        return box

    def git(self, *args: str) -> None:
        subprocess.run(["git", *args], cwd=self.project, env=self.env, check=True, capture_output=True)

    def install(self, host: str, *flags: str) -> subprocess.CompletedProcess[str]:
        """`rein hook install <host> [flags]`, run in the project as a user would."""
        return self.run([str(REIN), "hook", "install", host, *flags], timeout=60, check=True)

    def run(
        self, argv: Sequence[str | Path], *, timeout: float, check: bool = False, stdin: str = ""
    ) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(arg) for arg in argv],
            cwd=self.project,
            env=self.env,
            input=stdin,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=check,
        )

    def close(self) -> None:
        """Stop the hook daemon a test's hooks may have started (it lives in `runtime`), then remove
        `runtime`."""
        if self.runtime.exists():
            subprocess.run(
                [str(REIN), "hook", "daemon", "stop"],
                check=False,
                env=self.env,
                capture_output=True,
                timeout=30,
            )
            shutil.rmtree(self.runtime, ignore_errors=True)
