"""The timebox as a rein extension: the spec's pi adapter on rein's extension API.

    /timebox 15m | turns:5 | tokens:200k [-- command] | status | off   (argument completions)
    session_start       restore the newest budget (timebox-active / timebox-off custom entries)
    session_tree        the same for the branch, but a budget whose time ran out meanwhile is kept
    before_agent_start  nudge if due; once nudged, the warning block is appended to the system prompt
    turn_start          the one-shot nudge, or the hard stop: error notice, command, ctx.abort()
    message_end, turn_end  count the tokens of each assistant reply (once)
    session_shutdown    drop the in-memory state, stop the timer, clear the status; no records,
                        except a spent one for a budget whose time ran out while the session was open

The status line (key "timebox") is refreshed every second while a budget is active.

While a run goes (from `before_agent_start` to `agent_end`) the budget is also decided between turns,
as `turn_start` decides it:

    the timer           every second, and at the moment the time limit reaches 80 or 100 percent
    stream deltas       the reply's tokens so far, estimated (`streamed_tokens`), against a token limit
    message_end         the reply's reported tokens, before its tool calls run
    tool_call           the same; a call asked for after the stop is blocked

A nudge due mid-run is shown at once; if the run goes on after the reply's tool calls, the model reads
the warning as a hidden `timebox-warning` message before its next request (a reply that ends the run
does not get one more turn for it: the next run's system prompt carries the warning). A stop mid-run
is the stop at turn start (error notice, spent record, on-stop command) and aborts the run at once:
the provider stream and the running tools see the abort.

Turns are the session's user messages minus the budget's start count, read at `before_agent_start`
and kept for the whole agent run: rein adds a run's prompt after that point, so with `turns:5` the
sixth prompt is stopped, and a prompt allowed to start is not cut mid-run by its own count.
"""

from __future__ import annotations

from dataclasses import replace

from rein.agent import Block, StreamDelta
from rein.ai import AssistantMessage
from rein.builtins.timebox._bridges import (
    Agent,
    StatusUI,
    Store,
    Transcript,
    reply_of,
    streamed_tokens,
)
from rein.builtins.timebox._timer import Cancellable, Scheduler, call_later
from rein.extensions import (
    AgentEndEvent,
    BeforeAgentStartEvent,
    ExtensionAPI,
    ExtensionContext,
    MessageEndEvent,
    SessionShutdownEvent,
    SessionStartEvent,
    SessionTreeEvent,
    ToolCallEvent,
    TurnEndEvent,
    TurnStartEvent,
)
from rein.machine import run_detached, wall_clock_ms
from rein.timebox import (
    COMPLETIONS,
    NUDGE_AT,
    ActiveRecord,
    Budget,
    Clock,
    Expired,
    RunOnStop,
    Step,
    Usage,
    agent_start,
    apply,
    command,
    prompt_warning,
    restore,
    session_start,
    status_text,
    summary,
    time_to_next,
    turn_start,
    usage_of,
)

