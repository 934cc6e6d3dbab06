"""The status line and the other texts, as the spec shows them."""

from __future__ import annotations

import pytest

from rein.timebox import (
    Budget,
    Stop,
    Usage,
    format_limit,
    format_tokens,
    status_text,
    stop_notice,
    summary,
)

T0 = 1_000_000
MIN = 60_000


def test_the_status_line_of_a_combined_budget() -> None:
    budget = Budget(time_limit_ms=15 * MIN, turn_limit=5, start_time=T0, start_turn=1)
    text = status_text(budget, now=T0 + 2 * MIN + 26_000, usage=Usage(user_messages=3))
    assert text == "Timebox: 12m 34s left (15m budget) | 3 turns left (2/5)"


def test_single_dimension_budgets_name_the_unset_one() -> None:
    time_only = Budget(time_limit_ms=15 * MIN, start_time=T0)
    assert (
        status_text(time_only, now=T0, usage=Usage()) == "Timebox: 15m 0s left (15m budget) | no turn limit"
    )
    turns_only = Budget(turn_limit=5, start_time=T0)
    assert (
        status_text(turns_only, now=T0, usage=Usage(user_messages=4))
        == "Timebox: no time limit | 1 turn left (4/5)"
    )


def test_tokens_show_only_when_limited() -> None:
    budget = Budget(token_limit=200_000, start_time=T0)
    assert (
        status_text(budget, now=T0, usage=Usage(tokens=50_000))
        == "Timebox: no time limit | no turn limit | 150k tokens left (50k/200k)"
    )


def test_time_up_and_spent() -> None:
    budget = Budget(time_limit_ms=MIN, turn_limit=2, start_time=T0)
    assert status_text(budget, now=T0 + 2 * MIN, usage=Usage(user_messages=5)) == (
        "Timebox: time is up (1m budget) | 0 turns left (5/2)"
    )
    spent = Budget(time_limit_ms=MIN, turn_limit=2, start_time=T0, active=False)
    assert status_text(spent, now=T0, usage=Usage()) == "Timebox: spent (1m, 2 turns)"


@pytest.mark.parametrize(
    ("ms", "text"),
    [
        (0, "0s"),
        (30_000, "30s"),
        (900_000, "15m"),
        (5_400_000, "1h 30m"),
        (7_200_000, "2h"),
        (3_601_000, "1h 1s"),
    ],
)
def test_format_limit(ms: int, text: str) -> None:
    assert format_limit(ms) == text


@pytest.mark.parametrize(
    ("count", "text"),
    [(0, "0"), (950, "950"), (1000, "1k"), (12_500, "12.5k"), (200_000, "200k"), (1_500_000, "1.5M")],
)
def test_format_tokens(count: int, text: str) -> None:
    assert format_tokens(count) == text


def test_summary_lists_the_limits() -> None:
    budget = Budget(time_limit_ms=15 * MIN, turn_limit=1, token_limit=200_000, start_time=T0)
    assert summary(budget) == "15m, 1 turn, 200k tokens"


def test_the_stop_notice() -> None:
    stop = Stop(used_turns=5, elapsed_ms=12 * MIN + 3000, used_tokens=201_000, on_stop_command=None)
    assert stop_notice(stop, Budget(turn_limit=5, start_time=T0)) == (
        "Timebox budget spent (5 turns). Used 5 turns, 12m 3s. "
        "The agent stops for this turn. The chat continues."
    )
    assert "Used 5 turns, 12m 3s, 201k tokens." in stop_notice(stop, Budget(token_limit=1, start_time=T0))
