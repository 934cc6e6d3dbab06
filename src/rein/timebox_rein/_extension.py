"""The timebox as a rein extension: the spec's pi adapter on rein's extension API.

    /timebox 15m | turns:5 | tokens:200k [-- command] | status | off   (argument completions)
    session_start       restore the newest budget (timebox-active / timebox-off custom entries)
    before_agent_start  nudge if due; once nudged, the warning block is appended to the system prompt
    turn_start          the one-shot nudge, or the hard stop: error notice, command, ctx.abort()
    message_end, turn_end  count the tokens of each assistant reply (once)
    session_shutdown    drop the in-memory state, stop the timer, clear the status; no records

The status line (key "timebox") is refreshed every second while a budget is active.

Turns are the session's user messages minus the budget's start count, read at `before_agent_start`
and kept for the whole agent run: rein adds a run's prompt after that point, so with `turns:5` the
sixth prompt is stopped, and a prompt allowed to start is not cut mid-run by its own count.
"""

from __future__ import annotations

from collections.abc import Sequence

from rein.agent import AgentEvent
from rein.ai import AssistantMessage
from rein.extensions import UI, ExtensionAPI, ExtensionContext, Notice, SessionView
from rein.timebox import (
    ACTIVE,
    COMPLETIONS,
    OFF,
    ActiveRecord,
    Budget,
    Clock,
    Level,
    Record,
    RunOnStop,
    Step,
    Usage,
    agent_start,
    apply,
    command,
    read_record,
    record_data,
    session_start,
    status_text,
    turn_start,
    usage_of,
)
from rein.timebox_rein._system import run_detached, wall_clock_ms
from rein.timebox_rein._timer import Cancellable, Scheduler, call_later

NAME = "timebox"
DESCRIPTION = "Budget this session: /timebox 15m | turns:5 | tokens:200k [-- command], status, off"
STATUS_KEY = "timebox"


class _Store:
    """BudgetStore on custom session entries."""

    def __init__(self, rein: ExtensionAPI, session: SessionView) -> None:
        self._rein = rein
        self._session = session

    def append(self, record: Record) -> None:
        self._rein.append_entry(*record_data(record))

    def load_records(self) -> Sequence[Record]:
        """The session view lists entries per type, so both types are merged by their own times
        (a spent record shares its budget's start and follows it; an off wins a tie)."""
        found = [
            record
            for kind in (ACTIVE, OFF)
            for data in self._session.custom_entries(kind)
            if (record := read_record(kind, data)) is not None
        ]
        return sorted(found, key=_when)


def _when(record: Record) -> int:
    return record.budget.start_time if isinstance(record, ActiveRecord) else record.disabled_at


class _UI:
    def __init__(self, ui: UI) -> None:
        self._ui = ui

    def notify(self, message: str, level: Level) -> None:
        self._ui.notify(message, level)

    def set_status(self, text: str | None) -> None:
        self._ui.set_status(STATUS_KEY, text)


class _Transcript:
    """TranscriptBridge: user messages from the session (or the run's snapshot); tokens from the
    replies counted so far, or, when `tokens` is None (restore), from the session's messages."""

    def __init__(self, session: SessionView, *, turns: int | None, tokens: int | None) -> None:
        self._session = session
        self._turns = turns
        self._tokens = tokens

    def count_user_messages(self) -> int:
        return self._session.user_message_count() if self._turns is None else self._turns

    def tokens_since(self, start_time: int) -> int:
        if self._tokens is not None:
            return self._tokens
        return sum(
            message.usage.total
            for message in self._session.messages
            if isinstance(message, AssistantMessage) and message.timestamp >= start_time
        )


class _Agent:
    def __init__(self, context: ExtensionContext) -> None:
        self._context = context
        self.prompt: list[str] = []

    def abort_current_turn(self) -> None:
        self._context.abort()

    def append_system_prompt(self, extra: str) -> None:
        self.prompt.append(extra)


def _reply(event: object) -> AssistantMessage | None:
    payload = event.payload if isinstance(event, Notice) else event
    message = payload.message if isinstance(payload, AgentEvent) else payload
    return message if isinstance(message, AssistantMessage) else None


