"""A sessions directory on a read-only file system (a read-only bind mount; chmod does not stop root):
`rein -c -p` and `rein -p` stop with one line naming the file and exit 1; nothing is changed."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from tests.faults.helpers import in_namespace, rein, session_files

pytestmark = pytest.mark.slow


def read_only_run(tmp_path: Path, *args: str) -> tuple[Path, Path, Path, str, str]:
    """A first session written normally, then `rein ARGS` with the sessions directory mounted
    read-only; returns cwd, home, the session file, rein's exit code and its stderr."""
    cwd, home, out = tmp_path / "proj", tmp_path / "home", tmp_path / "out"
    for directory in (cwd, home, out):
        directory.mkdir()
    first = rein("-p", "first", "--provider", "faux", cwd=cwd, home=home)
    assert first.returncode == 0, first.stderr
    [path] = session_files(home)
    sessions = shlex.quote(str(home / ".rein" / "sessions"))
    q = shlex.quote
    script = f"""
        mount --bind {sessions} {sessions}
        mount -o remount,bind,ro {sessions}
        rc=0; REIN {" ".join(map(q, args))} > /dev/null 2> {q(str(out / "stderr"))} || rc=$?
        echo $rc > {q(str(out / "rc"))}
    """
    done = in_namespace(script, cwd=cwd, home=home)
    assert done.returncode == 0, done.stderr
    return cwd, home, path, (out / "rc").read_text().strip(), (out / "stderr").read_text()


def test_continuing_on_a_read_only_file_system_stops_and_changes_nothing(tmp_path: Path) -> None:
    _, home, path, rc, stderr = read_only_run(tmp_path, "-c", "-p", "second", "--provider", "faux")
    assert rc == "1"
    assert stderr.strip().splitlines() == [
        f"rein: cannot save the session to {path}: Read-only file system; the session stops here"
        " (entries before this turn are saved)"
    ]
    assert len(path.read_text().splitlines()) == 3 and session_files(home) == [path]


def test_a_new_session_on_a_read_only_file_system_stops_before_the_run(tmp_path: Path) -> None:
    _, home, path, rc, stderr = read_only_run(tmp_path, "-p", "new", "--provider", "faux")
    assert rc == "1"
    [line] = stderr.strip().splitlines()
    directory = path.parent
    assert line.startswith(f"rein: cannot save the session to {directory}/")
    assert line.endswith(": Read-only file system; the session stops here (nothing was saved)")
    assert session_files(home) == [path]
