"""Spec 10.1 `core/persist.test.ts`, plus the records' data and the newest-record helper."""

from __future__ import annotations

import pytest

from rein.timebox import (
    ACTIVE,
    OFF,
    ActiveRecord,
    Budget,
    Expired,
    NoBudget,
    OffRecord,
    Restored,
    Usage,
    budget_data,
    current,
    read_record,
    record_data,
    restore,
)

T0 = 1_700_000_000_000
MIN = 60_000
BUDGET = Budget(time_limit_ms=10 * MIN, turn_limit=10, start_time=T0, start_turn=2)
ACTIVE_RECORD = ActiveRecord(budget=BUDGET)


def test_restore_nothing() -> None:
    assert restore([], now=T0) == NoBudget()


def test_restore_an_active_budget_within_its_time() -> None:
    assert restore([ACTIVE_RECORD], now=T0 + 5 * MIN) == Restored(budget=BUDGET)


def test_restore_past_the_time_limit_is_expired() -> None:
    assert restore([ACTIVE_RECORD], now=T0 + 10 * MIN) == Expired(budget=BUDGET)


def test_the_newest_off_wins() -> None:
    assert restore([ACTIVE_RECORD, OffRecord(disabled_at=T0 + MIN)], now=T0 + 2 * MIN) == NoBudget()


def test_a_newer_active_wins_over_an_older_off() -> None:
    result = restore([OffRecord(disabled_at=T0 - MIN), ACTIVE_RECORD], now=T0 + MIN)
    assert result == Restored(budget=BUDGET)


def test_restore_past_80_percent_re_derives_the_nudge() -> None:
    result = restore([ACTIVE_RECORD], now=T0 + 8 * MIN + 30_000)
    assert isinstance(result, Restored) and result.budget.soft_nudge_sent


def test_restore_re_derives_the_nudge_from_what_was_counted() -> None:
    def measure(budget: Budget) -> Usage:
        assert budget == BUDGET
        return Usage(user_messages=11)

    result = restore([ACTIVE_RECORD], now=T0 + MIN, measure=measure)
    assert isinstance(result, Restored) and result.budget.soft_nudge_sent
    fresh = restore([ACTIVE_RECORD], now=T0 + MIN, measure=lambda _: Usage(user_messages=3))
    assert fresh == Restored(budget=BUDGET, usage=Usage(user_messages=3))


def test_a_budget_without_a_time_limit_never_expires() -> None:
    turns = Budget(turn_limit=3, start_time=T0)
    assert restore([ActiveRecord(budget=turns)], now=T0 + 10**12) == Restored(budget=turns)


def test_a_spent_budget_is_not_restored() -> None:
    spent = Budget(turn_limit=3, start_time=T0, active=False)
    assert restore([ACTIVE_RECORD, ActiveRecord(budget=spent)], now=T0 + MIN) == NoBudget()


def test_records_round_trip_through_their_data() -> None:
    full = Budget(
        time_limit_ms=MIN,
        turn_limit=3,
        token_limit=5000,
        start_time=T0,
        start_turn=4,
        soft_nudge_sent=True,
        active=False,
        on_stop_command="lmk done",
    )
    for record in (ActiveRecord(budget=full), ActiveRecord(budget=BUDGET), OffRecord(disabled_at=T0)):
        kind, data = record_data(record)
        assert read_record(kind, data) == record
    assert record_data(OffRecord(disabled_at=T0)) == (OFF, {"disabledAt": T0})
    assert budget_data(BUDGET) == {
        "timeLimitMs": 10 * MIN,
        "turnLimit": 10,
        "tokenLimit": None,
        "startTime": T0,
        "startTurn": 2,
        "softNudgeSent": False,
        "active": True,
        "onStopCommand": None,
    }


def test_legacy_records_without_new_fields_take_defaults() -> None:
    pi = {"timeLimitMs": 900000.0, "turnLimit": None, "startTime": T0, "softNudgeSent": False, "active": True}
    assert read_record(ACTIVE, pi) == ActiveRecord(
        budget=Budget(time_limit_ms=900_000, start_time=T0, on_stop_command=None, token_limit=None)
    )


@pytest.mark.parametrize(
    ("kind", "data"),
    [
        ("other-type", {"startTime": T0, "turnLimit": 3}),
        (ACTIVE, {"turnLimit": 3}),
        (ACTIVE, {"startTime": "soon", "turnLimit": 3}),
        (ACTIVE, {"startTime": T0, "turnLimit": True}),
        (ACTIVE, {"startTime": T0, "turnLimit": 2.5}),
        (ACTIVE, {"startTime": T0, "turnLimit": 3, "active": "yes"}),
        (ACTIVE, {"startTime": T0, "turnLimit": 3, "onStopCommand": 7}),
        (ACTIVE, {"startTime": T0}),
        (OFF, {}),
    ],
)
def test_malformed_data_is_no_record(kind: str, data: dict[str, object]) -> None:
    assert read_record(kind, data) is None


def test_an_empty_on_stop_command_is_none() -> None:
    record = read_record(ACTIVE, {"startTime": T0, "turnLimit": 3, "onStopCommand": ""})
    assert isinstance(record, ActiveRecord) and record.budget.on_stop_command is None


def test_current_is_the_newest_record_as_stored() -> None:
    spent = ActiveRecord(budget=Budget(turn_limit=3, start_time=T0, active=False))
    assert current([]) is None
    assert current([ACTIVE_RECORD]) == BUDGET
    assert current([ACTIVE_RECORD, spent]) == spent.budget
    assert current([ACTIVE_RECORD, OffRecord(disabled_at=T0)]) is None