class TimeboxExtension:
    """One session's timebox. `clock`, `scheduler` and `run_on_stop` are injectable for tests."""

    def __init__(
        self,
        rein: ExtensionAPI,
        *,
        clock: Clock = wall_clock_ms,
        scheduler: Scheduler = call_later,
        run_on_stop: RunOnStop = run_detached,
        interval: float = 1.0,
    ) -> None:
        self._rein = rein
        self._clock = clock
        self._schedule = scheduler
        self._run_on_stop = run_on_stop
        self._interval = interval
        self.budget: Budget | None = None
        self.tokens = 0
        """Tokens of the replies since the budget started."""
        self._counted: AssistantMessage | None = None
        self._run_turns: int | None = None
        self._seen = 0
        self._timer: Cancellable | None = None
        self._context: ExtensionContext | None = None

    def register(self) -> None:
        self._rein.register_command(NAME, DESCRIPTION, self.on_command, COMPLETIONS)
        self._rein.on("session_start", self.on_session_start)
        self._rein.on("session_shutdown", self.on_session_shutdown)
        self._rein.on("before_agent_start", self.on_before_agent_start)
        self._rein.on("turn_start", self.on_turn_start)
        self._rein.on("agent_end", self.on_agent_end)
        self._rein.on("message_end", self.on_reply)
        self._rein.on("turn_end", self.on_reply)

    def _usage(self, context: ExtensionContext, *, cached: bool = False) -> Usage:
        """The counting input; `cached` reuses the last user-message count (the timer's refresh reads
        no transcript)."""
        turns = self._seen if cached and self._run_turns is None else self._run_turns
        usage = usage_of(_Transcript(context.session, turns=turns, tokens=self.tokens), self.budget)
        self._seen = usage.user_messages
        return usage

    def _carry_out(self, step: Step, context: ExtensionContext) -> _Agent:
        agent = _Agent(context)
        store = _Store(self._rein, context.session)
        apply(step.effects, store=store, ui=_UI(context.ui), agent=agent, run_on_stop=self._run_on_stop)
        self.budget = step.budget
        self._show(context)
        return agent

    def on_command(self, args: str, context: ExtensionContext) -> None:
        step = command(self.budget, args, now=self._clock(), usage=self._usage(context))
        if step.budget is not None and step.budget is not self.budget:
            self.tokens = 0
        self._carry_out(step, context)

    def on_session_start(self, _event: object, context: ExtensionContext) -> None:
        self._reset()
        records = _Store(self._rein, context.session).load_records()
        transcript = _Transcript(context.session, turns=None, tokens=None)
        step = session_start(records, now=self._clock(), measure=lambda b: usage_of(transcript, b))
        if step.budget is not None:
            self.tokens = transcript.tokens_since(step.budget.start_time)
        self._carry_out(step, context)

    def on_session_shutdown(self, _event: object, context: ExtensionContext) -> None:
        self._reset()
        _UI(context.ui).set_status(None)

    def on_before_agent_start(self, _event: object, context: ExtensionContext) -> str | None:
        self._run_turns = context.session.user_message_count()
        step = agent_start(self.budget, now=self._clock(), usage=self._usage(context))
        return "\n\n".join(self._carry_out(step, context).prompt) or None

    def on_turn_start(self, _event: object, context: ExtensionContext) -> None:
        self._carry_out(turn_start(self.budget, now=self._clock(), usage=self._usage(context)), context)

    def on_agent_end(self, _event: object, _context: ExtensionContext) -> None:
        self._run_turns = None

    def on_reply(self, event: object, context: ExtensionContext) -> None:
        """`message_end` and `turn_end` carry the same reply: its usage counts once."""
        reply = _reply(event)
        if reply is None or reply is self._counted:
            return
        self._counted = reply
        self.tokens += reply.usage.total
        if self.budget is not None and self.budget.token_limit is not None:
            self._show(context)

    def _reset(self) -> None:
        self._stop_timer()
        self.budget = None
        self.tokens = 0
        self._counted = None
        self._run_turns = None
        self._context = None

    def _show(self, context: ExtensionContext, *, cached: bool = False) -> None:
        """Refresh the status line; keep the one-second timer running exactly while a budget is active
        (restarting it cancels the pending one, so there is never more than one)."""
        self._context = context
        self._stop_timer()
        ui, budget = _UI(context.ui), self.budget
        if budget is None:
            ui.set_status(None)
            return
        ui.set_status(status_text(budget, now=self._clock(), usage=self._usage(context, cached=cached)))
        if budget.active:
            self._timer = self._schedule(self._interval, self._tick)

    def _tick(self) -> None:
        self._timer = None
        assert self._context is not None  # set whenever the timer is started
        self._show(self._context, cached=True)

    def _stop_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None


def extension(rein: ExtensionAPI) -> None:
    """rein's extension entry point: `/timebox` and its event handlers, with the real clock and timer."""
    TimeboxExtension(rein).register()
