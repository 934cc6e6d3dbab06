"""Spec 10.1 `core/decide.test.ts`, plus the token dimension."""

from __future__ import annotations

from fractions import Fraction

from rein.timebox import (
    Budget,
    Nudge,
    Ok,
    Stop,
    Usage,
    decide,
    prompt_warning,
    ratios,
    spent,
    time_to_next,
    worst_ratio,
)

T0 = 1_000_000
MIN = 60_000


def time_budget(
    *, soft_nudge_sent: bool = False, active: bool = True, on_stop_command: str | None = None
) -> Budget:
    return Budget(
        time_limit_ms=10 * MIN,
        start_time=T0,
        soft_nudge_sent=soft_nudge_sent,
        active=active,
        on_stop_command=on_stop_command,
    )


def test_ok_below_80_percent() -> None:
    assert decide(time_budget(), now=T0 + 7 * MIN, usage=Usage()) == Ok()
    assert decide(Budget(turn_limit=5, start_time=T0), now=T0, usage=Usage(user_messages=3)) == Ok()


def test_nudge_warning_at_exactly_80_percent_time() -> None:
    decision = decide(time_budget(), now=T0 + 8 * MIN, usage=Usage())
    assert decision == Nudge(urgency="warning", detail="2m 0s left of 10m")


def test_nudge_critical_at_95_percent_turns() -> None:
    budget = Budget(turn_limit=20, start_time=T0, start_turn=2)
    decision = decide(budget, now=T0, usage=Usage(user_messages=21))
    assert decision == Nudge(urgency="critical", detail="1 turn left of 20")


def test_no_second_nudge_once_sent() -> None:
    assert decide(time_budget(soft_nudge_sent=True), now=T0 + 9 * MIN, usage=Usage()) == Ok()


def test_stop_at_100_percent_time() -> None:
    budget = time_budget(on_stop_command="lmk done", soft_nudge_sent=True)
    assert decide(budget, now=T0 + 10 * MIN, usage=Usage(user_messages=4)) == Stop(
        used_turns=4, elapsed_ms=10 * MIN, used_tokens=0, on_stop_command="lmk done"
    )


def test_stop_at_turns_reaching_the_limit() -> None:
    budget = Budget(turn_limit=5, start_time=T0, start_turn=1)
    assert isinstance(decide(budget, now=T0, usage=Usage(user_messages=6)), Stop)
    assert isinstance(decide(budget, now=T0, usage=Usage(user_messages=9)), Stop)
    assert isinstance(decide(budget, now=T0, usage=Usage(user_messages=5)), Nudge)


def test_combined_budget_the_worst_ratio_sets_the_urgency() -> None:
    budget = Budget(time_limit_ms=10 * MIN, turn_limit=20, start_time=T0)
    warning_time = decide(budget, now=T0 + 8 * MIN, usage=Usage(user_messages=19))
    assert warning_time == Nudge(urgency="critical", detail="2m 0s left of 10m; 1 turn left of 20")
    critical_time = decide(budget, now=T0 + 9 * MIN + 30_000, usage=Usage(user_messages=16))
    assert isinstance(critical_time, Nudge) and critical_time.urgency == "critical"
    only_turns = decide(budget, now=T0 + MIN, usage=Usage(user_messages=16))
    assert isinstance(only_turns, Nudge) and only_turns.urgency == "warning"


def test_combined_budget_stops_when_either_dimension_is_spent() -> None:
    budget = Budget(time_limit_ms=10 * MIN, turn_limit=3, start_time=T0)
    assert isinstance(decide(budget, now=T0 + MIN, usage=Usage(user_messages=3)), Stop)
    assert isinstance(decide(budget, now=T0 + 10 * MIN, usage=Usage(user_messages=0)), Stop)


def test_tokens_nudge_and_stop_like_the_other_dimensions() -> None:
    budget = Budget(token_limit=200_000, start_time=T0)
    assert decide(budget, now=T0, usage=Usage(tokens=159_999)) == Ok()
    assert decide(budget, now=T0, usage=Usage(tokens=160_000)) == Nudge(
        urgency="warning", detail="40k tokens left of 200k"
    )
    assert decide(budget, now=T0, usage=Usage(tokens=190_000)) == Nudge(
        urgency="critical", detail="10k tokens left of 200k"
    )
    assert decide(budget, now=T0 + 10**9, usage=Usage(tokens=200_000)) == Stop(
        used_turns=0, elapsed_ms=10**9, used_tokens=200_000, on_stop_command=None
    )


def test_a_spent_budget_decides_nothing() -> None:
    assert decide(time_budget(active=False), now=T0 + 99 * MIN, usage=Usage()) == Ok()


def test_usage_before_the_start_is_clamped_to_zero() -> None:
    budget = Budget(turn_limit=5, start_time=T0, start_turn=7)
    assert spent(budget, now=T0 - 5, usage=Usage(user_messages=3, tokens=-1)).turns == 0
    assert ratios(budget, spent(budget, now=T0 - 5, usage=Usage())) == [Fraction(0)]


def test_worst_ratio_is_exact() -> None:
    budget = Budget(time_limit_ms=15 * MIN, turn_limit=5, start_time=T0)
    assert worst_ratio(budget, now=T0 + 12 * MIN, usage=Usage(user_messages=1)) == Fraction(4, 5)


def test_the_prompt_warning_is_important_then_critical() -> None:
    budget = Budget(time_limit_ms=10 * MIN, turn_limit=5, start_time=T0, soft_nudge_sent=True)
    important = prompt_warning(budget, now=T0 + 8 * MIN, usage=Usage(user_messages=1))
    assert important.startswith("IMPORTANT TIMEBOX WARNING\n")
    assert "2m 0s left of 10m; 4 turns left of 5 (the current turn counts as used)" in important
    assert "Wrap up now" in important
    critical = prompt_warning(budget, now=T0 + 9 * MIN + 45_000, usage=Usage(user_messages=1))
    assert critical.startswith("CRITICAL TIMEBOX WARNING\n")
    tokens_only = prompt_warning(Budget(token_limit=1000, start_time=T0), now=T0, usage=Usage(tokens=900))
    assert "100 tokens left of 1k." in tokens_only and "current turn" not in tokens_only


def test_time_to_next_is_the_nudge_then_the_stop() -> None:
    assert time_to_next(time_budget(), now=T0) == 8 * MIN
    assert time_to_next(time_budget(), now=T0 + 7 * MIN) == MIN
    assert time_to_next(time_budget(), now=T0 + 9 * MIN) == 0  # the nudge is due and not sent yet
    assert time_to_next(time_budget(soft_nudge_sent=True), now=T0 + 9 * MIN) == MIN
    assert time_to_next(time_budget(soft_nudge_sent=True), now=T0 + 11 * MIN) == 0


def test_time_to_next_lands_on_the_first_millisecond_that_decides() -> None:
    odd = Budget(time_limit_ms=1001, start_time=T0)  # 80 percent is 800.8 ms: the nudge is at 801
    wait = time_to_next(odd, now=T0)
    assert wait == 801
    assert decide(odd, now=T0 + wait - 1, usage=Usage()) == Ok()
    assert isinstance(decide(odd, now=T0 + wait, usage=Usage()), Nudge)


def test_time_to_next_is_none_without_a_time_limit_or_once_spent() -> None:
    assert time_to_next(Budget(turn_limit=5, start_time=T0), now=T0) is None
    assert time_to_next(time_budget(active=False), now=T0) is None
