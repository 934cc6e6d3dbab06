"""The tree's "continue from here" asks whether to restore the files of that point too: asked, never
silent; with nobody to answer, the files stay and the line says so."""

from __future__ import annotations

import asyncio

from rein.builtins.checkpoints import RESTORE_OPTIONS
from rein.session import MessageEntry
from tests.builtins.conftest import Harness, MakeHarness
from tests.checkpoints.conftest import done, edit, files_of, reply, write


def go(h: Harness, *inputs: str) -> None:
    async def run() -> None:
        for text in inputs:
            await h.session.prompt(text)

    asyncio.run(run())


def two_runs(started: MakeHarness) -> tuple[Harness, str, dict[str, bytes], dict[str, bytes]]:
    """Run 1 writes a.txt; run 2 edits it and writes b.txt. Returns the harness, run 1's last reply,
    and the files after each run."""
    h = started(
        [
            reply(write("a.txt", "one\n", "1")),
            done("First done."),
            reply(edit("a.txt", "one", "two", "2"), write("b.txt", "b\n", "3")),
            done("Second done."),
        ]
    )
    go(h, "first")
    after_one = files_of(h.project)
    go(h, "second")
    first_done = next(
        e.id for e in h.store.tree if isinstance(e, MessageEntry) and "First done." in str(e.message)
    )
    return h, first_done, after_one, files_of(h.project)


def test_continuing_from_an_earlier_reply_restores_its_files_when_the_person_says_yes(
    started: MakeHarness,
) -> None:
    h, first_done, after_one, _ = two_runs(started)
    h.ui.answers = ["no", RESTORE_OPTIONS[1]]
    go(h, f"/tree {first_done}")
    assert h.ui.asked[-1] == (
        "Restore the files of that point too? (2 file(s) differ: a.txt, b.txt)",
        RESTORE_OPTIONS,
    )
    assert files_of(h.project) == after_one
    said = [text for text, _ in h.ui.notices]
    assert (
        "/tree: restored the files of that point, 2 file(s):\n  restored   a.txt\n  removed    b.txt" in said
    )
    go(h, "/undo")  # the branch continued from holds run 1 only: undo takes it back to nothing
    assert files_of(h.project) == {}


def test_the_files_stay_when_the_person_says_no_or_nobody_answers(started: MakeHarness) -> None:
    h, first_done, _, after_two = two_runs(started)
    h.ui.answers = ["no", RESTORE_OPTIONS[0]]
    go(h, f"/tree {first_done}")
    assert files_of(h.project) == after_two
    assert "/tree: the files stay as they are: a.txt, b.txt" in [text for text, _ in h.ui.notices]
    back = next(
        e.id for e in h.store.tree if isinstance(e, MessageEntry) and "Second done." in str(e.message)
    )
    h.ui.answers = []
    go(h, f"/tree {back}", f"/tree {first_done}")
    assert files_of(h.project) == after_two
    said = [text for text, _ in h.ui.notices]
    assert (
        "/tree: the files stay as they are (nobody answered): a.txt, b.txt differ from that point;"
        " /undo puts back a turn's files"
    ) in said


def test_no_question_when_the_files_already_match_that_point(started: MakeHarness) -> None:
    h, first_done, _, _ = two_runs(started)
    go(h, "/undo")
    h.ui.answers = ["no"]
    asked = len(h.ui.asked)
    go(h, f"/tree {first_done}")
    assert [title for title, _ in h.ui.asked[asked:]] == ["Summarize the branch you leave?"]
