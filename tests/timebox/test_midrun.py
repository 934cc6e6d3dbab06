"""The timebox acts while a run goes (issue 12, point 4): the nudge and the stop land mid-reply or
mid-tool, on time, with a fake clock and timer (no sleeps); the status line counts down meanwhile."""

from __future__ import annotations

from rein.agent import AgentEvent
from rein.ai import AssistantMessage, TextContent, ThinkingContent, ToolCall
from rein.ai import Usage as TokenUsage
from rein.builtins.timebox import WARNING, streamed_tokens
from rein.timebox import ACTIVE
from tests.timebox.rein_harness import MIN, Harness, reply

SPENT_10M = (
    "Timebox budget spent (10m). Used 0 turns, 10m 0s. The agent stops for this turn. The chat continues."
)


def partial(text: str, *, input_tokens: int = 0) -> AssistantMessage:
    """A reply still streaming: its input reported, its output not yet."""
    return AssistantMessage(
        provider="faux", model="m", content=(TextContent(text=text),), usage=TokenUsage(input=input_tokens)
    )


def test_the_stop_aborts_the_run_when_the_time_runs_out_mid_reply() -> None:
    tb = Harness()
    tb.command("10m")
    tb.start_run()
    tb.clock.advance(10 * MIN)
    tb.scheduler.tick()
    assert tb.ui.notices[-1] == ("error", SPENT_10M)
    assert tb.aborts == 1
    assert tb.session.kinds() == [ACTIVE, ACTIVE]
    assert tb.session.entries[-1][1]["active"] is False  # recorded spent, as a stop at turn start is
    assert tb.scheduler.pending() == []
    assert tb.status == "Timebox: spent (10m)"


def test_the_nudge_is_shown_at_once_and_the_run_goes_on() -> None:
    tb = Harness()
    tb.command("10m")
    tb.start_run()
    tb.clock.advance(8 * MIN)
    tb.scheduler.tick()
    assert tb.ui.notices[-1] == (
        "warning",
        "Timebox: the budget is nearly spent (2m 0s left of 10m). The agent is told to wrap up.",
    )
    assert tb.aborts == 0
    assert tb.extension.budget is not None and tb.extension.budget.soft_nudge_sent
    tb.clock.advance(MIN)
    tb.scheduler.tick()
    assert tb.ui.levels() == ["info", "warning"]  # once


def test_the_timer_lands_on_the_nudge_and_the_stop_and_counts_down_between() -> None:
    tb = Harness()
    tb.command("2s")
    tb.start_run()
    assert [timer.delay for timer in tb.scheduler.pending()] == [1.0]
    tb.clock.advance(1000)
    tb.scheduler.tick()
    assert tb.status == "Timebox: 1s left (2s budget) | no turn limit"
    assert [timer.delay for timer in tb.scheduler.pending()] == [0.6]  # the nudge at 1.6 s
    tb.clock.advance(600)
    tb.scheduler.tick()
    assert tb.ui.levels() == ["info", "warning"]
    assert [timer.delay for timer in tb.scheduler.pending()] == [0.4]  # the stop at 2 s
    tb.clock.advance(400)
    tb.scheduler.tick()
    assert tb.ui.levels() == ["info", "warning", "error"]
    assert tb.aborts == 1


def test_a_timer_that_fires_early_decides_nothing_and_waits_again() -> None:
    tb = Harness()
    tb.command("2s")
    tb.start_run()
    tb.clock.advance(1500)
    tb.scheduler.tick()
    assert tb.ui.levels() == ["info"]
    assert [timer.delay for timer in tb.scheduler.pending()] == [0.1]


def test_the_timer_between_runs_only_counts_down() -> None:
    tb = Harness()
    tb.command("10m")
    tb.prompt()
    tb.clock.advance(11 * MIN)
    tb.scheduler.tick()
    assert (tb.aborts, tb.ui.levels()) == (0, ["info"])
    assert tb.status == "Timebox: time is up (10m budget) | no turn limit"
    assert [timer.delay for timer in tb.scheduler.pending()] == [1.0]
    tb.prompt()  # the next prompt is stopped before it reaches the model
    assert (tb.aborts, tb.ui.levels()) == (1, ["info", "error"])


def test_a_mid_run_nudge_reaches_the_model_before_its_next_request() -> None:
    tb = Harness()
    tb.command("10m turns:5")
    tb.start_run()
    tb.clock.advance(8 * MIN)
    tb.scheduler.tick()
    assert tb.session.sent == []  # not in the middle of the reply
    tb.end_turn(reply(100, calls=1))  # the run goes on with the tool results
    [(kind, content, display)] = tb.session.sent
    assert (kind, display) == (WARNING, False)
    assert content.startswith("IMPORTANT TIMEBOX WARNING\n")
    assert "2m 0s left of 10m; 4 turns left of 5 (the current turn counts as used)" in content
    tb.end_turn(reply(100, calls=1))
    assert len(tb.session.sent) == 1  # once


