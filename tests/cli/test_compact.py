"""`rein compact SESSION`: a real subprocess compacting a real session file with the faux provider."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from rein.session import CompactionEntry, Session
from tests.cli.helpers import rein_env, run_rein

pytestmark = pytest.mark.slow


def run_scripted(*args: str, replies: list[str], cwd: Path, home: Path) -> subprocess.CompletedProcess[str]:
    """`rein` whose faux provider answers with `replies` in order (`REIN_FAUX_SCRIPT`), then echoes."""
    script = home / f"script-{len(list(home.glob('script-*')))}.json"
    script.parent.mkdir(parents=True, exist_ok=True)
    script.write_text(json.dumps({"replies": [[{"text": text}] for text in replies]}), encoding="utf-8")
    return subprocess.run(
        [sys.executable, "-m", "rein.cli", *args],
        cwd=cwd,
        env={**rein_env(home), "REIN_FAUX_SCRIPT": str(script)},
        input="",
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def a_session(tmp_path: Path, answer: str | None = None) -> tuple[Path, Path, Path]:
    """Three turns; `answer` replies to each (None: the echo)."""
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir(parents=True)
    for n in range(3):
        args = ("-p", f"question {n}", "--provider", "faux", *(["-c"] if n else []))
        done = run_scripted(*args, replies=[answer] if answer else [], cwd=project, home=home)
        assert done.returncode == 0, done.stderr
    (path,) = (home / ".rein" / "sessions").rglob("*.jsonl")
    return home, project, path


def test_compact_appends_one_compaction_and_keeps_every_entry(tmp_path: Path) -> None:
    home, project, path = a_session(tmp_path, answer="a long answer " * 150)
    before = len(Session.open(path).tree)
    done = run_scripted(
        "compact", str(path), "keep", "the", "questions", "--provider", "faux",
        replies=["## Goal\nanswer the questions"], cwd=project, home=home,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"{path}: compacted (manual): summarized")
    after = Session.open(path)
    assert len(after.tree) >= before + 1
    (compaction,) = [e for e in after.tree.active_path() if isinstance(e, CompactionEntry)]
    assert "question 0" in compaction.summary  # the user's words, kept verbatim
    assert "## Goal\nanswer the questions" in compaction.summary
    assert after.context().messages[0].kind == "compaction_summary"


@pytest.mark.parametrize(
    ("answer", "says"),
    [
        (None, "not compacted: too little to summarize: the summary would take at least "),
        ("an answer " * 40, "not compacted: the summary ("),
    ],
    ids=["before-asking", "after-asking"],
)
def test_a_compaction_that_would_not_shrink_the_session_is_refused(
    tmp_path: Path, answer: str | None, says: str
) -> None:
    """Three short turns leave too little to summarize; with longer answers the model is asked, and
    the echo summarizer (which repeats the whole transcript) writes a summary larger than it."""
    home, project, path = a_session(tmp_path, answer)
    written = path.read_bytes()
    done = run_rein("compact", str(path), "--provider", "faux", cwd=project, home=home)
    assert done.returncode == 0 and done.stdout == ""
    (line,) = done.stderr.splitlines()
    assert line.startswith(f"rein compact: {path}: {says}"), line
    if answer:
        assert "tokens) would be larger than what it replaces (" in line
    assert path.read_bytes() == written  # nothing was written


def test_compact_reports_bad_input_in_one_line(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir(parents=True)
    missing = run_rein("compact", str(tmp_path / "none.jsonl"), "--provider", "faux", cwd=project, home=home)
    assert missing.returncode == 2
    assert missing.stderr.count("\n") == 1 and "none.jsonl" in missing.stderr
    (tmp_path / "bad.jsonl").write_text("not a session\n")
    bad = run_rein("compact", str(tmp_path / "bad.jsonl"), "--provider", "faux", cwd=project, home=home)
    assert bad.returncode == 2 and "bad.jsonl" in bad.stderr


def test_a_single_turn_has_nothing_to_compact(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir(parents=True)
    assert run_rein("-p", "only", "--provider", "faux", cwd=project, home=home).returncode == 0
    (path,) = (home / ".rein" / "sessions").rglob("*.jsonl")
    done = run_rein("compact", str(path), "--provider", "faux", cwd=project, home=home)
    assert done.returncode == 0 and "nothing to compact" in done.stderr
    assert not any(isinstance(e, CompactionEntry) for e in Session.open(path).tree)
