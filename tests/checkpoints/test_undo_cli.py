"""`rein undo [N]` as a real subprocess, on the latest session of a directory whose runs (`rein -p`,
the faux provider scripted with write, edit and bash calls) changed real files."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.checkpoints.conftest import files_of
from tests.cli.helpers import rein_env, run_rein

pytestmark = pytest.mark.slow


def agent_run(prompt: str, calls: list[dict[str, object]], *, cwd: Path, home: Path, more: bool) -> None:
    """One `rein -p` run whose model makes `calls`, then says it is done (`-c` continues the session)."""
    script = home / f"script-{len(list(home.glob('script-*')))}.json"
    script.parent.mkdir(parents=True, exist_ok=True)
    script.write_text(json.dumps({"replies": [calls, [{"text": "Done."}]]}), encoding="utf-8")
    args = ["-p", prompt, "--provider", "faux", "--approve", "auto", *(["-c"] if more else [])]
    done = subprocess.run(
        [sys.executable, "-m", "rein.cli", *args],
        cwd=cwd,
        env={**rein_env(home), "REIN_FAUX_SCRIPT": str(script)},
        input="",
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr


def call(tool: str, ident: str, **arguments: object) -> dict[str, object]:
    return {"tool": tool, "id": ident, "arguments": arguments}


def test_rein_undo_2_puts_back_the_files_of_the_last_two_runs(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir(parents=True)
    (project / "keep.txt").write_text("old line\n")
    start = files_of(project)
    first = [call("write", "1", path="a.txt", content="alpha\n"), call("bash", "2", command="rm keep.txt")]
    agent_run("one", first, cwd=project, home=home, more=False)
    after_one = files_of(project)
    assert after_one == {"a.txt": b"alpha\n"}
    second = [call("edit", "3", path="a.txt", old_string="alpha", new_string="beta")]
    agent_run(
        "two", [*second, call("bash", "4", command="echo c > c.txt")], cwd=project, home=home, more=True
    )
    agent_run("three", [call("write", "5", path="d.txt", content="d\n")], cwd=project, home=home, more=True)

    undone = run_rein("undo", "2", cwd=project, home=home)
    assert undone.returncode == 0, undone.stderr
    assert undone.stdout.splitlines() == [
        "undid 2 turn(s), 3 file(s):",
        "  restored   a.txt",
        "  removed    c.txt",
        "  removed    d.txt",
    ]
    assert files_of(project) == after_one
    last = run_rein("undo", cwd=project, home=home)
    assert last.returncode == 0, last.stderr
    assert files_of(project) == start
    assert last.stdout.splitlines() == [
        "undid 1 turn(s), 2 file(s):",
        "  removed    a.txt",
        "  recreated  keep.txt",
    ]
    nothing = run_rein("undo", cwd=project, home=home)
    assert nothing.returncode == 0 and nothing.stdout == ""
    assert "no turn of this branch changed files" in nothing.stderr


def test_rein_undo_says_why_it_cannot(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir(parents=True)
    none = run_rein("undo", cwd=project, home=home)
    assert none.returncode == 2
    assert none.stderr.strip() == f"rein undo: no session of {project.resolve()} (rein sessions lists them)"
    bad = run_rein("undo", "0", cwd=project, home=home)
    assert bad.returncode == 2
