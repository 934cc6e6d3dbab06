"""A session file written by a newer rein: refused before the run starts (exit 2, an input error), with
one line naming the file; the file is not touched and no model is called."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.faults.helpers import rein, session_files, stderr_lines

pytestmark = pytest.mark.slow


def test_continue_and_resume_refuse_a_file_from_a_newer_rein(tmp_path: Path) -> None:
    cwd, home = tmp_path / "proj", tmp_path / "home"
    cwd.mkdir()
    first = rein("-p", "first", "--provider", "faux", cwd=cwd, home=home)
    assert first.returncode == 0, first.stderr
    [path] = session_files(home)
    lines = path.read_text().splitlines()
    header = json.loads(lines[0])
    header["version"] = 99
    path.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n")
    before = path.read_bytes()
    message = (
        f"rein: {path}: written by a newer rein (session format 99; this rein writes 1): rein reads it but"
        " cannot continue it; upgrade rein, or start a new session"
    )
    for args in (["-c"], ["--resume", str(path)]):
        result = rein(*args, "-p", "second", "--provider", "faux", cwd=cwd, home=home)
        assert result.returncode == 2
        assert stderr_lines(result) == [message]
        assert result.stdout == ""  # no reply: the model was never asked
        assert path.read_bytes() == before
    assert session_files(home) == [path]
