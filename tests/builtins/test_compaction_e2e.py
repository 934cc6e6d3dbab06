"""Compaction inside a real agent session (faux model, real tools, a real session file): the
threshold, the overflow retry with the failed reply detached, the keep marker mid tool loop, and the
operational state that survives a summarizer that returns nothing useful."""

from __future__ import annotations

import asyncio
from pathlib import Path

from rein.ai import AssistantMessage, Context, FauxReply, Model, TextContent
from rein.ai.providers.faux import FauxTurn
from rein.session import COMPACTION_PREFIX, CompactionEntry, CustomMessageEntry, MessageEntry, Session
from rein.session.compaction import MARKER_TYPE, context_tokens
from tests.builtins.compaction_script import TwoModels, call
from tests.builtins.conftest import MakeHarness

BIG = "python3 -c \"print('y' * 9000)\""
FAILING = "python3 -c \"assert 1 == 2, 'one is not two'\""


def faux(window: int) -> Model:
    return Model(provider="faux", id="faux-1", context_window=window)


def first_session(models: TwoModels) -> None:
    """Prompt 1's replies: a write, a failing command, a read, a large output, a plan with TODOs."""
    models.replies += [
        call("write", "c1", path="a.py", content="x = 1\n"),
        call("bash", "c2", command=FAILING),
        call("read", "c3", path="README.md"),
        call("bash", "c4", command=BIG),
        [TextContent(text="Plan:\n- [ ] fix the assertion in a.py\n- [x] write a.py\n")],
    ]


def test_a_useless_summary_still_keeps_the_operational_state(harness: MakeHarness) -> None:
    asyncio.run(_a_useless_summary_still_keeps_the_operational_state(harness))


async def _a_useless_summary_still_keeps_the_operational_state(harness: MakeHarness) -> None:
    models = TwoModels(replies=[], summary="")
    first_session(models)
    models.replies.append([TextContent(text="going on")])
    h = harness(models, model=faux(200_000))
    (h.project / "README.md").write_text("hello readme\n")
    await h.session.start()
    await h.session.prompt("please create a.py and keep the tests passing")
    assert not any(isinstance(e, CompactionEntry) for e in h.store.tree)
    h.session.model = faux(3_000)  # the same history no longer fits: the next request compacts first
    await h.session.prompt("go on")
    compactions = [e for e in h.store.tree.active_path() if isinstance(e, CompactionEntry)]
    assert len(compactions) == 1
    sent = models.sent()
    assert sent.startswith(COMPACTION_PREFIX)
    for expected in (
        "a.py (write)",
        "README.md",
        f"`{FAILING}` (exit 1)",
        "one is not two",
        "- [ ] fix the assertion in a.py",
        "please create a.py and keep the tests passing",
    ):
        assert expected in sent, expected
    assert "y" * 9000 not in sent
    assert "go on" in sent
    # nothing left the file: every entry is still there, the compaction is one more
    reread = Session.open(h.store.path or "")
    assert len(reread.tree) == len(h.store.tree)
    assert any("y" * 9000 in str(e) for e in reread.tree)


def test_an_overflow_is_compacted_and_retried_without_the_failed_reply(harness: MakeHarness) -> None:
    asyncio.run(_an_overflow_is_compacted_and_retried_without_the_failed_reply(harness))


async def _an_overflow_is_compacted_and_retried_without_the_failed_reply(harness: MakeHarness) -> None:
    overflow = FauxReply(error="prompt is too long: 9000 tokens > 8000 maximum")
    early: list[FauxTurn] = [[TextContent(text="one " * 400)] for _ in range(3)]
    models = TwoModels(replies=[*early, overflow, [TextContent(text="done")]])
    models.summary = "## Goal\nthe summary of the early turns"
    h = harness(models, model=Model(provider="faux", id="faux-unknown-window"))
    await h.session.start()
    for n in range(3):
        await h.session.prompt(f"question {n}")
    added = await h.session.prompt("the last question")
    replies = [m for m in added if isinstance(m, AssistantMessage)]
    assert [r.stop_reason for r in replies] == ["error", "stop"]
    assert replies[-1].text == "done"
    assert h.session.compactor.learned_window == 8000
    path = h.store.tree.active_path()
    failed = [
        e for e in h.store.tree if isinstance(e, MessageEntry) and e.message.get("stop_reason") == "error"
    ]
    assert len(failed) == 1 and failed[0] not in path  # detached, kept in the tree
    assert failed[0].parent_id == next(e.id for e in path if e.id == failed[0].parent_id)
    retry = models.sent()
    assert "prompt is too long" not in retry
    assert "the summary of the early turns" in retry and "the last question" in retry


def test_a_huge_tool_result_mid_loop_is_compacted_behind_a_keep_marker(harness: MakeHarness) -> None:
    asyncio.run(_a_huge_tool_result_mid_loop_is_compacted_behind_a_keep_marker(harness))


