"""Decisions: ok, nudge (80 percent of the worst dimension, once), stop (100 percent of any).

Ratios are exact fractions, so `12m of 15m` is exactly 0.8 and nudges.
"""

from __future__ import annotations

from fractions import Fraction

from rein.timebox._budget import Budget, Decision, Nudge, Ok, Spent, Stop, Usage, spent
from rein.timebox._format import remaining, warning_block

NUDGE_AT = Fraction(4, 5)
CRITICAL_AT = Fraction(19, 20)


def ratios(budget: Budget, used: Spent) -> list[Fraction]:
    """Used over limit, for each dimension the budget limits."""
    pairs = (
        (used.elapsed_ms, budget.time_limit_ms),
        (used.turns, budget.turn_limit),
        (used.tokens, budget.token_limit),
    )
    return [Fraction(value, limit) for value, limit in pairs if limit is not None]


def worst_ratio(budget: Budget, *, now: int, usage: Usage) -> Fraction:
    return max(ratios(budget, spent(budget, now=now, usage=usage)), default=Fraction(0))


def decide(budget: Budget, *, now: int, usage: Usage) -> Decision:
    """What to do now. A budget that is not active (already stopped) is always `Ok`."""
    if not budget.active:
        return Ok()
    used = spent(budget, now=now, usage=usage)
    worst = max(ratios(budget, used), default=Fraction(0))
    if worst >= 1:
        return Stop(
            used_turns=used.turns,
            elapsed_ms=used.elapsed_ms,
            used_tokens=used.tokens,
            on_stop_command=budget.on_stop_command,
        )
    if worst >= NUDGE_AT and not budget.soft_nudge_sent:
        return Nudge(
            urgency="critical" if worst >= CRITICAL_AT else "warning", detail=remaining(budget, used)
        )
    return Ok()


def time_to_next(budget: Budget, *, now: int) -> int | None:
    """Milliseconds until the clock alone brings the next decision: the nudge at 80 percent of the
    time limit (until it is sent), then the stop; 0 when it is due. None when time is not limited or
    the budget is spent. Hosts set a timer for it, so a run is nudged and stopped on time while a
    reply streams or a tool runs, not only when the next turn starts."""
    limit = budget.time_limit_ms
    if limit is None or not budget.active:
        return None
    nudge_at = -(-limit * NUDGE_AT.numerator // NUDGE_AT.denominator)  # the first ms at 80 percent
    due = limit if budget.soft_nudge_sent else nudge_at
    return max(0, budget.start_time + due - now)


def prompt_warning(budget: Budget, *, now: int, usage: Usage) -> str:
    """The warning block for the model: IMPORTANT, or CRITICAL from 95 percent, with what is left."""
    used = spent(budget, now=now, usage=usage)
    worst = max(ratios(budget, used), default=Fraction(0))
    return warning_block(budget, remaining(budget, used), critical=worst >= CRITICAL_AT)
