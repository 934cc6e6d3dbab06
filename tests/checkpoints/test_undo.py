"""`/undo` in a real session (faux provider scripting write, edit and bash calls) on real files, with
the project's snapshots in a real shadow git repository under the tmp home."""

from __future__ import annotations

import asyncio
from pathlib import Path

from rein.ai import Context
from rein.ai.providers.faux import FauxTurn
from rein.checkpoints import CHECKPOINT, UNDO, store_dir
from rein.session import CustomEntry, CustomMessageEntry
from tests.builtins.conftest import Harness, MakeHarness
from tests.checkpoints.conftest import bash, done, edit, files_of, reply, write


def go(h: Harness, *inputs: str) -> None:
    async def run() -> None:
        for text in inputs:
            await h.session.prompt(text)

    asyncio.run(run())


def entries(h: Harness, custom_type: str) -> list[dict[str, object]]:
    return [
        dict(e.data)
        for e in h.store.tree.active_path()
        if isinstance(e, CustomEntry) and e.custom_type == custom_type and isinstance(e.data, dict)
    ]


def two_runs(make: MakeHarness) -> Harness:
    """Run 1 writes a.txt, edits keep.txt and makes sub/b.txt with bash; run 2 edits a.txt, deletes
    keep.txt with bash and writes c.txt."""
    return make(
        [
            reply(
                write("a.txt", "alpha\n", "1"),
                edit("keep.txt", "old", "new", "2"),
                bash("mkdir -p sub && printf 'bee\\n' > sub/b.txt", "3"),
            ),
            done(),
            reply(edit("a.txt", "alpha", "ALPHA", "4"), bash("rm keep.txt", "5"), write("c.txt", "c\n", "6")),
            done(),
        ]
    )


def test_each_run_that_changes_files_is_a_checkpoint_and_undo_puts_them_back(started: MakeHarness) -> None:
    h = two_runs(started)
    (h.project / "keep.txt").write_text("old line\n")
    (h.project / "untouched.txt").write_text("same\n")
    start = files_of(h.project)
    go(h, "one")
    after_one = files_of(h.project)
    assert after_one == {**start, "a.txt": b"alpha\n", "keep.txt": b"new line\n", "sub/b.txt": b"bee\n"}
    go(h, "two", "a question with no tools")
    checkpoints = entries(h, CHECKPOINT)
    assert [sorted((f["path"], f["change"]) for f in c["files"]) for c in checkpoints] == [  # type: ignore[attr-defined]
        [("a.txt", "added"), ("keep.txt", "modified"), ("sub/b.txt", "added")],
        [("a.txt", "modified"), ("c.txt", "added"), ("keep.txt", "deleted")],
    ]

    go(h, "/undo")
    assert files_of(h.project) == after_one
    assert h.ui.notices[-1][0] == (
        "/undo: undid 1 turn(s), 3 file(s):\n  restored   a.txt\n  removed    c.txt\n  recreated  keep.txt"
    )
    go(h, "/undo")
    assert files_of(h.project) == start
    assert not (h.project / "sub").exists()
    assert "undid 1 turn(s), 3 file(s)" in h.ui.notices[-1][0]
    go(h, "/undo")
    assert h.ui.notices[-1][0] == "/undo: no turn of this branch changed files (or they are undone already)"
    assert len(entries(h, UNDO)) == 2
    assert (store_dir(h.home, h.project.resolve()) / "git" / "HEAD").is_file()


def test_undo_n_restores_the_last_n_turns_at_once(started: MakeHarness) -> None:
    h = two_runs(started)
    (h.project / "keep.txt").write_text("old line\n")
    start = files_of(h.project)
    go(h, "one", "two", "/undo 2")
    assert files_of(h.project) == start
    assert h.ui.notices[-1][0] == (
        "/undo: undid 2 turn(s), 4 file(s):\n"
        "  removed    a.txt\n"
        "  removed    c.txt\n"
        "  recreated  keep.txt\n"
        "  removed    sub/b.txt"
    )
    go(h, "/undo")
    assert "no turn of this branch changed files" in h.ui.notices[-1][0]
    note = [e for e in h.store.tree if isinstance(e, CustomMessageEntry)]
    assert note == []  # sent with the next prompt, not before


def test_a_file_changed_after_the_turn_is_restored_and_the_message_says_so(started: MakeHarness) -> None:
    h = started([reply(write("a.txt", "agent\n")), done()])
    (h.project / "a.txt").write_text("mine\n")
    go(h, "go")
    (h.project / "a.txt").write_text("edited by the person\n")
    go(h, "/undo")
    assert (h.project / "a.txt").read_text() == "mine\n"
    assert h.ui.notices[-1][0].endswith("changed since the turn, restored all the same: a.txt")


def test_a_run_of_only_read_only_tools_records_nothing_and_creates_no_store(started: MakeHarness) -> None:
    h = started([reply(), done()])
    (h.project / "a.txt").write_text("x\n")
    go(h, "hello")
    assert entries(h, CHECKPOINT) == []
    assert not (h.home / ".rein" / "checkpoints").exists()


def test_undo_refuses_a_bad_count(started: MakeHarness) -> None:
    h = started([])
    go(h, "/undo two")
    assert h.ui.notices[-1] == ("/undo two: give a number of turns, /undo 2", "warning")


def test_ignored_files_stay_out_and_git_dirs_of_the_project_are_never_snapshotted(
    started: MakeHarness,
) -> None:
    h = started(
        [reply(bash("mkdir -p node_modules/x && echo 1 > node_modules/x/i.js && echo y > y.txt")), done()]
    )
    (h.project / ".gitignore").write_text("node_modules/\n")
    go(h, "go")
    [checkpoint] = entries(h, CHECKPOINT)
    assert [f["path"] for f in checkpoint["files"]] == ["y.txt"]  # type: ignore[attr-defined]
    go(h, "/undo")
    assert not (h.project / "y.txt").exists()
    assert (h.project / "node_modules" / "x" / "i.js").read_text() == "1\n"


def test_the_model_hears_of_the_undo_with_its_next_prompt(started: MakeHarness) -> None:
    seen: list[str] = []

    def look(context: Context) -> FauxTurn:
        seen.append(repr(context.messages))
        return done()

    h = started([reply(write("a.txt", "a\n")), done(), look])
    go(h, "go", "/undo", "what now?")
    assert "undid the file changes of your last 1 turn(s)" in seen[-1] and "a.txt (removed)" in seen[-1]


def test_outside_any_git_repository(started: MakeHarness, tmp_path: Path) -> None:
    h = started([reply(write("a.txt", "a\n")), done()])
    assert not any((p / ".git").exists() for p in (h.project, *h.project.parents))
    go(h, "go", "/undo")
    assert files_of(h.project) == {}
