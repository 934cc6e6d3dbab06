"""The timebox's values: the budget, what the host counted, decisions, records and restore outcomes.

All times are integer milliseconds since the epoch, as the adapter's injected clock gives them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Level = Literal["info", "warning", "error"]
"""Notification levels: the ones every host supports (pi rejects "success")."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Budget:
    """One timebox. A dimension whose limit is None is not limited; at least one is set."""

    time_limit_ms: int | None = None
    turn_limit: int | None = None
    token_limit: int | None = None
    start_time: int
    """The clock when the budget was set."""
    start_turn: int = 0
    """The session's user-message count when the budget was set."""
    soft_nudge_sent: bool = False
    active: bool = True
    """False once the hard stop fired: the spent budget stays (shown, not enforced) until replaced."""
    on_stop_command: str | None = None
    """A shell command the adapter runs, detached, when the hard stop fires."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Usage:
    """What the host counted: the counting input of every decision, beside the clock."""

    user_messages: int = 0
    """User messages in the whole session (the transcript's count); `Budget.start_turn` is subtracted."""
    tokens: int = 0
    """Model tokens reported since the budget started: input, output, cache read and cache write."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Spent:
    """How much of a budget is used, each dimension clamped at zero."""

    elapsed_ms: int
    turns: int
    tokens: int


def spent(budget: Budget, *, now: int, usage: Usage) -> Spent:
    return Spent(
        elapsed_ms=max(0, now - budget.start_time),
        turns=max(0, usage.user_messages - budget.start_turn),
        tokens=max(0, usage.tokens),
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class Ok:
    kind: Literal["ok"] = "ok"


@dataclass(frozen=True, slots=True, kw_only=True)
class Nudge:
    """At least one dimension reached 80 percent and the one-shot nudge was not sent yet."""

    kind: Literal["nudge"] = "nudge"
    urgency: Literal["warning", "critical"]
    """critical from 95 percent of the worst dimension."""
    detail: str
    """What is left, e.g. `2m 30s left of 15m; 1 turn left of 5`."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Stop:
    """At least one dimension reached its limit."""

    kind: Literal["stop"] = "stop"
    used_turns: int
    elapsed_ms: int
    used_tokens: int
    on_stop_command: str | None


Decision = Ok | Nudge | Stop


@dataclass(frozen=True, slots=True, kw_only=True)
class ActiveRecord:
    """A budget was set (or, with `active` False, spent)."""

    kind: Literal["active"] = "active"
    budget: Budget


@dataclass(frozen=True, slots=True, kw_only=True)
class OffRecord:
    """The user turned the timebox off."""

    kind: Literal["off"] = "off"
    disabled_at: int


Record = ActiveRecord | OffRecord


@dataclass(frozen=True, slots=True, kw_only=True)
class NoBudget:
    status: Literal["none"] = "none"


@dataclass(frozen=True, slots=True, kw_only=True)
class Restored:
    status: Literal["restored"] = "restored"
    budget: Budget
    usage: Usage = Usage()
    """What the restore measured for the budget (so the caller need not count it again)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Expired:
    """The newest budget's time ran out while the session was closed: it is not restored."""

    status: Literal["expired"] = "expired"
    budget: Budget


RestoreResult = NoBudget | Restored | Expired
