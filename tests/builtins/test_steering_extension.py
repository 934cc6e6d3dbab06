"""Steering inside a session: blocked tool calls, observers and `when.happened` across prompts."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping

from rein.agent import ToolContext, ToolOutput
from rein.agent.tools import Ls
from rein.ai import TextContent, ToolCall, ToolResultMessage
from rein.builtins.steering import ENTRY as STEERING_ENTRY
from rein.session import Session
from rein.steering._provenance import ENTRY as PROVENANCE
from tests.builtins.conftest import MakeHarness


def bash(id: str, command: str) -> ToolCall:
    return ToolCall(id=id, name="bash", arguments={"command": command})


def test_a_blocked_command_is_an_error_result_and_does_not_run(harness: MakeHarness) -> None:
    h = harness([[bash("1", "touch made && git push --force")], [TextContent(text="ok")]])
    asyncio.run(h.session.start())
    added = asyncio.run(h.session.prompt("push"))
    result = next(m for m in added if isinstance(m, ToolResultMessage))
    assert result.is_error and str(result.content[0]).count("[steering:no-force-push@defaults]") == 1
    assert not (h.project / "made").exists()


def test_observer_entries_gate_later_commands(harness: MakeHarness) -> None:
    config = """
[[rule]]
name = "test-first"
command = "git"
subcommand = "commit"
reason = "Run the tests first."
[rule.when.not.happened]
event = "tests-passed"
in = "agent_loop"

[[observer]]
name = "tests"
writes = ["tests-passed"]
watch = { command = "^true$", exit_code = 0 }
"""
    h = harness(
        [
            [bash("1", "git commit -m x")],
            [bash("2", "true")],
            [bash("3", "git commit -m x --dry-run")],
            [TextContent(text="ok")],
        ]
    )
    (h.project / ".rein").mkdir()
    (h.project / ".rein" / "steering.toml").write_text(config)
    asyncio.run(h.session.start())
    added = asyncio.run(h.session.prompt("commit"))
    results = [m for m in added if isinstance(m, ToolResultMessage)]
    assert results[0].is_error and "[steering:test-first@user]" in str(results[0].content[0])
    assert "[steering:" not in str(results[2].content[0])


def test_a_broken_config_blocks_every_call(harness: MakeHarness) -> None:
    h = harness([[bash("1", "ls")], [TextContent(text="ok")]])
    (h.project / ".rein").mkdir()
    (h.project / ".rein" / "steering.toml").write_text("[[rule]]\nname = 'x'\n")
    asyncio.run(h.session.start())
    assert any(level == "error" and "steering.toml" in message for message, level in h.ui.notices)
    added = asyncio.run(h.session.prompt("list"))
    result = next(m for m in added if isinstance(m, ToolResultMessage))
    assert result.is_error and "needs a reason" in str(result.content[0])


def test_steering_and_follow_up_messages_reach_the_running_agent(harness: MakeHarness) -> None:
    h = harness([[bash("1", "true")], [TextContent(text="saw it")], [TextContent(text="and that")]])
    h.session.subscribe(
        lambda event: h.session.steer("also check the docs") if event.type == "tool_execution_end" else None
    )
    h.session.follow_up("then summarize")
    asyncio.run(h.session.start())
    added = asyncio.run(h.session.prompt("go"))
    texts = [str(m.content[0]) for m in added if type(m).__name__ == "UserMessage"]
    assert any("also check the docs" in t for t in texts) and any("then summarize" in t for t in texts)
    assert h.faux.calls == 3


def test_a_message_sent_while_idle_goes_with_the_next_prompt(harness: MakeHarness) -> None:
    h = harness([[TextContent(text="ok")]])
    h.session.load_extension(
        "note",
        lambda rein: rein.register_command("note", "n", lambda args, ctx: rein.send_message("note", args)),
    )
    asyncio.run(h.session.start())
    asyncio.run(h.session.prompt("/note the build is red"))
    assert h.faux.calls == 0
    added = asyncio.run(h.session.prompt("go"))
    assert [type(m).__name__ for m in added] == ["CustomMessage", "UserMessage", "AssistantMessage"]
    assert h.faux.calls == 1


def test_an_extension_tool_is_offered_and_run(harness: MakeHarness) -> None:
    class Shout(Ls):
        name = "shout"

        async def execute(self, args: Mapping[str, object], context: ToolContext) -> ToolOutput:
            return ToolOutput(text=str(args.get("text", "")).upper())

    h = harness([[ToolCall(id="s", name="shout", arguments={"text": "hi"})], [TextContent(text="ok")]])
    h.session.load_extension("shout", lambda rein: rein.register_tool(Shout()))
    asyncio.run(h.session.start())
    added = asyncio.run(h.session.prompt("go"))
    result = next(m for m in added if isinstance(m, ToolResultMessage))
    assert str(result.content[0]).count("HI") == 1 and "shout" in [t.name for t in h.session.tools]


SINCE_CONFIG = """
[[rule]]
name = "test-before-commit"
command = "git"
subcommand = "commit"
reason = "Run the tests and commit after they pass."
[rule.when.not.happened]
event = "tests-passed"
in = "session"
since = "file-written"

