"""`/compact` and automatic compaction in a real agent session refuse a compaction that would not
shrink the context (issue 35: `/compact` on a small session grew it from 1,111 to 1,215 tokens)."""

from __future__ import annotations

import asyncio

from rein.ai import Model, TextContent
from rein.session import CompactionEntry
from tests.builtins.compaction_script import TwoModels
from tests.builtins.conftest import MakeHarness


def test_compact_on_a_small_session_says_why_and_writes_nothing(harness: MakeHarness) -> None:
    models = TwoModels(replies=[[TextContent(text=f"reply {n}")] for n in range(3)], summary="## Goal\nf")
    h = harness(models, model=Model(provider="faux", id="faux-1", context_window=100_000))

    async def run() -> None:
        await h.session.start()
        for prompt in ("one", "two", "three"):
            await h.session.prompt(prompt)
        size = len(h.store.tree)
        await h.session.prompt("/compact")
        assert len(h.store.tree) == size

    asyncio.run(run())
    assert models.summaries == []  # the estimate was enough: the model was not asked
    text, level = h.ui.notices[-1]
    assert level == "warning"
    assert text.startswith("not compacted: too little to summarize: the summary would take at least ")
    assert not any(isinstance(e, CompactionEntry) for e in h.store.tree)


def test_automatic_compaction_refuses_a_summary_larger_than_what_it_replaces(harness: MakeHarness) -> None:
    models = TwoModels(replies=[[TextContent(text=f"answer {n} " + "w " * 300)] for n in range(8)])
    models.summary = "s " * 2000  # a summarizer that ignores its length limit by far
    h = harness(models, model=Model(provider="faux", id="faux-1", context_window=2_500))

    async def run() -> None:
        await h.session.start()
        for n in range(8):
            await h.session.prompt(f"question {n} " + "q " * 100)

    asyncio.run(run())
    assert models.summaries, "the threshold was passed and the model asked for a summary"
    refused = [text for text, level in h.ui.notices if level == "warning"]
    assert refused and all(
        text.startswith("automatic compaction: not compacted: the summary (") for text in refused
    )
    assert "would be larger than what it replaces" in refused[0]
    assert not any(isinstance(e, CompactionEntry) for e in h.store.tree)
    assert len(models.requests) == 8  # every request went as it was