def test_a_mid_run_nudge_in_the_last_reply_waits_for_the_next_run() -> None:
    tb = Harness()
    tb.command("10m")
    tb.start_run()
    tb.clock.advance(8 * MIN)
    tb.scheduler.tick()
    tb.end_turn(reply(100))  # no tool calls: the run ends, no extra turn for the warning
    tb.fire("agent_end", AgentEvent(type="agent_end"))
    assert tb.session.sent == []
    assert "IMPORTANT TIMEBOX WARNING" in tb.before_agent_start()


def test_a_token_limit_crossed_by_a_reply_stops_the_run_before_its_tool_calls() -> None:
    tb = Harness()
    tb.command("tokens:10k -- lmk done")
    tb.start_run()
    tb.fire("message_end", AgentEvent(type="message_end", message=reply(10_000, calls=2)))
    assert tb.aborts == 1 and tb.ran == ["lmk done"]
    assert tb.ui.notices[-1] == (
        "error",
        "Timebox budget spent (10k tokens). Used 0 turns, 0s, 10k tokens. "
        "The agent stops for this turn. The chat continues.",
    )
    block = tb.tool_call()
    assert block is not None and block.reason == "Not run: the timebox (10k tokens) is spent. Stop here."
    assert tb.aborts == 1 and tb.ran == ["lmk done"]


def test_a_token_limit_is_watched_while_the_reply_streams() -> None:
    tb = Harness()
    tb.command("tokens:1k")
    tb.start_run()
    tb.streamed(partial("x" * 2000, input_tokens=199))  # 199 + 500: under 80 percent
    assert tb.ui.levels() == ["info"]
    tb.streamed(partial("x" * 2404, input_tokens=199))  # 199 + 601 = 800: the nudge
    assert tb.ui.levels() == ["info", "warning"]
    tb.streamed(partial("x" * 3000, input_tokens=199))
    assert tb.aborts == 0
    tb.streamed(partial("x" * 3204, input_tokens=199))  # 199 + 801 = 1000: the stop, mid-reply
    assert tb.aborts == 1
    assert tb.ui.notices[-1][1].startswith("Timebox budget spent (1k tokens). Used 0 turns, 0s, 1k tokens.")
    assert tb.extension.tokens == 0  # an estimate; the reply's reported usage counts at message_end


def test_streamed_deltas_are_not_watched_without_a_token_limit_or_a_run() -> None:
    tb = Harness()
    tb.command("10m")
    tb.start_run()
    tb.streamed(partial("x" * 1_000_000))
    idle = Harness()
    idle.command("tokens:1k")
    idle.streamed(partial("x" * 1_000_000))  # no run: a prompt's turn start decides
    assert (tb.aborts, tb.ui.levels(), idle.aborts, idle.ui.levels()) == (0, ["info"], 0, ["info"])


def test_streamed_tokens_count_text_thinking_and_tool_arguments_at_four_characters() -> None:
    reported = AssistantMessage(provider="faux", model="m", usage=TokenUsage(input=10, output=50))
    assert streamed_tokens(reported) == 60
    blocks = (
        TextContent(text="abcde"),
        ThinkingContent(thinking="abcd"),
        ToolCall(id="c", name="bash", raw_arguments='{"a"'),
    )
    streaming = AssistantMessage(
        provider="faux", model="m", content=blocks, usage=TokenUsage(input=10, cache_read=5, cache_write=1)
    )
    assert streamed_tokens(streaming) == 10 + 5 + 1 + 4  # 13 characters, rounded up


def test_a_tool_call_after_the_time_ran_out_is_blocked_even_before_the_timer_fires() -> None:
    tb = Harness()
    tb.command("10m")
    tb.start_run()
    tb.clock.advance(10 * MIN)
    block = tb.tool_call()
    assert block is not None and "timebox (10m) is spent" in block.reason
    assert tb.aborts == 1
    assert tb.ui.notices[-1] == ("error", SPENT_10M)


def test_tool_calls_within_the_budget_run() -> None:
    tb = Harness()
    tb.command("10m")
    assert tb.tool_call() is None  # no run
    tb.start_run()
    assert tb.tool_call() is None
    assert tb.aborts == 0


def test_the_next_run_after_a_mid_run_stop_starts_clean() -> None:
    tb = Harness()
    tb.command("10m")
    tb.start_run()
    tb.clock.advance(10 * MIN)
    tb.scheduler.tick()
    tb.fire("agent_end", AgentEvent(type="agent_end"))
    tb.command("turns:3")
    tb.start_run()
    assert tb.tool_call() is None
    assert tb.aborts == 1


def test_shutdown_mid_run_forgets_the_run() -> None:
    tb = Harness()
    tb.command("10m")
    tb.start_run()
    tb.fire("session_shutdown")
    assert not tb.extension.running
    assert tb.scheduler.pending() == []
