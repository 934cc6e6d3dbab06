"""Text the user and the model see: durations, the status line, the nudge, the stop notice."""

from __future__ import annotations

from rein.timebox._budget import Budget, Spent, Stop, Usage, spent


def format_time(ms: int) -> str:
    """A duration as a countdown shows it: `59s`, `1m 0s`, `1h 1m` (whole seconds, rounded down)."""
    seconds = max(0, ms) // 1000
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        return f"{seconds // 60}m {seconds % 60}s"
    return f"{seconds // 3600}h {seconds % 3600 // 60}m"


def format_limit(ms: int) -> str:
    """A limit as the user typed it: `15m`, `1h 30m`, `30s` (the parts that are not zero)."""
    seconds = max(0, ms) // 1000
    parts = [(seconds // 3600, "h"), (seconds % 3600 // 60, "m"), (seconds % 60, "s")]
    return " ".join(f"{value}{unit}" for value, unit in parts if value) or "0s"


def format_tokens(count: int) -> str:
    """`950`, `12.5k`, `200k`, `1.5M`."""
    for size, unit in ((1_000_000, "M"), (1_000, "k")):
        if count >= size:
            return f"{count / size:.1f}".removesuffix(".0") + unit
    return str(count)


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def summary(budget: Budget) -> str:
    """The limits, e.g. `15m, 5 turns, 200k tokens`."""
    parts: list[str] = []
    if budget.time_limit_ms is not None:
        parts.append(format_limit(budget.time_limit_ms))
    if budget.turn_limit is not None:
        parts.append(_plural(budget.turn_limit, "turn"))
    if budget.token_limit is not None:
        parts.append(f"{format_tokens(budget.token_limit)} tokens")
    return ", ".join(parts)


def remaining(budget: Budget, used: Spent) -> str:
    """What is left of each set dimension, e.g. `2m 30s left of 15m; 1 turn left of 5`."""
    parts: list[str] = []
    if budget.time_limit_ms is not None:
        left = format_time(budget.time_limit_ms - used.elapsed_ms)
        parts.append(f"{left} left of {format_limit(budget.time_limit_ms)}")
    if budget.turn_limit is not None:
        left_turns = max(0, budget.turn_limit - used.turns)
        parts.append(f"{_plural(left_turns, 'turn')} left of {budget.turn_limit}")
    if budget.token_limit is not None:
        left_tokens = format_tokens(max(0, budget.token_limit - used.tokens))
        parts.append(f"{left_tokens} tokens left of {format_tokens(budget.token_limit)}")
    return "; ".join(parts)


def status_text(budget: Budget, *, now: int, usage: Usage) -> str:
    """The status line: `Timebox: 12m 34s left (15m budget) | 3 turns left (2/5)`."""
    if not budget.active:
        return f"Timebox: spent ({summary(budget)})"
    used = spent(budget, now=now, usage=usage)
    if budget.time_limit_ms is None:
        time = "no time limit"
    elif used.elapsed_ms >= budget.time_limit_ms:
        time = f"time is up ({format_limit(budget.time_limit_ms)} budget)"
    else:
        left = format_time(budget.time_limit_ms - used.elapsed_ms)
        time = f"{left} left ({format_limit(budget.time_limit_ms)} budget)"
    if budget.turn_limit is None:
        turns = "no turn limit"
    else:
        left_turns = _plural(max(0, budget.turn_limit - used.turns), "turn")
        turns = f"{left_turns} left ({used.turns}/{budget.turn_limit})"
    parts = [time, turns]
    if budget.token_limit is not None:
        left_tokens = format_tokens(max(0, budget.token_limit - used.tokens))
        parts.append(
            f"{left_tokens} tokens left ({format_tokens(used.tokens)}/{format_tokens(budget.token_limit)})"
        )
    return "Timebox: " + " | ".join(parts)


def nudge_notice(detail: str) -> str:
    return f"Timebox: the budget is nearly spent ({detail}). The agent is told to wrap up."


def warning_block(budget: Budget, detail: str, *, critical: bool) -> str:
    """What the model reads once the nudge was sent (appended to the system prompt)."""
    heading = "CRITICAL TIMEBOX WARNING" if critical else "IMPORTANT TIMEBOX WARNING"
    counted = " (the current turn counts as used)" if budget.turn_limit is not None else ""
    return (
        f"{heading}\n"
        f"The user gave this session a timebox ({summary(budget)}) and it is nearly spent: "
        f"{detail}{counted}.\n"
        "Wrap up now: finish or safely pause the step you are on, start no new work, tell the user "
        "what is done and what is left, and stop."
    )


def stop_notice(stop: Stop, budget: Budget) -> str:
    """The hard stop, for the user: the budget, and what was used of it."""
    used = [_plural(stop.used_turns, "turn"), format_time(stop.elapsed_ms)]
    if budget.token_limit is not None:
        used.append(f"{format_tokens(stop.used_tokens)} tokens")
    return (
        f"Timebox budget spent ({summary(budget)}). Used {', '.join(used)}. "
        "The agent stops for this turn. The chat continues."
    )
