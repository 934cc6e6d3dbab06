"""`find_session`: what `rein --resume X` opens (a path, an id, the start of one)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rein.session import Session, SessionNotFound, find_session


def session_as(cwd: Path, home: Path, sid: str) -> Path:
    """A session file of `cwd` whose id is `sid` (ids are random: this one is chosen)."""
    made = Session.create(cwd, home=home)
    assert made.path is not None
    lines = made.path.read_text().splitlines(keepends=True)
    header = json.loads(lines[0]) | {"id": sid}
    target = made.path.with_name(made.path.name.replace(made.id, sid))
    target.write_text(json.dumps(header) + "\n" + "".join(lines[1:]))
    made.path.unlink()
    return target


def test_a_path_an_id_and_a_unique_start_name_the_file(tmp_path: Path) -> None:
    cwd, home = tmp_path / "p", tmp_path / "home"
    cwd.mkdir()
    file = session_as(cwd, home, "3f9a2c1e-0000-4000-8000-000000000001")
    assert find_session(home, cwd, str(file)) == file
    assert find_session(home, cwd, "3f9a2c1e-0000-4000-8000-000000000001") == file
    assert find_session(home, cwd, "3f9a") == file


def test_another_projects_session_is_found_by_its_id(tmp_path: Path) -> None:
    home = tmp_path / "home"
    here, there = tmp_path / "here", tmp_path / "there"
    file = session_as(there, home, "77aa0000-0000-4000-8000-000000000001")
    assert find_session(home, here, "77aa") == file


def test_unknown_ambiguous_and_missing_files_are_one_line(tmp_path: Path) -> None:
    cwd, home = tmp_path / "p", tmp_path / "home"
    session_as(cwd, home, "abc10000-0000-4000-8000-000000000001")
    session_as(cwd, home, "abc20000-0000-4000-8000-000000000002")
    with pytest.raises(SessionNotFound) as ambiguous:
        find_session(home, cwd, "abc")
    assert str(ambiguous.value) == (
        "abc: the start of 2 session ids (abc10000-0000-4000-8000-000000000001,"
        " abc20000-0000-4000-8000-000000000002); give more of it"
    )
    assert find_session(home, cwd, "abc2").name.endswith("_abc20000-0000-4000-8000-000000000002.jsonl")
    with pytest.raises(SessionNotFound, match=r"^zzz: no such file, and no session id starts so"):
        find_session(home, cwd, "zzz")
    with pytest.raises(SessionNotFound, match=r"^gone/x.jsonl: No such file or directory$"):
        find_session(home, cwd, "gone/x.jsonl")
