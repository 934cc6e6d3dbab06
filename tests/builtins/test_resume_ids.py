"""`/resume ID` refuses the start of several ids, as `rein --resume` does."""

from __future__ import annotations

import asyncio
from pathlib import Path

from rein.ai.providers.faux import echo
from tests.builtins.conftest import MakeHarness
from tests.session.test_find import session_as


def test_resume_command_refuses_the_start_of_several_ids(harness: MakeHarness) -> None:
    h = harness([echo] * 4)
    cwd, home = Path(h.session.cwd), h.home
    session_as(cwd, home, "abc10000-0000-4000-8000-000000000001")
    session_as(cwd, home, "abc20000-0000-4000-8000-000000000002")

    async def run() -> None:
        await h.session.start()
        await h.session.prompt("/resume abc")

    asyncio.run(run())
    assert h.ui.notices[-1] == (
        "/resume abc: the start of 2 session ids (abc10000-0000-4000-8000-000000000001,"
        " abc20000-0000-4000-8000-000000000002); give more of it",
        "warning",
    )
