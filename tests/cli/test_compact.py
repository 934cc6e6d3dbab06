"""`rein compact SESSION`: a real subprocess compacting a real session file with the faux provider."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rein.session import CompactionEntry, Session
from tests.cli.helpers import run_rein

pytestmark = pytest.mark.slow


def a_session(tmp_path: Path) -> tuple[Path, Path, Path]:
    home, project = tmp_path / "home", tmp_path / "project"
    project.mkdir(parents=True)
    for n in range(3):
        done = run_rein(
            "-p", f"question {n}", "--provider", "faux", *(["-c"] if n else []), cwd=project, home=home
        )
        assert done.returncode == 0, done.stderr
    (path,) = (home / ".rein" / "sessions").rglob("*.jsonl")
    return home, project, path


def test_compact_appends_one_compaction_and_keeps_every_entry(tmp_path: Path) -> None:
    home, project, path = a_session(tmp_path)
    before = len(Session.open(path).tree)
    done = run_rein(
        "compact", str(path), "keep", "the", "questions", "--provider", "faux", cwd=project, home=home
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"{path}: compacted (manual): summarized")
    after = Session.open(path)
    assert len(after.tree) >= before + 1
    (compaction,) = [e for e in after.tree.active_path() if isinstance(e, CompactionEntry)]
    assert "question 0" in compaction.summary  # the user's words, kept verbatim
    assert after.context().messages[0].kind == "compaction_summary"
    # the faux summarizer echoes its request's last user text: the focus reached it
    assert "keep the questions" in json.dumps(compaction.details)


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