async def _a_huge_tool_result_mid_loop_is_compacted_behind_a_keep_marker(harness: MakeHarness) -> None:
    huge = "python3 -c \"print('z' * 28000)\""
    models = TwoModels(replies=[call("bash", "c1", command=huge), [TextContent(text="read it all")]])
    h = harness(models, model=faux(4_000))
    await h.session.start()
    await h.session.prompt("print the big file")
    request = models.requests[-1]
    kinds = [e for e in h.store.tree.active_path() if isinstance(e, CustomMessageEntry)]
    assert MARKER_TYPE in [e.custom_type for e in kinds]
    assert "z" * 1000 not in models.sent()
    assert models.sent().startswith(COMPACTION_PREFIX)
    assert "Continue the task from here" in models.sent()
    assert len(models.summaries) > 1  # the 28,000 characters were summarized in pieces
    assert context_tokens(list(request.messages)) < 4_000


def test_a_small_window_keeps_less_and_the_result_fits(harness: MakeHarness) -> None:
    asyncio.run(_a_small_window_keeps_less_and_the_result_fits(harness))


async def _a_small_window_keeps_less_and_the_result_fits(harness: MakeHarness) -> None:
    models = TwoModels(replies=[[TextContent(text=f"answer {n} " + "w " * 300)] for n in range(8)])
    models.summary = "s " * 600  # a summarizer that ignores its length limit (264 tokens here)
    h = harness(models, model=faux(2_500))
    await h.session.start()
    for n in range(8):
        await h.session.prompt(f"question {n} " + "q " * 100)
    assert any(isinstance(e, CompactionEntry) for e in h.store.tree)
    for request in models.requests:
        assert context_tokens(list(request.messages)) < 2_500


def test_manual_compact_carries_the_instructions_and_the_previous_summary(harness: MakeHarness) -> None:
    asyncio.run(_manual_compact_carries_the_instructions_and_the_previous_summary(harness))


async def _manual_compact_carries_the_instructions_and_the_previous_summary(harness: MakeHarness) -> None:
    # replies long enough that a summary is smaller than what it replaces (else nothing is compacted)
    replies: list[FauxTurn] = [[TextContent(text=f"reply {n} " + "w " * 200)] for n in range(4)]
    models = TwoModels(replies=list(replies), summary="first summary")
    h = harness(models, model=faux(100_000))
    await h.session.start()
    for n in range(3):
        await h.session.prompt(f"question {n}")
    await h.session.prompt("/compact focus on the parser")
    assert "focus on the parser" in models.summaries[-1].messages[0].text
    await h.session.prompt("question 3")
    models.summary = "second summary"
    await h.session.prompt("/compact")
    assert "first summary" in models.summaries[-1].messages[0].text
    assert sum(isinstance(e, CompactionEntry) for e in h.store.tree.active_path()) == 2
    assert any("compacted (manual)" in text for text, _ in h.ui.notices)


def test_instruction_files_and_read_files_come_back_after_compaction(tmp_path: Path) -> None:
    from rein.session.compaction._reinject import reinject_text

    (tmp_path / ".git").mkdir()
    (tmp_path / "AGENTS.md").write_text("Always run the tests with -q.\n")
    (tmp_path / "src.py").write_text("def f():\n    return 1\n")
    text = reinject_text(str(tmp_path), ["src.py"], 2_000)
    assert text is not None and "Always run the tests with -q." in text and "return 1" in text
    assert reinject_text(str(tmp_path), ["src.py"], 10) is None


def test_a_window_a_summary_request_learns_is_kept_by_the_session(harness: MakeHarness) -> None:
    asyncio.run(_a_window_a_summary_request_learns_is_kept_by_the_session(harness))


async def _a_window_a_summary_request_learns_is_kept_by_the_session(harness: MakeHarness) -> None:
    def summarizer(context: Context) -> FauxTurn:
        if len(str(context.messages)) > 6_000:
            return FauxReply(error="prompt is too long: 3000 tokens > 2000 maximum")
        return [TextContent(text="part")]

    models = TwoModels(
        replies=[[TextContent(text=f"reply {n} " + "r " * 200)] for n in range(4)], summary=summarizer
    )
    h = harness(models, model=faux(100_000))
    await h.session.start()
    for n in range(3):
        await h.session.prompt(f"question {n} " + "q " * 1500)
    await h.session.prompt("/compact")
    assert len(models.summaries) > 1  # the first request was refused, then split
    assert h.session.compactor.learned_window == 2000
    assert h.session.compactor.window == 2000


def test_a_failed_summary_leaves_the_branch_as_it_was(harness: MakeHarness) -> None:
    asyncio.run(_a_failed_summary_leaves_the_branch_as_it_was(harness))


async def _a_failed_summary_leaves_the_branch_as_it_was(harness: MakeHarness) -> None:
    huge = "python3 -c \"print('z' * 28000)\""
    models = TwoModels(
        replies=[call("bash", "c1", command=huge), [TextContent(text="went on without")]],
        summary=lambda context: FauxReply(error="the summarizer is down"),
    )
    h = harness(models, model=faux(4_000))
    await h.session.start()
    await h.session.prompt("print the big file")
    path = h.store.tree.active_path()
    assert not any(isinstance(e, CompactionEntry) for e in path)
    assert not any(isinstance(e, CustomMessageEntry) and e.custom_type == MARKER_TYPE for e in path)
    assert any("compaction failed" in text and "the summarizer is down" in text for text, _ in h.ui.notices)
