"""Records as plain data, and the restore rule.

The core does no I/O: an adapter stores `record_data(record)` where its host keeps state (custom
session entries, a JSON-lines file) under the record's type, and hands the records back oldest first.
The data uses the spec's field names, so entries written by pi's timebox restore here too:

    timebox-active  {"timeLimitMs": 900000, "turnLimit": null, "tokenLimit": null, "startTime": ...,
                     "startTurn": 3, "softNudgeSent": false, "active": true, "onStopCommand": null}
    timebox-off     {"disabledAt": 1700000000000}
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import assert_never

from rein.timebox._budget import (
    ActiveRecord,
    Budget,
    Expired,
    NoBudget,
    OffRecord,
    Record,
    Restored,
    RestoreResult,
    Usage,
)
from rein.timebox._decide import NUDGE_AT, worst_ratio

ACTIVE = "timebox-active"
OFF = "timebox-off"


def budget_data(budget: Budget) -> dict[str, object]:
    return {
        "timeLimitMs": budget.time_limit_ms,
        "turnLimit": budget.turn_limit,
        "tokenLimit": budget.token_limit,
        "startTime": budget.start_time,
        "startTurn": budget.start_turn,
        "softNudgeSent": budget.soft_nudge_sent,
        "active": budget.active,
        "onStopCommand": budget.on_stop_command,
    }


def record_data(record: Record) -> tuple[str, dict[str, object]]:
    """The record's type (`timebox-active` or `timebox-off`) and its data."""
    match record:
        case ActiveRecord():
            return ACTIVE, budget_data(record.budget)
        case OffRecord():
            return OFF, {"disabledAt": record.disabled_at}
        case _:
            assert_never(record)


class _Malformed(Exception):
    pass


def _int(data: Mapping[str, object], key: str) -> int:
    value = data.get(key)
    if isinstance(value, float) and value.is_integer():
        return int(value)  # JSON written by JavaScript may hold 9e5 as 900000.0
    if not isinstance(value, int) or isinstance(value, bool):
        raise _Malformed(key)
    return value


def _optional_int(data: Mapping[str, object], key: str) -> int | None:
    return None if data.get(key) is None else _int(data, key)


def _flag(data: Mapping[str, object], key: str, default: bool) -> bool:
    value = data.get(key, default)
    if not isinstance(value, bool):
        raise _Malformed(key)
    return value


def read_record(kind: str, data: Mapping[str, object]) -> Record | None:
    """The record in stored data, or None when the type is not a timebox's or the data is malformed.

    Missing optional fields take their defaults: `onStopCommand` and `tokenLimit` (older records) are
    None, `startTurn` is 0. A budget without any limit is malformed.
    """
    try:
        if kind == OFF:
            return OffRecord(disabled_at=_int(data, "disabledAt"))
        if kind != ACTIVE:
            return None
        command = data.get("onStopCommand")
        if command is not None and not isinstance(command, str):
            raise _Malformed("onStopCommand")
        budget = Budget(
            time_limit_ms=_optional_int(data, "timeLimitMs"),
            turn_limit=_optional_int(data, "turnLimit"),
            token_limit=_optional_int(data, "tokenLimit"),
            start_time=_int(data, "startTime"),
            start_turn=_optional_int(data, "startTurn") or 0,
            soft_nudge_sent=_flag(data, "softNudgeSent", False),
            active=_flag(data, "active", True),
            on_stop_command=command or None,
        )
    except _Malformed:
        return None
    limits = (budget.time_limit_ms, budget.turn_limit, budget.token_limit)
    return ActiveRecord(budget=budget) if any(limit is not None for limit in limits) else None


def current(records: Sequence[Record]) -> Budget | None:
    """The budget as last recorded (flags as stored), or None when the newest record is `off`."""
    if not records:
        return None
    newest = records[-1]
    return newest.budget if isinstance(newest, ActiveRecord) else None


def _nothing_counted(_budget: Budget) -> Usage:
    return Usage()


def restore(
    records: Sequence[Record], *, now: int, measure: Callable[[Budget], Usage] = _nothing_counted
) -> RestoreResult:
    """The restore rule, scanning newest first (records are given oldest first).

    An `off` record first: nothing to restore. An `active` one: nothing if that budget was already
    spent (its hard stop fired); `Expired` if its time ran out; else `Restored`, with `soft_nudge_sent`
    re-derived from what `measure` counts for it (so a reload past 80 percent does not nudge again) and
    that count carried in `usage`. `measure` is called at most once.
    """
    for record in reversed(records):
        if isinstance(record, OffRecord):
            return NoBudget()
        budget = record.budget
        if not budget.active:
            return NoBudget()
        if budget.time_limit_ms is not None and now - budget.start_time >= budget.time_limit_ms:
            return Expired(budget=budget)
        usage = measure(budget)
        nudged = budget.soft_nudge_sent or worst_ratio(budget, now=now, usage=usage) >= NUDGE_AT
        return Restored(budget=replace(budget, soft_nudge_sent=nudged), usage=usage)
    return NoBudget()
