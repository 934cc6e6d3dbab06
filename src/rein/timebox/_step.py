"""Transitions: each host event, given the current budget, yields the next budget and the effects to
carry out, in order. Effects are values; `apply` hands them to the adapter's contract objects.

    command(budget, "15m turns:3", ...)   /timebox: set, status, off, or a usage hint
    session_start(records, ...)           load or reload: the restore rule
    agent_start(budget, ...)              before the agent runs: nudge if due, then the warning block
    turn_start(budget, ...)               before each turn: nudge, or the hard stop
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Literal, assert_never

from rein.timebox._budget import (
    ActiveRecord,
    Budget,
    Expired,
    Level,
    NoBudget,
    Nudge,
    OffRecord,
    Ok,
    Record,
    Restored,
    Stop,
    Usage,
    spent,
)
from rein.timebox._contract import AgentBridge, BudgetStore, RunOnStop, UIBridge
from rein.timebox._decide import decide, prompt_warning
from rein.timebox._format import nudge_notice, remaining, status_text, stop_notice, summary
from rein.timebox._parse import Invalid, Off, SetBudget, Status, parse_command, usage_hint
from rein.timebox._persist import restore


@dataclass(frozen=True, slots=True, kw_only=True)
class Notify:
    type: Literal["notify"] = "notify"
    message: str
    level: Level


@dataclass(frozen=True, slots=True, kw_only=True)
class Append:
    """Persist a record (BudgetStore)."""

    type: Literal["append"] = "append"
    record: Record


@dataclass(frozen=True, slots=True, kw_only=True)
class RunCommand:
    """Run the on-stop command (RunOnStop)."""

    type: Literal["run_command"] = "run_command"
    command: str


@dataclass(frozen=True, slots=True, kw_only=True)
class Abort:
    type: Literal["abort"] = "abort"


@dataclass(frozen=True, slots=True, kw_only=True)
class Inject:
    """Add to the system prompt of the agent run about to start (AgentBridge)."""

    type: Literal["inject"] = "inject"
    text: str


Effect = Notify | Append | RunCommand | Abort | Inject


@dataclass(frozen=True, slots=True, kw_only=True)
class Step:
    """The budget after an event (None: no timebox) and what to do about it, in order."""

    budget: Budget | None
    effects: tuple[Effect, ...] = ()


def command(budget: Budget | None, text: str, *, now: int, usage: Usage, name: str = "/timebox") -> Step:
    """The command with arguments `text`. `usage` counts for the current budget; `name` is how the
    host's user types the command, for the usage hint. A new budget replaces the old one at once."""
    parsed = parse_command(text)
    match parsed:
        case Invalid():
            return Step(budget=budget, effects=(Notify(message=_invalid(parsed, name), level="warning"),))
        case Status():
            if budget is None:
                message = f"No active timebox. {usage_hint(name)}"
            else:
                message = status_text(budget, now=now, usage=usage)
            return Step(budget=budget, effects=(Notify(message=message, level="info"),))
        case Off():
            if budget is None:
                return Step(budget=None, effects=(Notify(message="No active timebox.", level="info"),))
            disabled = Append(record=OffRecord(disabled_at=now))
            return Step(budget=None, effects=(disabled, Notify(message="Timebox disabled.", level="info")))
        case SetBudget():
            new = Budget(
                time_limit_ms=parsed.time_limit_ms,
                turn_limit=parsed.turn_limit,
                token_limit=parsed.token_limit,
                start_time=now,
                start_turn=usage.user_messages,
                on_stop_command=parsed.on_stop_command,
            )
            then = f" Then runs: {new.on_stop_command}" if new.on_stop_command else ""
            message = f"Timebox set: {summary(new)}. The agent is warned at 80% and stopped at 100%.{then}"
            return Step(budget=new, effects=(Append(record=ActiveRecord(budget=new)), _info(message)))
        case _:
            assert_never(parsed)


def _invalid(parsed: Invalid, name: str) -> str:
    return f"Timebox: {parsed.reason}. {usage_hint(name)}"


def _info(message: str) -> Notify:
    return Notify(message=message, level="info")


def session_start(records: Sequence[Record], *, now: int, measure: Callable[[Budget], Usage]) -> Step:
    """The session loaded (cold start or reload): restore the newest budget unless off, spent or expired."""
    result = restore(records, now=now, measure=measure)
    match result:
        case NoBudget():
            return Step(budget=None)
        case Expired():
            limits = summary(result.budget)
            message = f"Timebox ({limits}) ran out while the session was closed; it was not restored."
            return Step(budget=None, effects=(Notify(message=message, level="warning"),))
        case Restored():
            status = status_text(result.budget, now=now, usage=result.usage)
            return Step(budget=result.budget, effects=(_info(f"Timebox restored. {status}"),))
        case _:
            assert_never(result)


def turn_start(budget: Budget | None, *, now: int, usage: Usage) -> Step:
    """Before a turn: the one-shot nudge, or the hard stop (at most once: the budget goes inactive and
    is recorded spent, so a reload does not stop again)."""
    if budget is None:
        return Step(budget=None)
    decision = decide(budget, now=now, usage=usage)
    match decision:
        case Ok():
            return Step(budget=budget)
        case Nudge():
            notice = Notify(message=nudge_notice(decision.detail), level="warning")
            return Step(budget=replace(budget, soft_nudge_sent=True), effects=(notice,))
        case Stop():
            stopped = replace(budget, active=False)
            effects: list[Effect] = [
                Notify(message=stop_notice(decision, budget), level="error"),
                Append(record=ActiveRecord(budget=stopped)),
            ]
            if decision.on_stop_command:
                effects.append(RunCommand(command=decision.on_stop_command))
            effects.append(Abort())
            return Step(budget=stopped, effects=tuple(effects))
        case _:
            assert_never(decision)


def agent_start(budget: Budget | None, *, now: int, usage: Usage) -> Step:
    """Before the agent runs on a prompt; `usage` counts the user messages before that prompt.

    The prompt about to run counts as used here (it will be, once the run ends), so the run that is
    the last the turn limit allows is warned, not only the one after it. The nudge fires now if due
    (so this run already reads the warning) unless the budget is already spent, which `turn_start`
    stops; once the nudge was sent, the warning block goes to the system prompt of every run.
    """
    if budget is None or not budget.active:
        return Step(budget=budget)
    ahead = Usage(user_messages=usage.user_messages + 1, tokens=usage.tokens)
    effects: list[Effect] = []
    running = not isinstance(decide(budget, now=now, usage=usage), Stop)
    if running and not budget.soft_nudge_sent and not isinstance(decide(budget, now=now, usage=ahead), Ok):
        budget = replace(budget, soft_nudge_sent=True)
        detail = remaining(budget, spent(budget, now=now, usage=ahead))
        effects.append(Notify(message=nudge_notice(detail), level="warning"))
    if budget.soft_nudge_sent:
        effects.append(Inject(text=prompt_warning(budget, now=now, usage=ahead)))
    return Step(budget=budget, effects=tuple(effects))


def apply(
    effects: Iterable[Effect],
    *,
    store: BudgetStore,
    ui: UIBridge,
    agent: AgentBridge,
    run_on_stop: RunOnStop,
) -> None:
    """Carry out effects in order on the adapter's contract objects (their errors propagate)."""
    for effect in effects:
        match effect:
            case Notify():
                ui.notify(effect.message, effect.level)
            case Append():
                store.append(effect.record)
            case RunCommand():
                run_on_stop(effect.command)
            case Abort():
                agent.abort_current_turn()
            case Inject():
                agent.append_system_prompt(effect.text)
            case _:
                assert_never(effect)
