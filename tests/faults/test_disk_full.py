"""A disk that fills up mid-session: `rein -c -p` stops with one line naming the file, exits 1, and the
file is exactly what it was before the failed turn (no torn line, no half-saved prompt)."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest

from rein.session import MessageEntry, Session
from tests.faults.helpers import file_size_limit, in_namespace, rein, session_files, stderr_lines

pytestmark = pytest.mark.slow

SAVED = "the session stops here (entries before this turn are saved)"
LONG = "please read this long prompt " * 300  # about 9 KB: more than the free space, and one line


def dirs(tmp_path: Path) -> tuple[Path, Path]:
    cwd, home = tmp_path / "proj", tmp_path / "home"
    cwd.mkdir()
    home.mkdir()
    return cwd, home


def test_a_file_size_limit_stops_the_run_and_keeps_the_file(tmp_path: Path) -> None:
    cwd, home = dirs(tmp_path)
    first = rein("-p", "first", "--provider", "faux", cwd=cwd, home=home)
    assert first.returncode == 0, first.stderr
    [path] = session_files(home)
    before = path.read_bytes()
    result = rein(
        "-c", "-p", LONG, "--provider", "faux", cwd=cwd, home=home, preexec=file_size_limit(len(before) + 200)
    )
    assert result.returncode == 1
    assert stderr_lines(result) == [f"rein: cannot save the session to {path}: File too large; {SAVED}"]
    assert path.read_bytes() == before
    again = rein("-c", "-p", "after", "--provider", "faux", cwd=cwd, home=home)
    assert again.returncode == 0 and again.stderr == ""
    path_entries = Session.open(path).tree.active_path()
    roles = [entry.message["role"] for entry in path_entries if isinstance(entry, MessageEntry)]
    assert roles == ["user", "assistant", "user", "assistant"]


def test_a_full_tmpfs_stops_the_run_and_keeps_the_file(tmp_path: Path) -> None:
    cwd, home = dirs(tmp_path)
    sessions, out = home / ".rein" / "sessions", tmp_path / "out"
    sessions.mkdir(parents=True)
    out.mkdir()
    q = shlex.quote
    script = f"""
        mount -t tmpfs -o size=16k tmpfs {q(str(sessions))}
        REIN -p first --provider faux > /dev/null
        cp {q(str(sessions))}/*/*.jsonl {q(str(out / "before.jsonl"))}
        cat /dev/zero > {q(str(sessions / "filler"))} 2> /dev/null || true
        rc=0; REIN -c -p {q(LONG)} --provider faux > /dev/null 2> {q(str(out / "stderr"))} || rc=$?
        echo $rc > {q(str(out / "rc"))}
        cp {q(str(sessions))}/*/*.jsonl {q(str(out / "after.jsonl"))}
        ls {q(str(sessions))}/*/ > {q(str(out / "name"))}
    """
    done = in_namespace(script, cwd=cwd, home=home)
    assert done.returncode == 0, done.stderr
    name = (out / "name").read_text().strip()
    path = sessions / f"--{str(cwd).lstrip('/').replace('/', '-')}--" / name
    assert (out / "rc").read_text().strip() == "1"
    message = f"rein: cannot save the session to {path}: No space left on device; {SAVED}"
    assert (out / "stderr").read_text().strip().splitlines() == [message]
    before, after = (out / "before.jsonl").read_bytes(), (out / "after.jsonl").read_bytes()
    assert after == before and after.endswith(b"\n")
    assert [json.loads(line)["type"] for line in after.splitlines()] == ["session", "message", "message"]
