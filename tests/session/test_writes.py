"""Writes that fail: the file keeps every whole line written before, the session stops with one line
naming the file, and nothing after the failure is half-saved. Faults come from the kernel where it
can give them unprivileged (`/dev/full`, a file-size limit), else from a writer injected at the
store's one write call."""

from __future__ import annotations

import errno
import json
import os
import resource
import signal
from pathlib import Path

import pytest

from rein.session import ReadOnlySessionError, Session, SessionWriteError
from rein.session._file import append_line, create_file
from tests.session.helpers import TS, user

FULL = "No space left on device"
SAVED = "the session stops here (entries before this turn are saved)"


def fill_disk(path: Path) -> Path:
    """Point the session file's name at /dev/full (writes fail with ENOSPC); the real file is kept
    aside, as the inode the session wrote to, and returned."""
    aside = path.with_suffix(".saved")
    path.rename(aside)
    path.symlink_to("/dev/full")
    return aside


@pytest.fixture
def session(tmp_path: Path) -> Session:
    return Session.create("/w", home=tmp_path)


def test_a_full_disk_stops_the_session_with_one_line_naming_the_file(session: Session) -> None:
    assert session.path is not None
    first = session.append_message(user("saved"))
    before = session.path.read_bytes()
    aside = fill_disk(session.path)
    with pytest.raises(SessionWriteError) as caught:
        session.append_message(user("lost"))
    assert str(caught.value) == f"cannot save the session to {session.path}: {FULL}; {SAVED}"
    assert caught.value.path == str(session.path) and isinstance(caught.value.__cause__, OSError)
    assert session.leaf_id == first and len(session.tree) == 1  # memory never holds what the file does not
    assert aside.read_bytes() == before
    assert session.write_error is not None


def test_a_broken_session_refuses_every_later_write_without_trying(session: Session) -> None:
    assert session.path is not None
    first = session.append_message(user("saved"))
    aside = fill_disk(session.path)
    with pytest.raises(SessionWriteError):
        session.append_message(user("lost"))
    session.path.unlink()
    aside.rename(session.path)  # the disk has room again: the session still writes nothing more
    before = session.path.read_bytes()
    for attempt in (
        lambda: session.append_message(user("later")),
        session.sync,
        lambda: session.branch(None),
    ):
        with pytest.raises(SessionWriteError, match=FULL):
            attempt()
    assert session.path.read_bytes() == before and session.leaf_id == first


class Writer:
    """`os.write` that writes the first `budget` bytes for real, then fails with `error` (0: returns
    0, a write that takes nothing)."""

    def __init__(self, budget: int, error: int = errno.ENOSPC) -> None:
        self.budget, self.error, self.calls = budget, error, 0

    def __call__(self, fd: int, data: bytes) -> int:
        self.calls += 1
        if self.budget <= 0:
            if self.error == 0:
                return 0
            raise OSError(self.error, os.strerror(self.error))
        done = os.write(fd, data[: self.budget])
        self.budget -= done
        return done


@pytest.mark.parametrize("error", [errno.ENOSPC, errno.EIO, 0])
@pytest.mark.parametrize("budget", [0, 1, 7, 39])
def test_a_write_that_fails_part_way_is_cut_back_to_the_last_whole_line(
    tmp_path: Path, budget: int, error: int
) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(b'{"type":"session"}\n{"a":1}\n')
    writer = Writer(budget, error)
    with pytest.raises(OSError) as caught:
        append_line(path, json.dumps({"b": "x" * 40}), fsync=False, write=writer)
    assert caught.value.errno == (error or errno.ENOSPC)
    assert path.read_bytes() == b'{"type":"session"}\n{"a":1}\n'
    assert writer.calls == (1 if budget == 0 and error else 2)


def test_a_line_is_one_write_when_the_disk_takes_it(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"{}\n")
    writer = Writer(1 << 20)
    append_line(path, '{"b":2}', fsync=True, write=writer)
    assert writer.calls == 1 and path.read_bytes() == b'{}\n{"b":2}\n'


def test_a_header_that_cannot_be_written_leaves_no_file(tmp_path: Path) -> None:
    path = tmp_path / "dir" / "s.jsonl"
    with pytest.raises(OSError, match=FULL):
        create_file(path, '{"type":"session"}', fsync=False, write=Writer(5))
    assert not path.exists()


def test_a_session_that_cannot_be_created_names_the_file(tmp_path: Path) -> None:
    sessions = tmp_path / ".rein" / "sessions"
    sessions.parent.mkdir(parents=True)
    sessions.symlink_to("/dev/null")  # not a directory: the file cannot be made under it
    with pytest.raises(SessionWriteError) as caught:
        Session.create("/w", home=tmp_path)
    assert str(caught.value).startswith(f"cannot save the session to {sessions}/--w--/")
    assert str(caught.value).endswith("; the session stops here (nothing was saved)")


