"""What the integration tests share."""

from __future__ import annotations

import os
from pathlib import Path

import pytest


def commit_gated_on_pytest(*, exit_code: bool = True) -> str:
    """A `steering.toml`: `git commit` is blocked until a `pytest` call was seen (that passed, with
    `exit_code`; frameworks' tool results carry none, so their tests leave it out)."""
    watch = '{ tool = "bash", command = "^pytest"' + (", exit_code = 0 }" if exit_code else " }")
    return f"""
[[rule]]
name = "test-before-commit"
command = "git"
subcommand = "commit"
reason = "Run the tests and commit after they pass."
[rule.when.not.happened]
event = "tests-ran"
in = "session"

[[observer]]
name = "tests"
writes = ["tests-ran"]
watch = {watch}
"""


def fake_pytest(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A `pytest` first on PATH that exits with the code it is given (`pytest 1` fails)."""
    folder.mkdir(parents=True, exist_ok=True)
    script = folder / "pytest"
    script.write_text('#!/bin/sh\necho "pytest ran, exit $1"\nexit "$1"\n')
    script.chmod(0o755)
    monkeypatch.setenv("PATH", f"{folder}{os.pathsep}{os.environ['PATH']}")
