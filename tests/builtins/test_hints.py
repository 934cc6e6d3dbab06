"""Validation hints in a real session: the request after a tool batch that changed files or ran a
failing command ends with one hidden hint; it is never written to the session file."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence

from rein.agent import AbortRetry, CustomMessage, StreamDelta, ToolOutput
from rein.ai import Context, JsonValue, TextContent, ToolCall, UserMessage
from rein.ai.providers.faux import FauxTurn
from rein.builtins.hints import HINT_MESSAGE, TAIL_CHARS, Batch, hint_text, tail
from tests.builtins.conftest import Harness, MakeHarness

HINT = "rein: before going on, check the last tool batch."


def call(id: str, name: str, **arguments: JsonValue) -> ToolCall:
    return ToolCall(id=id, name=name, arguments=arguments)


def recorded(turns: Sequence[FauxTurn]) -> tuple[list[Callable[[Context], FauxTurn]], list[Context]]:
    """A faux script that answers `turns` in order and keeps every request it was sent."""
    requests: list[Context] = []

    def answer(turn: FauxTurn) -> Callable[[Context], FauxTurn]:
        def reply(context: Context) -> FauxTurn:
            requests.append(context)
            return turn

        return reply

    return [answer(turn) for turn in turns], requests


def hints(context: Context) -> list[str]:
    return [m.text for m in context.messages if isinstance(m, UserMessage) and m.text.startswith(HINT)]


def last_hint(context: Context) -> str:
    """The hint the request ends with; fails unless it is the last message and the only hint."""
    last = context.messages[-1]
    assert isinstance(last, UserMessage) and last.text.startswith(HINT), last
    assert hints(context) == [last.text]
    return last.text


def run(h: Harness, prompt: str = "go") -> None:
    asyncio.run(h.session.start())
    asyncio.run(h.session.prompt(prompt))


def test_a_write_and_a_failing_command_become_one_hint_for_the_next_turn_only(harness: MakeHarness) -> None:
    script, requests = recorded(
        [
            [call("1", "write", path="a.txt", content="x\n"), call("2", "bash", command="echo boom; exit 3")],
            [call("3", "read", path="a.txt")],
            [TextContent(text="done")],
        ]
    )
    h = harness(script)
    run(h)
    assert len(requests) == 3
    assert hints(requests[0]) == []
    hint = last_hint(requests[1])
    assert hint.startswith(f"{HINT} Files changed: a.txt (write).")
    assert "\nFailed: `echo boom; exit 3` (exit 3):\nboom" in hint
    assert "[exit code 3]" not in hint
    assert hints(requests[2]) == [], "the turn that only read a file leaves no hint"


def test_the_hint_is_never_written_to_the_session_file(harness: MakeHarness) -> None:
    script, requests = recorded([[call("1", "bash", command="false")], [TextContent(text="ok")]])
    h = harness(script)
    run(h)
    assert "`false` (exit 1)" in last_hint(requests[1])
    assert h.store.path is not None
    saved = h.store.path.read_text()
    assert HINT_MESSAGE not in saved and HINT not in saved
    assert not any(isinstance(m, CustomMessage) for m in h.session.messages)


def test_a_batch_with_repeats_names_each_path_and_command_once(harness: MakeHarness) -> None:
    script, requests = recorded(
        [
            [
                call("1", "write", path="a.txt", content="one\n"),
                call("2", "edit", path="a.txt", old_string="one", new_string="two"),
                call("3", "write", path="a.txt", content="three\n"),
                call("4", "bash", command="echo first; exit 2"),
                call("5", "bash", command="echo first; exit 2"),
                # fails once, then passes: fixed within the batch, so not reported
                call("6", "bash", command="test -f flag || { touch flag; exit 1; }"),
                call("7", "bash", command="test -f flag || { touch flag; exit 1; }"),
            ],
            [TextContent(text="ok")],
        ]
    )
    h = harness(script)
    run(h)
    hint = last_hint(requests[1])
    assert hint.count("a.txt") == 1 and "a.txt (write, edit)" in hint
    assert hint.count("`echo first; exit 2`") == 1
    assert "flag" not in hint


def test_a_blocked_command_is_not_a_failed_one(harness: MakeHarness) -> None:
    script, requests = recorded([[call("1", "bash", command="git push --force")], [TextContent(text="ok")]])
    h = harness(script)
    run(h)
    assert hints(requests[1]) == []
    assert any("[steering:no-force-push@defaults]" in str(m) for m in requests[1].messages)


def test_a_failed_write_and_a_passing_command_give_no_hint(harness: MakeHarness) -> None:
    script, requests = recorded(
        [
            [call("1", "write", path="/proc/nope/a.txt", content="x"), call("2", "bash", command="true")],
            [TextContent(text="ok")],
        ]
    )
    h = harness(script)
    run(h)
    assert hints(requests[1]) == []


def test_every_request_of_the_turn_carries_the_hint_a_retry_too(harness: MakeHarness) -> None:
    script, requests = recorded(
        [[call("1", "bash", command="exit 4")], [TextContent(text="oops")], [TextContent(text="fine")]]
    )
    h = harness(script)
    retried: list[StreamDelta] = []

    def cut_once(delta: StreamDelta) -> AbortRetry | None:
        if delta.source != "text" or retried:
            return None
        retried.append(delta)
        return AbortRetry(inject=[CustomMessage(custom_type="rule", content="say fine")])

    h.session.api("cutter").on_stream_delta(cut_once)
    run(h)
    assert len(requests) == 3 and retried
    first, again = last_hint(requests[1]), last_hint(requests[2])
    assert first == again and "`exit 4` (exit 4)" in first
    assert isinstance(requests[2].messages[-2], UserMessage) and requests[2].messages[-2].text == "say fine"


def test_a_run_stopped_after_a_batch_leaves_no_hint_for_the_next_prompt(harness: MakeHarness) -> None:
    script, requests = recorded([[call("1", "bash", command="exit 1")], [TextContent(text="b")]])
    h = harness(script)
    h.session.subscribe(lambda event: h.session.abort() if event.type == "turn_end" else None)
    asyncio.run(h.session.start())
    asyncio.run(h.session.prompt("first"))
    assert len(requests) == 1, "the run stopped after the batch"
    asyncio.run(h.session.prompt("second"))
    assert len(requests) == 2 and hints(requests[1]) == []


def test_the_off_switch(harness: MakeHarness) -> None:
    script, requests = recorded([[call("1", "bash", command="exit 1")], [TextContent(text="ok")]])
    h = harness(script, settings={"rein": {"validation_hints": False}})
    run(h)
    assert hints(requests[1]) == []
    assert "[exit code 1]" in str(requests[1].messages[-1]), "the failure itself still reaches the model"


def test_the_tail_keeps_the_last_lines_within_the_size_limit() -> None:
    many = "\n".join(f"line {n}" for n in range(100)) + "\n[exit code 1]"
    kept = tail(many, 1)
    assert kept.splitlines() == [f"line {n}" for n in range(80, 100)]
    wide = tail("\n".join("x" * 500 for _ in range(10)), 2)
    assert len(wide) == TAIL_CHARS + 3 and wide.startswith("...")


def test_an_empty_batch_has_no_text_and_a_timeout_is_named() -> None:
    assert Batch().empty()
    batch = Batch()
    timed_out = ToolOutput(text="[command timed out]", is_error=True, details={"exit_code": None})
    batch.record("bash", {"command": "sleep 99"}, timed_out)
    assert hint_text(batch) == f"{HINT}\nFailed: `sleep 99` (timed out):\n[command timed out]"
