"""`SessionView.message_count` (the `messageCount` of every mutation's answer) is the length of the
branch's messages, computed from memoized running counts rather than a walk of the branch."""

from __future__ import annotations

from random import Random

from hypothesis import given, settings
from hypothesis import strategies as st

from rein.server._view import BranchCounts, SessionView
from rein.server.store import SessionRow

KINDS = [
    "message",
    "message",
    "message",
    "bad_message",
    "custom_message",
    "branch_summary",
    "custom",
    "compaction",
]


def row(leaf: str | None, count: int) -> SessionRow:
    return SessionRow(
        owner="", session_id="s", static_context=None, static_context_hash="", leaf_id=leaf, revision=1,
        entry_count=count, tree_hash="", created_ms=0, updated_ms=0,
    )  # fmt: skip


def entry(i: int, kind: str, parent: str | None, kept: str | None) -> dict[str, object]:
    base: dict[str, object] = {"id": f"e{i}", "parentId": parent, "timestamp": "2026-01-01T00:00:00.000Z"}
    if kind == "message":
        return {**base, "type": "message", "message": {"role": "user", "content": "hi"}}
    if kind == "bad_message":
        return {**base, "type": "message", "message": "not an object"}
    if kind == "compaction":
        return {**base, "type": "compaction", "summary": "s", "firstKeptEntryId": kept, "tokensBefore": 1}
    return {**base, "type": kind, "content": "c", "summary": "s", "customType": "x"}


@st.composite
def trees(draw: st.DrawFn) -> list[dict[str, object]]:
    size = draw(st.integers(min_value=1, max_value=40))
    entries: list[dict[str, object]] = []
    for i in range(size):
        parent = draw(st.none() | st.integers(0, i - 1)) if i else None
        kept = draw(st.none() | st.integers(0, i)) if i else None
        kind = draw(st.sampled_from(KINDS))
        entries.append(
            entry(i, kind, None if parent is None else f"e{parent}", None if kept is None else f"e{kept}")
        )
    return entries


@settings(max_examples=200, deadline=None)
@given(trees(), st.randoms(use_true_random=False))
def test_the_count_is_the_number_of_branch_messages_for_every_leaf(
    entries: list[dict[str, object]], random: Random
) -> None:
    index = {str(e["id"]): i for i, e in enumerate(entries)}
    counts = BranchCounts()  # shared by every view, as the service shares it across revisions
    leaves: list[str | None] = [None, *index]
    random.shuffle(leaves)
    for leaf in leaves:
        view = SessionView(
            row=row(leaf, len(entries)), entries=entries, static_context=None, hashes=[], index=index,
            counts=counts,
        )  # fmt: skip
        assert view.message_count() == len(view.messages()), leaf


def test_a_parent_cycle_falls_back_to_the_walk() -> None:
    entries = [entry(0, "message", "e1", None), entry(1, "message", "e0", None)]
    index = {"e0": 0, "e1": 1}
    view = SessionView(row=row("e1", 2), entries=entries, static_context=None, hashes=[], index=index)
    assert view.message_count() == len(view.messages()) == 2