NAME = "timebox"
DESCRIPTION = "Budget this session: /timebox 15m | turns:5 | tokens:200k [-- command], status, off"
WARNING = "timebox-warning"
"""The custom type of the warning sent to the model mid-run."""


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
        """The user messages before the running prompt; None while no run goes."""
        self._warn_model = False
        """A nudge came mid-run: the model is told at the next turn of this run."""
        self._stopped_run = False
        self._seen = 0
        self._timer: Cancellable | None = None
        self._context: ExtensionContext | None = None

    def register(self) -> None:
        self._rein.register_command(NAME, DESCRIPTION, self.on_command, COMPLETIONS)
        self._rein.on("session_start", self.on_session_start)
        self._rein.on("session_tree", self.on_session_tree)
        self._rein.on("session_shutdown", self.on_session_shutdown)
        self._rein.on("before_agent_start", self.on_before_agent_start)
        self._rein.on("turn_start", self.on_turn_start)
        self._rein.on("tool_call", self.on_tool_call)
        self._rein.on("agent_end", self.on_agent_end)
        self._rein.on("message_end", self.on_message_end)
        self._rein.on("turn_end", self.on_turn_end)
        self._rein.on_stream_delta(self.on_stream_delta)

    @property
    def running(self) -> bool:
        """A run of the agent is going (between `before_agent_start` and `agent_end`)."""
        return self._run_turns is not None

    def _usage(self, context: ExtensionContext, *, cached: bool = False, streamed: int = 0) -> Usage:
        """The counting input; `cached` reuses the last user-message count (the timer's refresh reads
        no transcript); `streamed` adds the estimated tokens of the reply streaming now."""
        turns = self._seen if cached and self._run_turns is None else self._run_turns
        transcript = Transcript(context.session, turns=turns, tokens=self.tokens + streamed)
        usage = usage_of(transcript, self.budget)
        self._seen = usage.user_messages
        return usage

    def _carry_out(self, step: Step, context: ExtensionContext) -> Agent:
        agent = Agent(context)
        store = Store(self._rein, context.session)
        ui = StatusUI(context.ui)
        apply(step.effects, store=store, ui=ui, agent=agent, run_on_stop=self._run_on_stop)
        self.budget = step.budget
        self._show(context)
        return agent

    def _decide(self, context: ExtensionContext, *, streamed: int = 0) -> None:
        """The engine's `turn_start` now: the nudge or the stop if due. Mid-run, a nudge is kept for
        the model and a stop marks the run stopped (its abort went out with the stop's effects)."""
        before = self.budget
        step = turn_start(before, now=self._clock(), usage=self._usage(context, streamed=streamed))
        self._carry_out(step, context)
        after = step.budget
        if not self.running or before is None or after is None:
            return
        if after.soft_nudge_sent and not before.soft_nudge_sent:
            self._warn_model = True
        if before.active and not after.active:
            self._stopped_run = True

    def on_command(self, args: str, context: ExtensionContext) -> None:
        step = command(self.budget, args, now=self._clock(), usage=self._usage(context))
        if step.budget is not None and step.budget is not self.budget:
            self.tokens = 0
        self._carry_out(step, context)

    def on_session_start(
        self, _event: SessionStartEvent | SessionTreeEvent, context: ExtensionContext
    ) -> None:
        """Restore the newest budget. One whose time ran out while the session was closed is told
        once and recorded spent, so a branch switch or the next resume does not tell it again."""
        self._reset()
        store = Store(self._rein, context.session)
        records = store.load_records()
        transcript = Transcript(context.session, turns=None, tokens=None)
        step = session_start(records, now=self._clock(), measure=lambda b: usage_of(transcript, b))
        if step.budget is not None:
            self.tokens = transcript.tokens_since(step.budget.start_time)
        self._carry_out(step, context)
        expired = restore(records, now=self._clock())
        if isinstance(expired, Expired):
            store.append(ActiveRecord(budget=replace(expired.budget, active=False)))

    def on_session_tree(self, event: SessionTreeEvent, context: ExtensionContext) -> None:
        """Another branch: its own budget records. Nothing was closed: a budget whose time ran out
        while the session was open is restored as it is (the next turn stops), not told as expired."""
        records = Store(self._rein, context.session).load_records()
        expired = restore(records, now=self._clock())
        if not isinstance(expired, Expired):
            self.on_session_start(event, context)
            return
        self._reset()
        self.tokens = Transcript(context.session, turns=None, tokens=None).tokens_since(
            expired.budget.start_time
        )
        self._carry_out(Step(budget=expired.budget), context)

    def on_session_shutdown(self, _event: SessionShutdownEvent, context: ExtensionContext) -> None:
        """Memory only, except a budget whose time ran out while the session was open: it is recorded
        spent, so the next resume does not say it ran out while the session was closed."""
        budget = self.budget
        limit = budget.time_limit_ms if budget is not None and budget.active else None
        if budget is not None and limit is not None and self._clock() - budget.start_time >= limit:
            Store(self._rein, context.session).append(ActiveRecord(budget=replace(budget, active=False)))
        self._reset()
        StatusUI(context.ui).set_status(None)

    def on_before_agent_start(self, _event: BeforeAgentStartEvent, context: ExtensionContext) -> str | None:
        self._run_turns = context.session.user_message_count()
        self._warn_model = self._stopped_run = False
        step = agent_start(self.budget, now=self._clock(), usage=self._usage(context))
        return "\n\n".join(self._carry_out(step, context).prompt) or None

    def on_turn_start(self, _event: TurnStartEvent, context: ExtensionContext) -> None:
        self._decide(context)

    def on_tool_call(self, _event: ToolCallEvent, context: ExtensionContext) -> Block | None:
        """A call asked for once the budget is spent in this run does not run (the run is aborted
        too; this keeps the call from reaching an approval prompt or a tool)."""
        if self.running and self.budget is not None and self.budget.active:
            self._decide(context)
        if not self._stopped_run or self.budget is None:
            return None
        return Block(reason=f"Not run: the timebox ({summary(self.budget)}) is spent. Stop here.")

    def on_agent_end(self, _event: AgentEndEvent, _context: ExtensionContext) -> None:
        self._run_turns = None
        self._warn_model = self._stopped_run = False

    def on_message_end(self, event: MessageEndEvent, context: ExtensionContext) -> None:
        if self._count(event, context) and self.running:
            self._decide(context)  # before the reply's tool calls run

    def on_turn_end(self, event: TurnEndEvent, context: ExtensionContext) -> None:
        """Count the reply if `message_end` did not; send a mid-run nudge to the model if the run goes
        on (the loop reads steering messages right after `turn_end`, before its next request)."""
        self._count(event, context)
        reply, budget = reply_of(event.payload), self.budget
        if not self._warn_model or self._stopped_run or budget is None or reply is None:
            return
        if not reply.tool_calls:
            return  # the run ends with this reply; the next run's system prompt carries the warning
        self._warn_model = False
        usage = self._usage(context)
        ahead = Usage(user_messages=usage.user_messages + 1, tokens=usage.tokens)  # this run's prompt
        warning = prompt_warning(budget, now=self._clock(), usage=ahead)
        self._rein.send_message(WARNING, warning, display=False)

    def on_stream_delta(self, delta: StreamDelta) -> None:
        """A token limit against the reply streaming now (cheap: the hot path); the nudge or the stop
        when crossed. Never cuts the reply for a retry: a stop aborts the run."""
        budget, context = self.budget, self._context
        if budget is None or budget.token_limit is None or not budget.active:
            return
        if context is None or not self.running:
            return
        streamed = streamed_tokens(delta.partial)
        live, limit = self.tokens + streamed, budget.token_limit
        due = live >= limit or (
            not budget.soft_nudge_sent and live * NUDGE_AT.denominator >= limit * NUDGE_AT.numerator
        )
        if due:
            self._decide(context, streamed=streamed)

    def _count(self, event: MessageEndEvent | TurnEndEvent, context: ExtensionContext) -> bool:
        """Add a reply's tokens once (`message_end` and `turn_end` carry the same reply)."""
        reply = reply_of(event.payload)
        if reply is None or reply is self._counted:
            return False
        self._counted = reply
        self.tokens += reply.usage.total
        if self.budget is not None and self.budget.token_limit is not None:
            self._show(context)
        return True

    def _reset(self) -> None:
        self._stop_timer()
        self.budget = None
        self.tokens = 0
        self._counted = None
        self._run_turns = None
        self._warn_model = self._stopped_run = False
        self._context = None

    def _show(self, context: ExtensionContext, *, cached: bool = False) -> None:
        """Refresh the status line; keep one timer running exactly while a budget is active (restarting
        it cancels the pending one): every second, and during a run also when the time limit reaches
        its next threshold."""
        self._context = context
        self._stop_timer()
        ui, budget, now = StatusUI(context.ui), self.budget, self._clock()
        if budget is None:
            ui.set_status(None)
            return
        ui.set_status(status_text(budget, now=now, usage=self._usage(context, cached=cached)))
        if not budget.active:
            return
        delay = self._interval
        due = time_to_next(budget, now=now) if self.running else None
        if due is not None:
            delay = min(delay, due / 1000)
        self._timer = self._schedule(delay, self._tick)

    def _tick(self) -> None:
        self._timer = None
        assert self._context is not None  # set whenever the timer is started
        if self.running:
            self._decide(self._context)
        else:
            self._show(self._context, cached=True)

    def _stop_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None


def extension(rein: ExtensionAPI) -> None:
    """rein's extension entry point: `/timebox` and its event handlers, with the real clock and timer."""
    TimeboxExtension(rein).register()
