"""Inside the person's own git repository, checkpoints and undo leave it exactly as it was: its index
bytes, refs, config, log, stash and status, even with GIT_* variables in rein's environment that point
at it."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from tests.builtins.conftest import Harness, MakeHarness
from tests.checkpoints.conftest import bash, done, edit, files_of, git, reply, write


def go(h: Harness, *inputs: str) -> None:
    async def run() -> None:
        for text in inputs:
            await h.session.prompt(text)

    asyncio.run(run())


def repository(root: Path) -> None:
    """A repository with two commits, a stash, a staged change, an unstaged one and an untracked file."""
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "user.email", "me@example.com")
    git(root, "config", "user.name", "Me")
    (root / "tracked.txt").write_text("one\n")
    (root / "other.txt").write_text("other\n")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "first")
    (root / "tracked.txt").write_text("two\n")
    git(root, "commit", "-q", "-am", "second")
    (root / "other.txt").write_text("stashed\n")
    git(root, "stash", "-q")
    (root / "tracked.txt").write_text("staged\n")
    git(root, "add", "tracked.txt")
    (root / "other.txt").write_text("unstaged\n")
    (root / "untracked.txt").write_text("untracked\n")


def state(root: Path) -> dict[str, object]:
    """What the person's repository is: read without writing (the index first, status without locks)."""
    dot = root / ".git"
    return {
        "index": (dot / "index").read_bytes(),
        "HEAD": (dot / "HEAD").read_bytes(),
        "config": (dot / "config").read_bytes(),
        "refs": git(root, "for-each-ref", "--format=%(refname) %(objectname)"),
        "log": git(root, "log", "--format=%H %s"),
        "stash": git(root, "stash", "list", "--format=%H %s"),
        "status": git(root, "--no-optional-locks", "status", "--porcelain=v2", "--untracked-files=all"),
        "objects": sorted(p.relative_to(dot).as_posix() for p in (dot / "objects").rglob("*")),
    }


def test_the_persons_repository_is_byte_identical_after_a_session_and_an_undo(
    started: MakeHarness, monkeypatch: pytest.MonkeyPatch
) -> None:
    h = started(
        [
            reply(
                write("new.txt", "new\n", "1"),
                edit("tracked.txt", "staged", "agent", "2"),
                bash("echo more >> other.txt && rm untracked.txt", "3"),
            ),
            done(),
        ]
    )
    repository(h.project)
    dot = h.project / ".git"
    # Were the parent's GIT_* variables passed on, the snapshots would land in the person's repository.
    monkeypatch.setenv("GIT_DIR", str(dot))
    monkeypatch.setenv("GIT_INDEX_FILE", str(dot / "index"))
    monkeypatch.setenv("GIT_OBJECT_DIRECTORY", str(dot / "objects"))
    monkeypatch.setenv("GIT_WORK_TREE", str(h.project))
    files = files_of(h.project)
    before = state(h.project)
    go(h, "change things")
    assert files_of(h.project) != files
    during = state(h.project)
    assert {k: v for k, v in during.items() if k != "status"} == {
        k: v for k, v in before.items() if k != "status"
    }
    go(h, "/undo")
    assert files_of(h.project) == files
    assert state(h.project) == before
    assert "undid 1 turn(s), 4 file(s)" in h.ui.notices[-1][0]
