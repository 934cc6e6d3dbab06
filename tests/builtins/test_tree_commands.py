"""`/tree`, `/fork` and `/label` on a real AgentSession (faux provider, tmp home), and the tree's
rendering (`_tree_view`): branches, labels, the marks, folded tool results, long runs."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator

import pytest

from rein.ai import TextContent, UserMessage
from rein.ai.providers.faux import FauxReply, echo
from rein.builtins._tree_view import CURRENT_MARK, KEPT, TreeLine, landing, render_tree, tree_lines
from rein.session import (
    AgentSession,
    BranchSummaryEntry,
    LabelEntry,
    MessageEntry,
    Session,
    TreeView,
)
from tests.builtins.conftest import Harness, MakeHarness

Calls = list[tuple[str | None, bool, str | None]]


@pytest.fixture
def navigations(monkeypatch: pytest.MonkeyPatch) -> Iterator[Calls]:
    """Every `AgentSession.navigate` call (entry id, summarize, instructions), passed on to it."""
    calls: Calls = []
    real = AgentSession.navigate

    async def navigate(
        self: AgentSession, entry_id: str | None, *, summarize: bool = False, instructions: str | None = None
    ) -> str | None:
        calls.append((entry_id, summarize, instructions))
        return await real(self, entry_id, summarize=summarize, instructions=instructions)

    monkeypatch.setattr(AgentSession, "navigate", navigate)
    yield calls


def go(h: Harness, *inputs: str) -> None:
    async def run() -> None:
        for text in inputs:
            await h.session.prompt(text)

    asyncio.run(run())


def notice(h: Harness) -> str:
    return h.ui.notices[-1][0]


def line_of(lines: list[TreeLine], text: str) -> TreeLine:
    found = [line for line in lines if text in line.text]
    assert len(found) == 1, (text, [line.text for line in lines])
    return found[0]


def texts(tree: TreeView) -> list[str]:
    return [line.text for line in tree_lines(tree)]


def reply(text: str, *calls: tuple[str, str, dict[str, object]]) -> dict[str, object]:
    blocks: list[dict[str, object]] = [{"type": "text", "text": text}] if text else []
    blocks += [{"type": "tool_call", "id": i, "name": n, "arguments": a} for i, n, a in calls]
    return {"role": "assistant", "content": blocks, "stop_reason": "tool_use" if calls else "stop"}


def result(call: str, name: str, text: str, *, error: bool = False) -> dict[str, object]:
    content = [{"type": "text", "text": text}]
    return {
        "role": "tool_result",
        "tool_call_id": call,
        "tool_name": name,
        "content": content,
        "is_error": error,
    }


def prompt(text: str) -> dict[str, object]:
    return {"role": "user", "content": [{"type": "text", "text": text}]}


# -- the rendering -------------------------------------------------------------------------------


def two_tries() -> tuple[Session, dict[str, str]]:
    """A prompt and a reply with two tool calls (one failing), then two tries hanging off the reply."""
    store = Session.in_memory("/w")
    ids = {"p": store.append_message(prompt("fix the failing test\nin tests/"))}
    ids["r"] = store.append_message(
        reply(
            "Let me look.", ("c1", "read", {"path": "tests/t.py"}), ("c2", "bash", {"command": "pytest -q"})
        )
    )
    ids["t1"] = store.append_message(result("c1", "read", "def test(): ..."))
    ids["t2"] = store.append_message(result("c2", "bash", "1 failed", error=True))
    ids["s"] = store.append_custom("steering", {"seen": 1})
    ids["a"] = store.append_message(prompt("try A"))
    ids["a2"] = store.append_message(reply("A is done."))
    store.branch(ids["s"])
    ids["b"] = store.append_message(prompt("try B"))
    ids["b2"] = store.append_message(reply("B is done."))
    store.append_label(ids["b2"], "green")
    return store, ids


def test_branches_indent_under_connectors_and_the_marks_show_path_leaf_and_labels() -> None:
    store, ids = two_tries()
    assert texts(store.tree) == [
        f"* {ids['p']}  user: fix the failing test",
        f"* {ids['r']}  assistant: Let me look. [read tests/t.py, bash: pytest -q] (1 failed)",
        f"  {ids['a']}  |- user: try A",
        f"  {ids['a2']}  |  assistant: A is done.",
        f"* {ids['b']}  `- user: try B",
        f"* {ids['b2']}     assistant: B is done. [green]  {CURRENT_MARK}",
    ]


def test_a_line_stands_for_its_folded_entries_and_continuing_lands_after_them() -> None:
    store, ids = two_tries()
    lines = tree_lines(store.tree)
    call = line_of(lines, "Let me look")
    assert call.folded == (ids["r"], ids["t1"], ids["t2"], ids["s"]) and call.target == ids["s"]
    assert call.entry is not None and landing(store.tree, call.entry) == ids["s"]
    try_b = line_of(lines, "try B")
    assert try_b.entry is not None and landing(store.tree, try_b.entry) == ids["s"]  # before the prompt
    done = line_of(lines, "B is done")
    assert done.entry is not None and landing(store.tree, done.entry) == done.target  # the label folds in


def test_printed_tree_says_what_the_marks_mean() -> None:
    store, _ = two_tries()
    text = render_tree(store.tree)
    assert text.splitlines()[0] == (
        f'session tree, {len(store.tree)} entries (* marks the active path, "{CURRENT_MARK}" the leaf):'
    )
    assert text.splitlines()[1:] == texts(store.tree)
    assert render_tree(Session.in_memory().tree) == "the session has no entries yet"


def test_compactions_branch_summaries_and_custom_messages_have_lines_of_their_own() -> None:
    store = Session.in_memory("/w")
    first = store.append_message(prompt("one"))
    store.append_custom_message("ttsr-injection", "Use logging, not print.", display=False)
    store.append_compaction("We added the flag.\nMore.", first, 4321)
    store.append_branch_summary(first, "Tried fixtures; abandoned.")
    store.append_message(reply("", ("c", "edit", {"path": "a.py"})))
    lines = texts(store.tree)
    assert lines[1].endswith("[ttsr-injection, hidden] Use logging, not print.")
    assert lines[2].endswith("[compaction of 4321 tokens] We added the flag.")
    assert lines[3].endswith("[branch summary] Tried fixtures; abandoned.")
    assert lines[4].endswith(f"assistant: [edit a.py]  {CURRENT_MARK}")


def test_a_long_run_off_the_active_path_collapses_and_expands() -> None:
    store = Session.in_memory("/w")
    root = store.append_message(prompt("start"))
    side = [store.append_message(prompt(f"side {n}")) for n in range(12)]
    store.branch(root)
    for n in range(12):
        store.append_message(prompt(f"main {n}"))
    lines = tree_lines(store.tree)
    assert sum("side" in line.text for line in lines) == 2 * KEPT
    dots = line_of(lines, "... 8 more")
    assert dots.entry is None and dots.run == side[KEPT] and dots.target is None
    assert f"(from {side[KEPT]})" in dots.text
    assert sum("main" in line.text for line in lines) == 12  # the active path never collapses
    opened = tree_lines(store.tree, frozenset({side[KEPT]}))
    assert sum("side" in line.text for line in opened) == 12
    assert not any(line.entry is None for line in opened)


def test_a_deep_session_renders_without_recursion_and_quickly() -> None:
    store = Session.in_memory("/w")
    for n in range(3000):
        store.append_message(prompt(f"p{n}") if n % 2 == 0 else reply(f"r{n}"))
    started = time.perf_counter()
    lines = tree_lines(store.tree)
    assert len(lines) == 3000 and lines[-1].text.endswith(CURRENT_MARK)
    assert time.perf_counter() - started < 2.0


def test_long_text_is_cut_to_the_line_width() -> None:
    store = Session.in_memory("/w")
    store.append_message(prompt("word " * 100))
    (line,) = texts(store.tree)
    assert len(line) <= 110 + len(f"  {CURRENT_MARK}") and "...  " in line


# -- /tree ---------------------------------------------------------------------------------------


def three_prompts(harness: MakeHarness) -> Harness:
    h = harness([echo] * 20)
    go(h, "one", "two", "three")
    return h


def entry_of(h: Harness, text: str, role: str) -> MessageEntry:
    for entry in h.session.store.tree:
        message = entry.message if isinstance(entry, MessageEntry) else {}
        if message.get("role") == role and text in str(message.get("content")):
            assert isinstance(entry, MessageEntry)
            return entry
    raise AssertionError(f"no {role} entry with {text!r}")


def options_of(h: Harness) -> list[str]:
    return list(h.ui.asked[-1][1])


def test_tree_without_a_person_prints_the_tree_and_changes_nothing(
    harness: MakeHarness, navigations: Calls
) -> None:
    h = three_prompts(harness)
    leaf = h.session.store.leaf_id
    go(h, "/tree")
    assert h.ui.asked[-1][0].startswith("Continue from which entry?")
    assert notice(h) == render_tree(h.session.store.tree)
    assert len(h.ui.notices) == 1 and h.session.store.leaf_id == leaf and navigations == []


def test_choosing_a_reply_continues_from_it_and_the_next_reply_hangs_off_it(
    harness: MakeHarness, navigations: Calls
) -> None:
    h = three_prompts(harness)
    first = entry_of(h, "You said: one", "assistant")
    h.ui.answers = [line_of(tree_lines(h.session.store.tree), "You said: one").text, "no"]
    go(h, "/tree")
    assert h.ui.asked[-1] == ("Summarize the branch you leave?", ("no", "yes", "yes, with instructions"))
    assert navigations == [(first.id, False, None)]
    assert notice(h) == f"/tree: continuing from {first.id} (assistant: You said: one)"
    go(h, "again")
    assert [m.text for m in h.session.messages if isinstance(m, UserMessage)] == ["one", "again"]
    new = entry_of(h, "again", "user")
    assert new.parent_id == first.id
    reopened = Session.open(h.session.store.path or "")
    assert [e.id for e in reopened.tree.active_path()] == [e.id for e in h.session.store.tree.active_path()]


def test_choosing_a_prompt_goes_back_before_it(harness: MakeHarness, navigations: Calls) -> None:
    h = three_prompts(harness)
    two = entry_of(h, "two", "user")
    h.ui.answers = [line_of(tree_lines(h.session.store.tree), "user: two").text, "no"]
    go(h, "/tree")
    assert h.session.store.leaf_id == two.parent_id == entry_of(h, "You said: one", "assistant").id
    assert notice(h) == f"/tree: back before the prompt {two.id} (user: two); send it again, or differently"


def test_leaving_a_branch_can_summarize_it(harness: MakeHarness, navigations: Calls) -> None:
    h = three_prompts(harness)
    first = entry_of(h, "You said: one", "assistant")
    h.ui.answers = [line_of(tree_lines(h.session.store.tree), "You said: one").text, "yes"]
    go(h, "/tree")
    assert navigations == [(first.id, True, None)]
    summary = h.session.store.tree.get(h.session.store.leaf_id or "")
    assert isinstance(summary, BranchSummaryEntry) and summary.parent_id == first.id
    assert notice(h).endswith(f"; the branch left is summarized in {summary.id}")


def test_summary_instructions_are_asked_for(harness: MakeHarness, navigations: Calls) -> None:
    h = three_prompts(harness)
    first = entry_of(h, "You said: one", "assistant")
    line = line_of(tree_lines(h.session.store.tree), "You said: one").text
    h.ui.answers = [line, "yes, with instructions", "keep the failing test names"]
    go(h, "/tree")
    assert h.ui.asked[-1] == ("Instructions for the branch summary", ())
    assert navigations == [(first.id, True, "keep the failing test names")]


def test_a_failed_branch_summary_is_reported_and_changes_nothing(
    harness: MakeHarness, navigations: Calls
) -> None:
    h = harness([echo, echo, FauxReply(error="overloaded, try later")])
    go(h, "one", "two")
    leaf = h.session.store.leaf_id
    entries = len(h.session.store.tree)
    h.ui.answers = [line_of(tree_lines(h.session.store.tree), "You said: one").text, "yes"]
    go(h, "/tree")
    assert h.ui.notices[-1][1] == "error"
    assert notice(h).startswith("/tree: the branch summary failed, nothing changed: ")
    assert "overloaded, try later" in notice(h)
    assert h.session.store.leaf_id == leaf and len(h.session.store.tree) == entries


def test_dismissing_the_summary_question_changes_nothing(harness: MakeHarness, navigations: Calls) -> None:
    h = three_prompts(harness)
    leaf = h.session.store.leaf_id
    h.ui.answers = [line_of(tree_lines(h.session.store.tree), "You said: one").text]
    go(h, "/tree")
    assert notice(h) == "/tree: nothing changed"
    assert h.session.store.leaf_id == leaf and navigations == []


def test_moving_down_the_active_path_asks_no_summary(harness: MakeHarness, navigations: Calls) -> None:
    h = three_prompts(harness)
    last = h.session.store.leaf_id
    first = entry_of(h, "You said: one", "assistant")
    go(h, f"/tree {first.id}")  # nobody answers: no summary
    assert h.session.store.leaf_id == first.id
    asked = len(h.ui.asked)
    go(h, f"/tree {last}")
    assert len(h.ui.asked) == asked and h.session.store.leaf_id == last
    assert navigations == [(first.id, False, None), (last, False, None)]


def test_the_current_line_is_where_the_session_is(harness: MakeHarness, navigations: Calls) -> None:
    h = three_prompts(harness)
    lines = tree_lines(h.session.store.tree)
    h.ui.answers = [next(line.text for line in lines if line.text.endswith(CURRENT_MARK))]
    go(h, "/tree")
    assert notice(h) == "/tree: the session is there already" and navigations == []


def test_a_collapsed_run_opens_when_chosen(harness: MakeHarness, navigations: Calls) -> None:
    h = harness([echo] * 40)
    go(h, *(f"side {n}" for n in range(5)))
    first = entry_of(h, "You said: side 0", "assistant")
    go(h, f"/tree {first.id}", "main")
    collapsed = tree_lines(h.session.store.tree)
    dots = next(line for line in collapsed if line.entry is None)
    h.ui.answers = [dots.text]
    go(h, "/tree")
    shown = h.ui.asked[-1][1]
    assert len(shown) == len(collapsed) + (8 - 2 * KEPT) - 1
    assert not any("more (from" in option for option in shown)


def test_tree_jumps_by_label_and_by_id_prefix(harness: MakeHarness, navigations: Calls) -> None:
    h = three_prompts(harness)
    one = entry_of(h, "You said: one", "assistant")
    two = entry_of(h, "You said: two", "assistant")
    go(h, f"/tree {one.id}", "/label first try")
    go(h, f"/tree {two.id[:5]}")
    assert h.session.store.leaf_id == two.id
    go(h, "/tree first try")
    assert h.session.store.leaf_id == one.id  # the label entry folds into the reply's line
    go(h, "/tree zzzz")
    assert h.ui.notices[-1] == ("/tree zzzz: no entry has that id or label (/tree lists them)", "warning")


def test_tree_on_an_empty_session(harness: MakeHarness, navigations: Calls) -> None:
    h = harness([echo])
    go(h, "/tree")
    assert notice(h) == "/tree: the session has no entries yet" and h.ui.asked == []


# -- /label --------------------------------------------------------------------------------------


def test_label_names_the_leaf_shows_in_the_tree_and_clears(harness: MakeHarness) -> None:
    h = three_prompts(harness)
    reply_id = h.session.store.leaf_id or ""
    go(h, "/label  tests   pass ")
    assert notice(h) == f'/label: {reply_id} labelled "tests pass" (/tree tests pass comes back here)'
    assert h.session.store.tree.labels == {reply_id: "tests pass"}
    go(h, "/label green")  # the leaf is now the label entry; the reply is relabelled
    assert h.session.store.tree.labels == {reply_id: "green"}
    assert line_of(tree_lines(h.session.store.tree), "You said: three").text.endswith(
        f"[green]  {CURRENT_MARK}"
    )
    go(h, "/label")
    assert notice(h) == f'/label: {reply_id} label "green" cleared (/tree {reply_id} comes back here)'
    assert h.session.store.tree.labels == {}
    go(h, "/label")
    assert notice(h) == f"/label: {reply_id} has no label to clear"
    labels = [e for e in Session.open(h.session.store.path or "").tree if isinstance(e, LabelEntry)]
    assert [e.label for e in labels] == ["tests pass", "green", None]


def test_label_without_an_entry_warns(harness: MakeHarness) -> None:
    h = harness([echo])
    go(h, "/label start")
    assert h.ui.notices[-1] == ("/label: the session has no entry yet to label", "warning")


# -- /fork ---------------------------------------------------------------------------------------


def test_fork_carries_on_in_a_new_file_with_the_active_path(harness: MakeHarness, navigations: Calls) -> None:
    h = three_prompts(harness)
    old = h.session.store
    first = entry_of(h, "You said: one", "assistant")
    go(h, f"/tree {first.id}", "other way")
    before = list(h.session.messages)
    go(h, "/fork")
    fork = h.session.store
    assert fork is not old and fork.path is not None and old.path is not None
    assert notice(h) == f"forked into {fork.path} ({len(fork.tree)} entries of {old.path})"
    assert fork.header.parent_session == str(old.path)
    assert h.session.messages == before
    assert ("session_switched", fork) in h.notices
    text = old.path.read_text()
    go(h, "after the fork")
    assert "after the fork" in fork.path.read_text() and old.path.read_text() == text
    assert "You said: two" not in fork.path.read_text()  # the other branch stays behind


def test_fork_of_an_empty_session_warns(harness: MakeHarness) -> None:
    h = harness([echo])
    go(h, "/fork")
    assert h.ui.notices[-1] == ("/fork: the session has no entries yet; /new starts an empty one", "warning")


def test_the_commands_are_listed_by_help(harness: MakeHarness) -> None:
    h = harness([[TextContent(text="hi")]])
    go(h, "/help")
    listing = notice(h)
    for name in ("/tree", "/fork", "/label"):
        assert name in listing
