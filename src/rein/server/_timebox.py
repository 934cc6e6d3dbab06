"""The timebox of server-side runs (`rein serve --timebox "30m turns:20"`): every session on the server
gets that budget, counted from the session's creation, over the user turns and model tokens of its
active branch (durable in the tree, so a restart or another server counts the same).

The decisions are the timebox engine's own (`rein.timebox.decide`, `prompt_warning`): from 80 percent
each request carries the warning block the local timebox puts in the system prompt; at 100 percent the
stream is refused (409), as a local run is stopped at its turn start.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rein.ai import AssistantMessage, Message, UserMessage
from rein.server._errors import ProtocolError
from rein.timebox import NUDGE_AT, Budget, Stop, Usage, decide, format_time, parse_command, worst_ratio
from rein.timebox import prompt_warning as warning_of


@dataclass(frozen=True, slots=True)
class TimeboxSpec:
    time_limit_ms: int | None
    turn_limit: int | None
    token_limit: int | None


def parse_timebox(text: str) -> TimeboxSpec | None:
    """`--timebox`'s value ("" for none); raises ValueError with the engine's reason when it is bad."""
    if not text.strip():
        return None
    command = parse_command(text)
    if command.kind != "set":
        raise ValueError(f"--timebox {text!r}: {getattr(command, 'reason', 'not a budget')}")
    if command.on_stop_command:
        raise ValueError(f"--timebox {text!r}: a server timebox runs no command on stop")
    return TimeboxSpec(command.time_limit_ms, command.turn_limit, command.token_limit)


def check(spec: TimeboxSpec | None, *, created_ms: int, messages: Sequence[Message], now_ms: int) -> str:
    """The warning block this request carries ("" below 80 percent); raises ProtocolError 409 once
    the session's budget is spent."""
    if spec is None:
        return ""
    budget = Budget(
        time_limit_ms=spec.time_limit_ms,
        turn_limit=spec.turn_limit,
        token_limit=spec.token_limit,
        start_time=created_ms,
    )
    usage = Usage(
        user_messages=sum(1 for m in messages if isinstance(m, UserMessage)),
        tokens=sum(m.usage.total for m in messages if isinstance(m, AssistantMessage)),
    )
    decision = decide(budget, now=now_ms, usage=usage)
    if isinstance(decision, Stop):
        raise ProtocolError(
            409,
            "INVALID_REQUEST",
            f"timebox: this session's budget is spent ({format_time(decision.elapsed_ms)}, "
            f"{decision.used_turns} turns, {decision.used_tokens} tokens); the server runs no more replies",
            {"field": "timebox"},
        )
    if worst_ratio(budget, now=now_ms, usage=usage) >= NUDGE_AT:
        return warning_of(budget, now=now_ms, usage=usage)
    return ""
