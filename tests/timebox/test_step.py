"""The transitions and `apply`: the core driving the adapter contract, no host involved."""

from __future__ import annotations

from collections.abc import Sequence

from rein.timebox import (
    Abort,
    ActiveRecord,
    Append,
    Budget,
    Inject,
    Level,
    Notify,
    OffRecord,
    Record,
    RunCommand,
    Step,
    Usage,
    agent_start,
    apply,
    command,
    session_start,
    turn_start,
    usage_of,
)

T0 = 1_700_000_000_000
MIN = 60_000


class Recorder:
    """BudgetStore, UIBridge and AgentBridge at once, recording every call in order."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, object]] = []

    def append(self, record: Record) -> None:
        self.calls.append(("append", record))

    def load_records(self) -> Sequence[Record]:
        return []

    def notify(self, message: str, level: Level) -> None:
        self.calls.append((level, message))

    def set_status(self, text: str | None) -> None:
        self.calls.append(("status", text))

    def abort_current_turn(self) -> None:
        self.calls.append(("abort", None))

    def append_system_prompt(self, extra: str) -> None:
        self.calls.append(("prompt", extra))

    def run(self, line: str) -> None:
        self.calls.append(("run", line))


def test_apply_hands_each_effect_to_its_contract_method_in_order() -> None:
    budget = Budget(turn_limit=1, start_time=T0)
    recorder = Recorder()
    effects = (
        Notify(message="hi", level="info"),
        Append(record=ActiveRecord(budget=budget)),
        Append(record=OffRecord(disabled_at=T0)),
        RunCommand(command="lmk done"),
        Abort(),
        Inject(text="WRAP UP"),
    )
    apply(effects, store=recorder, ui=recorder, agent=recorder, run_on_stop=recorder.run)
    assert recorder.calls == [
        ("info", "hi"),
        ("append", ActiveRecord(budget=budget)),
        ("append", OffRecord(disabled_at=T0)),
        ("run", "lmk done"),
        ("abort", None),
        ("prompt", "WRAP UP"),
    ]


def test_command_sets_a_budget_from_now_and_the_current_count() -> None:
    step = command(None, "15m turns:3 -- lmk done", now=T0, usage=Usage(user_messages=4))
    expected = Budget(
        time_limit_ms=15 * MIN, turn_limit=3, start_time=T0, start_turn=4, on_stop_command="lmk done"
    )
    assert step.budget == expected
    assert step.effects == (
        Append(record=ActiveRecord(budget=expected)),
        Notify(
            message="Timebox set: 15m, 3 turns. The agent is warned at 80% and stopped at 100%. "
            "Then runs: lmk done",
            level="info",
        ),
    )


def test_command_replaces_an_active_budget_and_resets_its_nudge() -> None:
    old = Budget(time_limit_ms=MIN, start_time=T0, soft_nudge_sent=True)
    step = command(old, "turns:5", now=T0 + MIN, usage=Usage(user_messages=2))
    assert step.budget == Budget(turn_limit=5, start_time=T0 + MIN, start_turn=2)


def test_command_invalid_warns_and_keeps_the_budget() -> None:
    old = Budget(time_limit_ms=MIN, start_time=T0)
    step = command(old, "15x", now=T0, usage=Usage(), name="$timebox")
    assert step.budget is old
    [notice] = step.effects
    assert isinstance(notice, Notify) and notice.level == "warning"
    assert notice.message.startswith("Timebox: cannot read '15x'. Usage: $timebox 15m")


def test_command_status_and_off() -> None:
    budget = Budget(time_limit_ms=15 * MIN, start_time=T0)
    assert command(None, "status", now=T0, usage=Usage()).effects[0] == Notify(
        message=(
            "No active timebox. Usage: /timebox 15m | 30s | 2h | 90 (minutes) | turns:5 | tokens:200k, "
            "combined as you like, [-- command to run on stop]; /timebox status; /timebox off."
        ),
        level="info",
    )
    assert command(budget, "status", now=T0 + MIN, usage=Usage()) == Step(
        budget=budget,
        effects=(Notify(message="Timebox: 14m 0s left (15m budget) | no turn limit", level="info"),),
    )
    assert command(None, "off", now=T0, usage=Usage()) == Step(
        budget=None, effects=(Notify(message="No active timebox.", level="info"),)
    )
    assert command(budget, "cancel", now=T0 + 5, usage=Usage()) == Step(
        budget=None,
        effects=(
            Append(record=OffRecord(disabled_at=T0 + 5)),
            Notify(message="Timebox disabled.", level="info"),
        ),
    )


def test_session_start_measures_the_restored_budget_once() -> None:
    budget = Budget(turn_limit=10, start_time=T0, start_turn=2)
    measured: list[Budget] = []

    def measure(counted: Budget) -> Usage:
        measured.append(counted)
        return Usage(user_messages=5)

    step = session_start([ActiveRecord(budget=budget)], now=T0 + MIN, measure=measure)
    assert measured == [budget]
    assert step.effects == (
        Notify(message="Timebox restored. Timebox: no time limit | 7 turns left (3/10)", level="info"),
    )


def test_session_start_restores_or_reports() -> None:
    budget = Budget(time_limit_ms=10 * MIN, start_time=T0)
    records = [ActiveRecord(budget=budget)]
    assert session_start([], now=T0, measure=lambda _: Usage()) == Step(budget=None)
    restored = session_start(records, now=T0 + MIN, measure=lambda _: Usage())
    assert restored == Step(
        budget=budget,
        effects=(
            Notify(
                message="Timebox restored. Timebox: 9m 0s left (10m budget) | no turn limit", level="info"
            ),
        ),
    )
    expired = session_start(records, now=T0 + 11 * MIN, measure=lambda _: Usage())
    assert expired == Step(
        budget=None,
        effects=(
            Notify(
                message="Timebox (10m) ran out while the session was closed; it was not restored.",
                level="warning",
            ),
        ),
    )


def test_turn_start_nudges_once_then_stops_once() -> None:
    budget = Budget(time_limit_ms=10 * MIN, start_time=T0, on_stop_command="lmk done")
    assert turn_start(None, now=T0, usage=Usage()) == Step(budget=None)
    assert turn_start(budget, now=T0 + MIN, usage=Usage()) == Step(budget=budget)
    nudged = turn_start(budget, now=T0 + 8 * MIN, usage=Usage())
    assert nudged.budget is not None and nudged.budget.soft_nudge_sent
    assert nudged.effects == (
        Notify(
            message="Timebox: the budget is nearly spent (2m 0s left of 10m). The agent is told to wrap up.",
            level="warning",
        ),
    )
    assert turn_start(nudged.budget, now=T0 + 9 * MIN, usage=Usage()).effects == ()
    stopped = turn_start(nudged.budget, now=T0 + 10 * MIN, usage=Usage(user_messages=2))
    spent = Budget(
        time_limit_ms=10 * MIN, start_time=T0, on_stop_command="lmk done", soft_nudge_sent=True, active=False
    )
    assert stopped == Step(
        budget=spent,
        effects=(
            Notify(
                message="Timebox budget spent (10m). Used 2 turns, 10m 0s. "
                "The agent stops for this turn. The chat continues.",
                level="error",
            ),
            Append(record=ActiveRecord(budget=spent)),
            RunCommand(command="lmk done"),
            Abort(),
        ),
    )
    assert turn_start(spent, now=T0 + 20 * MIN, usage=Usage()) == Step(budget=spent)


def test_a_stop_without_a_command_runs_nothing() -> None:
    step = turn_start(Budget(turn_limit=1, start_time=T0), now=T0, usage=Usage(user_messages=1))
    assert [effect.type for effect in step.effects] == ["notify", "append", "abort"]


def test_agent_start_warns_the_run_that_is_the_last_turn() -> None:
    budget = Budget(turn_limit=2, start_time=T0)
    assert agent_start(budget, now=T0, usage=Usage(user_messages=0)) == Step(budget=budget)
    last = agent_start(budget, now=T0, usage=Usage(user_messages=1))
    assert last.budget == Budget(turn_limit=2, start_time=T0, soft_nudge_sent=True)
    notice, inject = last.effects
    assert notice == Notify(
        message="Timebox: the budget is nearly spent (0 turns left of 2). The agent is told to wrap up.",
        level="warning",
    )
    assert isinstance(inject, Inject) and inject.text.startswith("CRITICAL TIMEBOX WARNING")


def test_agent_start_nudges_on_time_and_then_keeps_injecting() -> None:
    budget = Budget(time_limit_ms=10 * MIN, turn_limit=10, start_time=T0)
    first = agent_start(budget, now=T0 + 8 * MIN, usage=Usage(user_messages=1))
    assert [effect.type for effect in first.effects] == ["notify", "inject"]
    again = agent_start(first.budget, now=T0 + 8 * MIN + 1, usage=Usage(user_messages=2))
    assert [effect.type for effect in again.effects] == ["inject"]
    [inject] = again.effects
    assert isinstance(inject, Inject) and "IMPORTANT TIMEBOX WARNING" in inject.text
    assert "7 turns left of 10" in inject.text


def test_agent_start_leaves_a_spent_budget_to_turn_start() -> None:
    budget = Budget(time_limit_ms=10 * MIN, start_time=T0)
    assert agent_start(budget, now=T0 + 10 * MIN, usage=Usage()) == Step(budget=budget)
    nudged = Budget(time_limit_ms=10 * MIN, start_time=T0, soft_nudge_sent=True)
    [inject] = agent_start(nudged, now=T0 + 10 * MIN, usage=Usage()).effects
    assert isinstance(inject, Inject) and inject.text.startswith("CRITICAL")
    stopped = Budget(time_limit_ms=10 * MIN, start_time=T0, soft_nudge_sent=True, active=False)
    assert agent_start(stopped, now=T0, usage=Usage()) == Step(budget=stopped)
    assert agent_start(None, now=T0, usage=Usage()) == Step(budget=None)


class Transcript:
    def __init__(self) -> None:
        self.asked: list[int] = []

    def count_user_messages(self) -> int:
        return 7

    def tokens_since(self, start_time: int) -> int:
        self.asked.append(start_time)
        return 1234


def test_usage_of_counts_tokens_only_for_a_budget_that_limits_them() -> None:
    transcript = Transcript()
    assert usage_of(transcript, None) == Usage(user_messages=7)
    assert usage_of(transcript, Budget(turn_limit=3, start_time=T0)) == Usage(user_messages=7)
    assert transcript.asked == []
    assert usage_of(transcript, Budget(token_limit=3, start_time=T0)) == Usage(user_messages=7, tokens=1234)
    assert transcript.asked == [T0]
