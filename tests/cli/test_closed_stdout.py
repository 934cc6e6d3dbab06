"""A closed stdout (`rein ... | head -1`) ends quietly: no traceback, no "Exception ignored", exit 1
(the output was not all delivered; for `check` that fails closed)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.helpers import run_rein_closed_stdout

MANY = '{"command": "ls"}\n' * 2000


@pytest.mark.parametrize(
    ("args", "stdin"),
    [
        (("check", "--jsonl"), MANY),
        (("check", "--", "ls"), ""),
        (("check", "--json", "--", "ls"), ""),
        (("check", "--help"), ""),
        (("explain", "--", "ls"), ""),
        (("explain", "--json", "--", "ls"), ""),
        (("rules", "list"), ""),
        (("rules", "test", "-"), "console.log(1)\n"),
        (("hook", "--help"), ""),
        (("hook", "install", "claude", "--dry-run"), ""),
        (("--help",), ""),
        (("--version",), ""),
        (("--provider", "faux", "-p", "hello"), ""),
        (("--provider", "faux", "--mode", "json", "-p", "hello"), ""),
    ],
    ids=lambda value: " ".join(value) if isinstance(value, tuple) else None,
)
@pytest.mark.slow
def test_a_closed_stdout_ends_quietly_with_1(args: tuple[str, ...], stdin: str, tmp_path: Path) -> None:
    done = run_rein_closed_stdout(*args, cwd=tmp_path, home=tmp_path, stdin=stdin)
    assert (done.returncode, done.stderr) == (1, "")


@pytest.mark.slow
def test_print_mode_stops_the_run_when_nobody_reads(tmp_path: Path) -> None:
    """The reply is cut short and saved as aborted: the model is not kept talking to a closed pipe."""
    done = run_rein_closed_stdout("--provider", "faux", "-p", "hello " * 400, cwd=tmp_path, home=tmp_path)
    assert (done.returncode, done.stderr) == (1, "")
    (session,) = (tmp_path / ".rein" / "sessions").rglob("*.jsonl")
    entries = [json.loads(line) for line in session.read_text().splitlines()[1:]]
    replies = [e["message"] for e in entries if e.get("message", {}).get("role") == "assistant"]
    assert [reply["stop_reason"] for reply in replies] == ["aborted"]
