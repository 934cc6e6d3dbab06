"""`rein` with stdin that is not a terminal: each line is a prompt or a command, in order; the output
is the scrollback text without the screen; nobody is asked anything; EOF ends with 0."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.tui.sse_thread import ServerThread, text, tool_call

pytestmark = pytest.mark.slow


def rein(
    *args: str, stdin: str, cwd: Path, home: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    clean.update(HOME=str(home), **(env or {}))
    return subprocess.run(
        [sys.executable, "-m", "rein.cli", *args],
        cwd=cwd,
        env=clean,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_each_line_is_a_prompt_and_eof_ends(project: tuple[Path, Path]) -> None:
    cwd, home = project
    done = rein("--provider", "faux", stdin="hello\n\n/model\nsecond\n", cwd=cwd, home=home)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "",
        "> hello",
        "You said: hello",
        "",
        "> /model",
        "model: faux/default",
        "",
        "> second",
        "You said: second",
    ]
    assert "stdin is not a terminal: one prompt per line" in done.stderr
    assert "Traceback" not in done.stderr


def test_quit_stops_reading(project: tuple[Path, Path]) -> None:
    cwd, home = project
    done = rein("--provider", "faux", "first", stdin="/quit\nnever\n", cwd=cwd, home=home)
    assert done.returncode == 0, done.stderr
    assert "You said: first" in done.stdout and "never" not in done.stdout


def test_nobody_is_asked_so_a_changing_call_is_denied(project: tuple[Path, Path]) -> None:
    cwd, home = project
    call = tool_call("bash", json.dumps({"command": "touch made-by-the-model"}))
    with ServerThread(call, text("I see, it was denied.")) as server:
        env = {"OPENAI_API_KEY": "test"}
        done = rein(*server.args(), stdin="make a file\n", cwd=cwd, home=home, env=env)
        assert done.returncode == 0, done.stderr
        assert not (cwd / "made-by-the-model").exists()
        assert "[bash] touch made-by-the-model" in done.stdout
        assert "nobody approved it" in done.stdout and "I see, it was denied." in done.stdout
        assert "nobody approved it" in server.tool_results(1)[0]
        # Nobody could be asked line by line: the print-mode reason, not "the question was dismissed".
        assert "never ask" in done.stdout and "dismissed" not in done.stdout
