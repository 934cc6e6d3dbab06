"""`rein sessions`: this directory's sessions (or every project's), newest first."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from rein.ai import UserMessage, message_to_json
from rein.cli.sessions import line, size
from rein.session import Session, list_sessions, sessions_dir
from tests.cli.helpers import run_rein

FIXTURES = Path(__file__).resolve().parents[1] / "session" / "fixtures"
KEYS = {"id", "file", "cwd", "created", "modified", "entries", "bytes", "first_prompt", "model"}


def make(cwd: Path, home: Path, prompt: str, *, mtime: int, model: str | None = "faux") -> Session:
    store = Session.create(cwd, home=home)
    if model is not None:
        store.append_model_change(model, "default")
    store.append_message(message_to_json(UserMessage.of(prompt)))
    assert store.path is not None
    os.utime(store.path, (mtime, mtime))
    return store


def bytes_of(store: Session) -> int:
    assert store.path is not None
    return store.path.stat().st_size


def test_no_sessions_is_not_an_error(tmp_path: Path) -> None:
    done = run_rein("sessions", cwd=tmp_path, home=tmp_path / "home")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"no sessions of {tmp_path}")


def test_lists_newest_first_one_line_each(tmp_path: Path) -> None:
    home, cwd = tmp_path / "home", tmp_path / "project"
    cwd.mkdir()
    old = make(cwd, home, "the old\nprompt", mtime=1_700_000_000)
    new = make(cwd, home, "the new prompt", mtime=1_800_000_000, model=None)
    make(tmp_path / "elsewhere", home, "not this directory", mtime=1_900_000_000)
    done = run_rein("sessions", cwd=cwd, home=home)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == 2
    assert new.id[:8] in lines[0] and lines[0].endswith(
        f"1 entry  {size(bytes_of(new)):>8}  -  the new prompt"
    )
    assert old.id[:8] in lines[1] and lines[1].endswith("faux/default  the old prompt")
    assert "2 entries" in lines[1]


def test_json_lines(tmp_path: Path) -> None:
    home, cwd = tmp_path / "home", tmp_path / "project"
    cwd.mkdir()
    store = make(cwd, home, "hello", mtime=1_700_000_000)
    assert store.path is not None
    done = run_rein("sessions", "--json", cwd=cwd, home=home)
    assert done.returncode == 0, done.stderr
    (item,) = [json.loads(line) for line in done.stdout.splitlines()]
    assert set(item) == KEYS
    assert item["id"] == store.id and item["file"] == str(store.path) and item["cwd"] == str(cwd)
    assert item["created"] == store.header.timestamp and item["modified"].startswith("2023-11-1")
    assert (item["entries"], item["bytes"]) == (2, store.path.stat().st_size)
    assert (item["first_prompt"], item["model"]) == ("hello", "faux/default")


@pytest.mark.slow
def test_a_file_that_cannot_be_read_is_listed_with_its_problem(tmp_path: Path) -> None:
    home, cwd = tmp_path / "home", tmp_path / "project"
    cwd.mkdir()
    good = make(cwd, home, "fine", mtime=1_700_000_000)
    bad = sessions_dir(home, cwd) / "2026-01-01T00-00-00-000Z_broken00-id.jsonl"
    bad.write_text("not json\n", encoding="utf-8")
    os.utime(bad, (1_800_000_000, 1_800_000_000))
    done = run_rein("sessions", cwd=cwd, home=home)
    assert done.returncode == 0, done.stderr
    first, second = done.stdout.splitlines()
    assert "broken00" in first and f"{bad}:1: not a session file" in first
    assert good.id[:8] in second and second.endswith("fine")
    as_json = run_rein("sessions", "--json", cwd=cwd, home=home)
    problem = json.loads(as_json.stdout.splitlines()[0])
    assert problem["id"] == "broken00-id" and problem["problem"].startswith(f"{bad}:1: not a session file")


@pytest.mark.slow
def test_all_groups_by_directory_and_cwd_picks_one(tmp_path: Path) -> None:
    home, one, two = tmp_path / "home", tmp_path / "one", tmp_path / "two"
    a = make(one, home, "in one", mtime=1_700_000_000)
    b = make(two, home, "in two", mtime=1_800_000_000)
    c = make(one, home, "in one again", mtime=1_900_000_000)
    done = run_rein("sessions", "--all", cwd=tmp_path, home=home)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == f"{one}:" and lines[3] == f"{two}:"
    assert [line.split()[2] for line in (lines[1], lines[2], lines[4])] == [c.id[:8], a.id[:8], b.id[:8]]
    assert all(line.startswith("  ") for line in (lines[1], lines[2], lines[4]))
    other = run_rein("sessions", "--cwd", str(two), cwd=tmp_path, home=home)
    assert other.returncode == 0 and len(other.stdout.splitlines()) == 1 and b.id[:8] in other.stdout


def test_pi_session_shows_its_first_prompt(tmp_path: Path) -> None:
    home, cwd = tmp_path / "home", tmp_path / "project"
    cwd.mkdir()
    lines = (FIXTURES / "pi_v3.jsonl").read_text(encoding="utf-8").splitlines()
    header = json.loads(lines[0]) | {"cwd": str(cwd)}
    target = sessions_dir(home, cwd) / "2026-01-24T16-22-26-831Z_pi.jsonl"
    target.parent.mkdir(parents=True)
    target.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n", encoding="utf-8")
    done = run_rein("sessions", "--json", cwd=cwd, home=home)
    (item,) = [json.loads(line) for line in done.stdout.splitlines()]
    assert item["first_prompt"] == "Add a --verbose flag to the CLI"
    assert (item["entries"], item["model"]) == (18, "openai/gpt-5")


def test_long_lines_are_cut_to_the_terminal(tmp_path: Path) -> None:
    home, cwd = tmp_path / "home", tmp_path / "project"
    cwd.mkdir()
    store = make(cwd, home, "word " * 100, mtime=1_700_000_000)
    (info,) = list_sessions(home, str(cwd))
    cut = line(info, 70)
    assert len(cut) == 70 and cut.endswith(" wo...") and store.id[:8] in cut
    assert line(info, 1000).endswith("word " * 99 + "word")
    assert line(info, 70, indent="  ").startswith("  ")


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--bogus"], "rein sessions: no such option: --bogus"),
        (["--all", "--cwd", "."], "rein sessions: --all lists every directory; leave out --cwd"),
    ],
)
@pytest.mark.slow
def test_bad_options_exit_2(tmp_path: Path, args: list[str], says: str) -> None:
    done = run_rein("sessions", *args, cwd=tmp_path, home=tmp_path)
    assert done.returncode == 2
    assert done.stderr.startswith(says) and len(done.stderr.splitlines()) == 1


def test_sizes_read_as_people_read_them() -> None:
    assert [size(n) for n in (0, 999, 1000, 4140, 2_300_000, 5 * 10**12)] == [
        "0 B",
        "999 B",
        "1.0 kB",
        "4.1 kB",
        "2.3 MB",
        "5000.0 GB",
    ]
