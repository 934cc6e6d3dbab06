"""Timebox: a budget of wall time, user turns and model tokens for an agent session.

The user gives the agent fifteen minutes, five turns or 200k tokens (or a mix); at 80 percent of the
worst dimension the agent is told, once, to wrap up (a warning block in its system prompt from then
on); at 100 percent the turn is stopped, and an optional command runs. State survives reloads as
records the host stores.

Pure and host-agnostic: no I/O, no clock reads (the adapter passes `now`), no host imports. Adapters
implement the contract (`BudgetStore`, `UIBridge`, `TranscriptBridge`, `AgentBridge`) and drive the
transitions; `apply` carries out their effects:

    step = command(budget, "15m turns:5 -- lmk done", now=clock(), usage=usage_of(transcript, budget))
    step = session_start(store.load_records(), now=clock(), measure=lambda b: usage_of(transcript, b))
    step = agent_start(step.budget, now=clock(), usage=...)   # Inject effects: the system prompt
    step = turn_start(step.budget, now=clock(), usage=...)    # Notify, Append, RunCommand, Abort
    apply(step.effects, store=store, ui=ui, agent=agent, run_on_stop=run_on_stop)

While a run goes, the adapter also sets a timer for `time_to_next(budget, now=...)` and calls
`turn_start` again when it fires, so the nudge and the stop land mid-reply or mid-tool on time.

The pure pieces are public too: `parse_command`, `decide`, `restore`, `status_text`, `format_time`.
"""

from rein.timebox._budget import (
    ActiveRecord,
    Budget,
    Decision,
    Expired,
    Level,
    NoBudget,
    Nudge,
    OffRecord,
    Ok,
    Record,
    Restored,
    RestoreResult,
    Spent,
    Stop,
    Usage,
    spent,
)
from rein.timebox._contract import (
    AgentBridge,
    BudgetStore,
    Clock,
    RunOnStop,
    TranscriptBridge,
    UIBridge,
    usage_of,
)
from rein.timebox._decide import (
    CRITICAL_AT,
    NUDGE_AT,
    decide,
    prompt_warning,
    ratios,
    time_to_next,
    worst_ratio,
)
from rein.timebox._format import (
    format_limit,
    format_time,
    format_tokens,
    remaining,
    status_text,
    stop_notice,
    summary,
)
from rein.timebox._parse import (
    COMPLETIONS,
    Command,
    Invalid,
    Off,
    SetBudget,
    Status,
    parse_command,
    parse_time_to_ms,
    parse_tokens,
    parse_turns,
    usage_hint,
)
from rein.timebox._persist import ACTIVE, OFF, budget_data, current, read_record, record_data, restore
from rein.timebox._step import (
    Abort,
    Append,
    Effect,
    Inject,
    Notify,
    RunCommand,
    Step,
    agent_start,
    apply,
    command,
    session_start,
    turn_start,
)

__all__ = [
    "ACTIVE",
    "COMPLETIONS",
    "CRITICAL_AT",
    "NUDGE_AT",
    "OFF",
    "Abort",
    "ActiveRecord",
    "AgentBridge",
    "Append",
    "Budget",
    "BudgetStore",
    "Clock",
    "Command",
    "Decision",
    "Effect",
    "Expired",
    "Inject",
    "Invalid",
    "Level",
    "NoBudget",
    "Notify",
    "Nudge",
    "Off",
    "OffRecord",
    "Ok",
    "Record",
    "RestoreResult",
    "Restored",
    "RunCommand",
    "RunOnStop",
    "SetBudget",
    "Spent",
    "Status",
    "Step",
    "Stop",
    "TranscriptBridge",
    "UIBridge",
    "Usage",
    "agent_start",
    "apply",
    "budget_data",
    "command",
    "current",
    "decide",
    "format_limit",
    "format_time",
    "format_tokens",
    "parse_command",
    "parse_time_to_ms",
    "parse_tokens",
    "parse_turns",
    "prompt_warning",
    "ratios",
    "read_record",
    "record_data",
    "remaining",
    "restore",
    "session_start",
    "spent",
    "status_text",
    "stop_notice",
    "summary",
    "time_to_next",
    "turn_start",
    "usage_hint",
    "usage_of",
    "worst_ratio",
]