[[observer]]
name = "tests"
writes = ["tests-passed"]
watch = { tool = "bash", command = "^true$", exit_code = 0 }

[[observer]]
name = "edits"
writes = ["file-written"]
watch = { tool = "write" }
"""


def write(id: str, path: str) -> ToolCall:
    return ToolCall(id=id, name="write", arguments={"path": path, "content": "x\n"})


def blocked(results: list[ToolResultMessage]) -> list[bool]:
    return [m.is_error and "[steering:test-before-commit@user]" in str(m.content[0]) for m in results]


def test_happened_since_orders_entries_of_different_types(harness: MakeHarness) -> None:
    # Each tool call and result used to number its entries from 1, so `tests-passed` and
    # `file-written` tied and "tests passed since the last write" was never true.
    h = harness(
        [
            [write("1", "a.txt")],
            [bash("2", "true")],
            [bash("3", "git commit -m x --dry-run")],
            [write("4", "b.txt")],
            [bash("5", "git commit -m x --dry-run")],
            [TextContent(text="ok")],
        ]
    )
    (h.project / ".rein").mkdir()
    (h.project / ".rein" / "steering.toml").write_text(SINCE_CONFIG)
    asyncio.run(h.session.start())
    added = asyncio.run(h.session.prompt("commit"))
    results = [m for m in added if isinstance(m, ToolResultMessage)]
    assert blocked(results) == [False, False, False, False, True]
    stored = h.session.custom_entries(STEERING_ENTRY)
    assert [e["seq"] for e in stored] == list(range(1, len(stored) + 1))
    observed = [e["type"] for e in stored if e["type"] != PROVENANCE]  # and what the agent wrote
    assert observed == ["file-written", "tests-passed", "file-written"]


def test_happened_since_keeps_its_order_across_a_resume(harness: MakeHarness) -> None:
    h = harness([[bash("1", "true")], [write("2", "a.txt")], [bash("3", "true")], [TextContent(text="ok")]])
    (h.project / ".rein").mkdir()
    (h.project / ".rein" / "steering.toml").write_text(SINCE_CONFIG)
    asyncio.run(h.session.start())
    asyncio.run(h.session.prompt("test"))
    assert h.store.path is not None
    resumed = harness(
        [
            [bash("4", "git commit -m x --dry-run")],
            [write("5", "b.txt")],
            [bash("6", "git commit -m x --dry-run")],
            [TextContent(text="ok")],
        ],
        store=Session.open(h.store.path),
    )
    asyncio.run(resumed.session.start())
    added = asyncio.run(resumed.session.prompt("commit"))
    results = [m for m in added if isinstance(m, ToolResultMessage)]
    # The tests passed after the last write of the first run; the write after the resume numbers
    # after every stored entry, so it is newer than those tests.
    assert blocked(results) == [False, False, True]
    seqs = [e["seq"] for e in resumed.session.custom_entries(STEERING_ENTRY)]
    assert seqs == list(range(1, len(seqs) + 1))