def test_a_file_size_limit_cuts_a_write_short_and_the_file_is_cut_back(session: Session) -> None:
    """The kernel's own short write: with RLIMIT_FSIZE just past the file, a long line is written in
    part, then the rest fails (EFBIG). The session must leave the file as it was."""
    assert session.path is not None
    session.append_message(user("saved"))
    before = session.path.read_bytes()
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    previous = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (len(before) + 100, hard))
    try:
        with pytest.raises(SessionWriteError, match="File too large"):
            session.append_message(user("x" * 1000))
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
        signal.signal(signal.SIGXFSZ, previous)
    assert session.path.read_bytes() == before
    assert len(Session.open(session.path).tree) == 1


def test_sync_of_a_vanished_file_is_a_write_error(session: Session) -> None:
    assert session.path is not None
    session.append_message(user("a"))
    session.sync()
    session.path.unlink()
    with pytest.raises(SessionWriteError, match="No such file or directory"):
        session.sync()


def test_sync_is_a_no_op_in_memory() -> None:
    session = Session.in_memory("/w")
    session.append_message(user("a"))
    session.sync()
    assert session.write_error is None


def lines_of(*entries: str) -> bytes:
    header = {"type": "session", "format": "rein", "version": 1, "id": "s", "timestamp": TS, "cwd": "/w"}
    records = [header]
    parent = None
    for entry_id in entries:
        records.append(
            {
                "type": "message",
                "id": entry_id,
                "parent_id": parent,
                "timestamp": TS,
                "message": user(entry_id),
            }
        )
        parent = entry_id
    return b"".join(json.dumps(record).encode() + b"\n" for record in records)


def test_a_file_cut_anywhere_in_its_last_line_keeps_every_whole_entry(tmp_path: Path) -> None:
    whole = lines_of("a", "b", "c")
    last_start = whole.rindex(b"\n", 0, len(whole) - 1) + 1
    path = tmp_path / "cut.jsonl"
    for cut in [*range(last_start + 1, len(whole) - 1, 9), len(whole) - 2]:
        path.write_bytes(whole[:cut])
        session = Session.open(path)
        assert [entry.id for entry in session.tree.active_path()] == ["a", "b"], cut
        assert [warning.kind for warning in session.warnings] == ["torn"], cut
    path.write_bytes(whole[: len(whole) - 1])  # only the newline is missing: the entry is whole
    assert [entry.id for entry in Session.open(path).tree.active_path()] == ["a", "b", "c"]


def test_an_append_after_a_torn_line_starts_a_fresh_line(tmp_path: Path) -> None:
    whole = lines_of("a", "b")
    path = tmp_path / "torn.jsonl"
    path.write_bytes(whole[:-10])
    session = Session.open(path)
    added = session.append_message(user("after"))
    reopened = Session.open(path)
    assert [entry.id for entry in reopened.tree.active_path()] == ["a", added]
    assert [warning.kind for warning in reopened.warnings] == ["corrupt"]


def future_file(tmp_path: Path, header: dict[str, object]) -> Path:
    path = tmp_path / "other.jsonl"
    path.write_text(json.dumps({"type": "session", "id": "s", "timestamp": TS, "cwd": "/", **header}) + "\n")
    return path


def test_a_file_from_a_newer_rein_is_refused_before_anything_is_written(tmp_path: Path) -> None:
    path = future_file(tmp_path, {"format": "rein", "version": 99})
    before = path.read_bytes()
    session = Session.open(path)
    with pytest.raises(ReadOnlySessionError) as caught:
        session.require_writable()
    assert str(caught.value) == (
        f"{path}: written by a newer rein (session format 99; this rein writes 1): rein reads it but"
        " cannot continue it; upgrade rein, or start a new session"
    )
    with pytest.raises(ReadOnlySessionError, match="newer rein"):
        session.append_message(user("x"))
    assert path.read_bytes() == before


@pytest.mark.parametrize(
    ("header", "why"),
    [
        ({"version": 7}, "written by a newer pi (session format 7; rein writes 2 to 3)"),
        ({}, "a pi session of format 1, whose entries have no ids to append to"),
    ],
)
def test_pi_files_rein_cannot_continue_say_why(tmp_path: Path, header: dict[str, object], why: str) -> None:
    path = future_file(tmp_path, header)
    with pytest.raises(ReadOnlySessionError) as caught:
        Session.open(path).require_writable()
    assert str(caught.value).startswith(f"{path}: {why}: rein reads it but cannot continue it")


def test_writable_sessions_pass_the_check(session: Session) -> None:
    session.require_writable()
    Session.in_memory().require_writable()
