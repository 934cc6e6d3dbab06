"""Stream rules, steering and the timebox across a compaction and across a move to another branch
(issue 13, point 8): their records live in custom entries of the branch, and counts come from the
whole branch, not from the compacted context."""

from __future__ import annotations

import asyncio
import re

from rein.ai import Model, TextContent
from rein.builtins import TtsrExtension
from rein.session import CompactionEntry, MessageEntry, Session
from tests.builtins.compaction_script import TwoModels, call
from tests.builtins.conftest import Harness, MakeHarness
from tests.builtins.test_ttsr_lifecycle import rule

CONSOLE = [TextContent(text="function f() { console.log(x); return 1 }")]


def ttsr_of(h: Harness) -> TtsrExtension:
    commands = h.session.registry.commands["rules"].handler
    owner = getattr(commands, "__self__", None)
    ttsr = getattr(owner, "ttsr", None)
    assert isinstance(ttsr, TtsrExtension)
    return ttsr


def used(status: str) -> int:
    found = re.search(r"\((\d+)/5\)", status)
    assert found is not None, status
    return int(found.group(1))


def go(h: Harness, *prompts: str) -> None:
    async def run() -> None:
        for prompt in prompts:
            await h.session.prompt(prompt)

    asyncio.run(run())


def test_an_injected_rule_stays_injected_after_a_compaction_and_a_reload(harness: MakeHarness) -> None:
    models = TwoModels(replies=[CONSOLE, [TextContent(text="log.info(x)")]], summary="## Goal\nf")
    models.replies += [[TextContent(text=f"reply {n}")] for n in range(3)] + [CONSOLE]
    h = harness(models, model=Model(provider="faux", id="faux-1", context_window=100_000))
    rule(h.project, "no-console")  # repeat once per session: it must not fire again
    asyncio.run(h.session.start())
    go(h, "write f", "one", "two", "/compact", "three")
    assert any(isinstance(e, CompactionEntry) for e in h.store.tree.active_path())
    assert ttsr_of(h).fired() == {"no-console": 1}
    turns_before = ttsr_of(h).manager.snapshot().turns
    assert h.session.user_message_count() == 4  # the compacted ones count
    # a reload of the file restores the same records and the same turn count
    again = harness(TwoModels(replies=[CONSOLE]), store=Session.open(h.store.path or ""))
    asyncio.run(again.session.start())
    assert ttsr_of(again).fired() == {"no-console": 1}
    assert ttsr_of(again).manager.snapshot().turns == turns_before
    go(h, "four")  # console.log again: once per session, so it is not cut
    assert models.requests[-1].messages[-1].text == "four"


def test_another_branch_has_its_own_rule_records(harness: MakeHarness) -> None:
    models = TwoModels(
        replies=[[TextContent(text="hello")], CONSOLE, [TextContent(text="log.info(x)")], CONSOLE]
    )
    models.replies.append([TextContent(text="log.info(y)")])
    h = harness(models, model=Model(provider="faux", id="faux-1", context_window=100_000))
    rule(h.project, "no-console")
    asyncio.run(h.session.start())
    go(h, "hi", "write f")
    assert ttsr_of(h).fired() == {"no-console": 1}
    first_reply = next(
        e.id
        for e in h.store.tree.active_path()
        if isinstance(e, MessageEntry) and e.message.get("role") == "assistant"
    )
    asyncio.run(h.session.navigate(first_reply))
    assert ttsr_of(h).fired() == {}  # this branch never saw the rule
    go(h, "write f again")
    assert ttsr_of(h).fired() == {"no-console": 1}  # it fires again here
    assert "Use the logger." in str(models.requests[-1].messages)


def test_the_timebox_budget_counts_compacted_turns(harness: MakeHarness) -> None:
    # replies long enough that a summary is smaller than what it replaces (else nothing is compacted)
    models = TwoModels(
        replies=[[TextContent(text=f"reply {n} " + "w " * 200)] for n in range(4)], summary="s"
    )
    h = harness(models, model=Model(provider="faux", id="faux-1", context_window=100_000))
    asyncio.run(h.session.start())
    go(h, "/timebox turns:5", "one", "two", "three")
    go(h, "/compact")
    assert any(isinstance(e, CompactionEntry) for e in h.store.tree.active_path())
    again = harness(TwoModels(replies=[]), store=Session.open(h.store.path or ""))
    asyncio.run(again.session.start())
    assert used(str(again.ui.status.get("timebox"))) == 3  # three prompts ran, whatever was compacted


STEERING = """
[[rule]]
name = "test-before-commit"
command = "git"
subcommand = "commit"
reason = "Run the tests first."
[rule.when.not.happened]
event = "tests-passed"
in = "session"

[[observer]]
name = "tests"
writes = ["tests-passed"]
watch = { tool = "bash", command = "^true", exit_code = 0 }
"""


def test_steering_entries_survive_a_compaction_and_follow_a_move(harness: MakeHarness) -> None:
    commit = call("bash", "g1", command="git commit -m x")
    models = TwoModels(replies=[call("bash", "b1", command="true"), [TextContent(text="ran")]], summary="s")
    models.replies += [
        [TextContent(text="x")],
        commit,
        [TextContent(text="tried")],
        commit,
        [TextContent(text="no")],
    ]
    h = harness(models, model=Model(provider="faux", id="faux-1", context_window=100_000))
    (h.project / ".rein").mkdir(exist_ok=True)
    (h.project / ".rein" / "steering.toml").write_text(STEERING)
    asyncio.run(h.session.start())
    go(h, "run the tests", "more", "/compact", "commit")
    assert "[steering:" not in models.sent()  # the tests ran before the compaction: still known
    root = h.store.tree.active_path()[0].id
    asyncio.run(h.session.navigate(root))
    go(h, "commit")
    assert "[steering:test-before-commit" in models.sent()  # this branch never ran them
