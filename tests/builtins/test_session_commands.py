"""`/session`'s siblings: `/new` and `/resume` switch the session file, and extensions follow."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from rein.ai import TextContent, UserMessage
from rein.ai.providers.faux import echo
from rein.session import Session
from tests.builtins.conftest import Harness, MakeHarness


def go(h: Harness, *inputs: str) -> None:
    async def run() -> None:
        await h.session.start()
        for text in inputs:
            await h.session.prompt(text)

    asyncio.run(run())


def prompts(h: Harness) -> list[str]:
    return [m.text for m in h.session.messages if isinstance(m, UserMessage)]


def age(path: Path, seconds: int) -> None:
    """Make `path` look written `seconds` ago, so "newest first" does not hang on clock ticks."""
    stamp = path.stat().st_mtime - seconds
    os.utime(path, (stamp, stamp))


def test_new_starts_a_new_file_and_extensions_start_over(harness: MakeHarness) -> None:
    h = harness([[TextContent(text="hi")]])
    first = h.session.store
    assert first.path is not None
    go(h, "hello", "/timebox 15m")
    assert h.ui.status["timebox"] is not None
    go(h, "/new")
    store = h.session.store
    assert store is not first and store.path is not None and store.path.parent == first.path.parent
    assert store.path.is_file() and h.session.messages == []
    assert h.ui.notices[-1] == (f"new session: {store.path}", "info")
    assert ("session_switched", store) in h.notices
    assert h.ui.status["timebox"] is None  # the new session has no budget


def test_resume_offers_this_directorys_sessions_newest_first_and_switches(harness: MakeHarness) -> None:
    h = harness([echo] * 10)
    go(h, "fix the tests", "/timebox 15m")
    old = h.session.store
    assert old.path is not None
    age(old.path, 60)
    go(h, "/new", "write the docs")
    new = h.session.store
    assert new.path is not None
    h.ui.answers = []  # dismissed
    go(h, "/resume")
    title, options = h.ui.asked[-1]
    assert title == "Resume which session? (newest first)"
    assert len(options) == 2
    assert "write the docs" in options[0] and options[0].endswith("(this session)")
    assert "fix the tests" in options[1] and f"[{old.id[:8]}, " in options[1]
    assert h.ui.notices[-1][0].startswith("/resume: no session chosen")
    assert h.session.store is new

    h.ui.answers = [options[1]]
    go(h, "/resume")
    assert h.session.store.path == old.path and h.session.store is not old
    assert prompts(h) == ["fix the tests"]
    assert h.ui.notices[-1] == (f"resumed {old.path} (3 entries)", "info")  # prompt, reply, budget
    assert (h.ui.status["timebox"] or "").startswith("Timebox: ")  # restored from the resumed file
    go(h, "and more")
    assert "and more" in old.path.read_text()


def test_resume_by_id_and_the_current_session(harness: MakeHarness) -> None:
    h = harness([echo] * 10)
    go(h, "one")
    old = h.session.store
    assert old.path is not None
    go(h, "/new", f"/resume {old.id[:8]}")
    assert h.session.store.path == old.path and prompts(h) == ["one"]
    go(h, f"/resume {old.id}")
    assert h.ui.notices[-1] == ("/resume: that is this session", "info")
    go(h, "/resume zzzz")
    assert h.ui.notices[-1] == (
        "/resume zzzz: no session of this directory has an id starting so",
        "warning",
    )


def test_resume_reports_files_it_cannot_read(harness: MakeHarness) -> None:
    h = harness([echo] * 10)
    assert h.store.path is not None
    (h.store.path.parent / "broken.jsonl").write_text("not a session\n")
    go(h, "/resume")
    assert ("/resume: 1 session file(s) could not be read", "warning") in h.ui.notices
    assert len(h.ui.asked[-1][1]) == 1


def test_an_in_memory_session_has_nothing_to_resume(harness: MakeHarness, tmp_path: Path) -> None:
    h = harness([echo] * 10, store=Session.in_memory(str(tmp_path / "elsewhere")))
    go(h, "/resume", "/session")
    assert h.ui.notices[0] == ("/resume: no sessions in this directory yet", "info")
    assert h.ui.notices[1][0].startswith("session file: (in memory, not written)")
