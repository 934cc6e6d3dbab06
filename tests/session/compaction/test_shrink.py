"""A compaction must shrink the context (issue 35): one that would not is refused before the model is
asked when rein's own parts already take too much, after it when the summary came out too large, and
nothing is written either way. The server's pi-compatible compaction does not ask for this."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path

import pytest

from rein.ai import (
    AssistantMessage,
    Message,
    TextContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
    message_to_json,
)
from rein.session import CompactionEntry, Session
from rein.session.compaction import (
    MARKER_TYPE,
    Budget,
    Compacted,
    CompactionSettings,
    NotSmaller,
    compact_session,
)

BUDGET = Budget.of(100_000, CompactionSettings())


class Summarizer:
    """Answers every summary request with `reply`, counting the requests."""

    def __init__(self, reply: str) -> None:
        self.reply = reply
        self.calls = 0

    async def __call__(self, system: str, prompt: str, max_tokens: int) -> str:
        self.calls += 1
        return self.reply


def add(store: Session, message: Message) -> str:
    return store.append_message(message_to_json(message))


def session(tmp_path: Path, answers: Sequence[str]) -> Session:
    store = Session.in_memory(str(tmp_path))
    for n, answer in enumerate(answers):
        add(store, UserMessage.of(f"question {n}"))
        add(store, AssistantMessage(content=(TextContent(text=answer),), provider="f", model="f"))
    return store


def compact(
    store: Session, summarize: Summarizer, *, require_smaller: bool = True, reinject: str | None = None
) -> Compacted:
    return asyncio.run(
        compact_session(
            store,
            summarize,
            BUDGET,
            reason="manual",
            require_smaller=require_smaller,
            reinject=lambda files: reinject,
        )
    )


def test_too_little_to_summarize_is_refused_before_the_model_is_asked(tmp_path: Path) -> None:
    store = session(tmp_path, ["yes", "no", "maybe"])
    leaf, size = store.leaf_id, len(store.tree)
    summarizer = Summarizer("## Goal\nanswer")
    with pytest.raises(NotSmaller) as refused:
        compact(store, summarizer)
    assert summarizer.calls == 0
    assert not refused.value.asked and refused.value.replacement >= refused.value.replaced
    assert str(refused.value).startswith("not compacted: too little to summarize: the summary would take")
    assert (store.leaf_id, len(store.tree)) == (leaf, size)


def test_a_summary_larger_than_what_it_replaces_is_refused_and_nothing_is_written(tmp_path: Path) -> None:
    store = session(tmp_path, ["an answer " * 40] * 3)
    leaf, size = store.leaf_id, len(store.tree)
    summarizer = Summarizer("a summary that says too much " * 100)
    with pytest.raises(NotSmaller) as refused:
        compact(store, summarizer)
    assert summarizer.calls == 1 and refused.value.asked
    replacement, replaced = refused.value.replacement, refused.value.replaced
    assert replacement > replaced
    assert str(refused.value) == (
        f"not compacted: the summary ({replacement:,} tokens) would be larger than what it replaces"
        f" ({replaced:,})"
    )
    assert (store.leaf_id, len(store.tree)) == (leaf, size)


def test_a_summary_smaller_than_what_it_replaces_is_written(tmp_path: Path) -> None:
    store = session(tmp_path, ["an answer " * 40] * 3)
    result = compact(store, Summarizer("## Goal\nanswer the questions"))
    assert result.tokens_after < result.tokens_before
    assert isinstance(store.tree.get(result.entry_id), CompactionEntry)


def test_without_require_smaller_a_growing_compaction_is_written_as_before(tmp_path: Path) -> None:
    """What the server's compaction (pi's protocol) relies on."""
    store = session(tmp_path, ["yes", "no", "maybe"])
    result = compact(store, Summarizer("## Goal\nanswer"), require_smaller=False)
    assert result.tokens_after > result.tokens_before
    assert isinstance(store.tree.get(result.entry_id), CompactionEntry)


def test_the_files_read_again_count_as_part_of_what_replaces(tmp_path: Path) -> None:
    store = session(tmp_path, ["an answer " * 40] * 3)
    small = compact(
        session(tmp_path, ["an answer " * 40] * 3), Summarizer("## Goal\nanswer"), reinject="a.py"
    )
    assert small.reinject == "a.py" and small.tokens_after < small.tokens_before
    with pytest.raises(NotSmaller) as refused:
        compact(store, Summarizer("## Goal\nanswer"), reinject="x = 1\n" * 400)
    assert not refused.value.asked
    assert "the summary and the files read again would take at least" in str(refused.value)
    assert str(refused.value).endswith("they replace")


def test_a_refused_compaction_mid_tool_loop_leaves_no_keep_marker_on_the_branch(tmp_path: Path) -> None:
    """The last turn does not fit what is kept: a keep marker is planned; the oversized summary is
    refused after the model was asked, and the branch goes on from the tool result, as it was."""
    store = Session.in_memory(str(tmp_path))
    add(store, UserMessage.of("run it"))
    call = ToolCall(id="c1", name="bash", arguments={"command": "cat big"})
    add(store, AssistantMessage(content=(call,), provider="f", model="f"))
    output = (TextContent(text="y" * 4000),)
    last = add(store, ToolResultMessage(tool_call_id="c1", tool_name="bash", content=output, is_error=False))
    small = Budget.of(2_000, CompactionSettings())
    with pytest.raises(NotSmaller) as refused:
        asyncio.run(
            compact_session(store, Summarizer("z" * 20_000), small, reason="threshold", require_smaller=True)
        )
    assert refused.value.asked
    assert store.leaf_id == last
    assert all(not isinstance(e, CompactionEntry) for e in store.tree.active_path())
    off_branch = [e for e in store.tree if e not in store.tree.active_path()]
    assert [getattr(e, "custom_type", None) for e in off_branch] == [MARKER_TYPE]
