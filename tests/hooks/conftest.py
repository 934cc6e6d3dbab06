"""Hooks as hosts run them: a real `rein hook <host> <event>` process, HOME in a temporary directory."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

import pytest

from rein.hooks import session_path
from tests.cli.helpers import run_rein

STEERING = """\
[[observer]]
name = "tests"
writes = ["tests-passed"]
watch = { tool = "bash", command = "^pytest", exit_code = 0 }

[[observer]]
name = "docs"
writes = ["docs-edited"]
watch = { tool = "edit", path = ["docs/*", "*/docs/*"] }

[[rule]]
name = "commit-after-tests"
reason = "Run pytest in this agent loop before committing."
command = "git"
subcommand = "commit"
[rule.when]
not = { happened = { event = "tests-passed", in = "agent_loop" } }

[[rule]]
name = "push-after-docs"
reason = "Update the docs before pushing."
command = "git"
subcommand = "push"
[rule.when]
not = { happened = { event = "docs-edited", in = "session" } }

[[rule]]
name = "no-env-write"
reason = "Never write .env files; ask the user."
tool = "write"
pattern = "\\\\.env$"

[[rule]]
name = "no-env-edit"
reason = "Never edit .env files; ask the user."
tool = "edit"
pattern = "\\\\.env$"

[[rule]]
name = "no-secret-reads"
reason = "Secrets stay unread."
tool = "read"
pattern = "secrets"
"""


ASKING = """\

[[rule]]
name = "ask-to-ship"
reason = "Shipping to production needs the user's yes."
command = "shipit"
subcommand = "prod"
verdict = "ask"

[[rule]]
name = "ask-to-read-vault"
reason = "The vault is read only with the user's yes."
tool = "read"
pattern = "vault"
verdict = "ask"

[[rule]]
name = "ask-to-write-changelog"
reason = "The changelog is written only with the user's yes."
tool = "write"
pattern = "CHANGELOG"
verdict = "ask"
"""
"""Rules that ask the person rather than block (`asking`): a command, a read and a write."""


def run_hook(
    host: str, event: str, payload: Mapping[str, object] | str, *, home: Path, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    """Run one hook the way a host does: a fresh process, the payload on stdin."""
    stdin = payload if isinstance(payload, str) else json.dumps(payload)
    return run_rein("hook", host, event, cwd=cwd or home, home=home, stdin=stdin)


_PROBE = """\
import atexit, os, sys

def _record():
    with open(os.environ["REIN_TEST_MODULES"], "w") as file:
        file.write("\\n".join(sorted(sys.modules)))

atexit.register(_record)
"""


Imported = Callable[[], set[str]]


@pytest.fixture
def imported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Imported:
    """Make each `rein` process the test runs record, as it exits, every module it imported; call the
    result for the last process's set. (`-X importtime` would miss modules loaded by `importlib`.)"""
    probe = tmp_path / "probe"
    probe.mkdir()
    (probe / "sitecustomize.py").write_text(_PROBE)
    record = tmp_path / "modules.txt"
    monkeypatch.setenv("PYTHONPATH", str(probe), prepend=os.pathsep)
    monkeypatch.setenv("REIN_TEST_MODULES", str(record))
    return lambda: set(record.read_text().splitlines())


def answer(done: subprocess.CompletedProcess[str]) -> dict[str, object]:
    """The JSON a hook printed (exit 0 is the structured path for every host)."""
    assert done.returncode == 0, done.stderr
    value = json.loads(done.stdout)
    assert isinstance(value, dict)
    return value


@dataclass(frozen=True)
class Dirs:
    home: Path
    project: Path

    def session_file(self, host: str, session: str) -> Path:
        return session_path(self.home, host, session)

    def session_lines(self, host: str, session: str) -> list[dict[str, object]]:
        text = self.session_file(host, session).read_text()
        return [json.loads(line) for line in text.splitlines()]


@pytest.fixture
def dirs(tmp_path: Path) -> Dirs:
    """A home and a project below it whose `.rein/steering.toml` has observers and rules."""
    home = tmp_path / "home"
    project = home / "project"
    (project / ".rein").mkdir(parents=True)
    (project / ".rein" / "steering.toml").write_text(STEERING)
    return Dirs(home=home, project=project)


@pytest.fixture
def asking(dirs: Dirs) -> Dirs:
    """`dirs`, whose steering also has the rules that ask (`ASKING`)."""
    (dirs.project / ".rein" / "steering.toml").write_text(STEERING + ASKING)
    return dirs
