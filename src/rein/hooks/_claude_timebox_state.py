"""The timebox's decisions for one Claude Code hook call, on the session's journal (see
`_claude_timebox`).

Loaded only when the session has a timebox or the prompt is a `$timebox` command: the core is not
imported by hook calls of sessions without one.
"""

from __future__ import annotations

from pathlib import Path

from rein.hooks._claude_timebox import COMMAND, Reply, timebox_args
from rein.hooks._claude_transcript import transcript_tokens
from rein.hooks._run import Payload
from rein.hooks._timebox_journal import TURN, Journal, journal_path, open_journal
from rein.timebox import (
    ACTIVE,
    ActiveRecord,
    Budget,
    Level,
    OffRecord,
    Record,
    Step,
    Usage,
    agent_start,
    apply,
    command,
    current,
    prompt_warning,
    read_record,
    record_data,
    session_start,
    turn_start,
    usage_of,
)


class _Bridges:
    """BudgetStore and TranscriptBridge on the journal; UIBridge and AgentBridge collect the reply."""

    def __init__(self, journal: Journal, transcript: str | None) -> None:
        self._journal = journal
        self._transcript = transcript
        self.notices: list[str] = []
        self.context: list[str] = []
        self.commands: list[str] = []
        self.aborted = False
        self.loaded = current(self.load_records())
        """The budget as the journal had it when this call began."""
        self.budget = self.loaded
        self._recorded: Budget | None = None

    def append(self, record: Record) -> None:
        self._journal.append(*record_data(record))
        if isinstance(record, ActiveRecord):
            self._recorded = record.budget

    def load_records(self) -> list[Record]:
        lines = self._journal.lines
        return [record for line in lines if (record := read_record(line.type, line.data)) is not None]

    def notify(self, message: str, level: Level) -> None:
        self.notices.append(message)

    def set_status(self, text: str | None) -> None:
        return None  # Claude Code has no status line a hook can set

    def count_user_messages(self) -> int:
        return sum(1 for line in self._journal.lines if line.type == TURN)

    def tokens_since(self, start_time: int) -> int:
        return transcript_tokens(self._transcript, start_time)

    def abort_current_turn(self) -> None:
        self.aborted = True

    def append_system_prompt(self, extra: str) -> None:
        self.context.append(extra)

    def carry_out(self, step: Step) -> Budget | None:
        apply(step.effects, store=self, ui=self, agent=self, run_on_stop=self.commands.append)
        self.budget = step.budget
        return step.budget

    def keep(self) -> None:
        """Record the budget if this call changed it without recording it (a nudge sent, a restore's
        re-derived nudge): the next hook process starts from the journal."""
        if self.budget is not None and self.budget not in (self.loaded, self._recorded):
            self.append(ActiveRecord(budget=self.budget))

    def stopped_this_turn(self) -> bool:
        """The newest budget record is a spent one and no prompt went to Claude since."""
        newest = (line.type for line in reversed(self._journal.lines) if line.type in (TURN, ACTIVE))
        return next(newest, TURN) == ACTIVE


def respond(event: str, payload: Payload, *, session: str, home: Path, now: int) -> tuple[Reply, list[str]]:
    """The timebox's reply to one hook event and the on-stop commands to run. Raises `OSError`."""
    args = timebox_args(event, payload)
    transcript = payload.get("transcript_path")
    with open_journal(journal_path(home, session)) as journal:
        bridges = _Bridges(journal, transcript if isinstance(transcript, str) else None)
        if args is not None:
            usage = usage_of(bridges, bridges.loaded)
            bridges.carry_out(command(bridges.loaded, args, now=now, usage=usage, name=COMMAND))
        else:
            _on_event(event, bridges, journal, now)
        bridges.keep()
    reply = Reply(
        notices=tuple(bridges.notices),
        context=tuple(bridges.context),
        stop=bridges.aborted,
        consumed=args is not None,
    )
    return reply, bridges.commands


def _on_event(event: str, bridges: _Bridges, journal: Journal, now: int) -> None:
    budget = bridges.loaded
    if event == "SessionStart":
        step = session_start(bridges.load_records(), now=now, measure=lambda b: usage_of(bridges, b))
        restored = bridges.carry_out(step)
        if budget is not None and budget.active and restored is None:
            # Expired while closed: not restored, so not enforced later.
            bridges.append(OffRecord(disabled_at=now))
        return
    if budget is None:
        return
    # `usage_of` may read the whole transcript (a token limit), so only an active budget is counted.
    if event == "UserPromptSubmit":
        # `usage` counts the prompts before this one, as `turn_start` and `agent_start` expect (both
        # leave a spent budget as it is, without reading its usage).
        usage = usage_of(bridges, budget) if budget.active else Usage()
        after = bridges.carry_out(turn_start(budget, now=now, usage=usage))
        if not bridges.aborted:
            journal.append(TURN)
            bridges.carry_out(agent_start(after, now=now, usage=usage))
    elif not budget.active:
        if event == "PreToolUse" and bridges.stopped_this_turn():
            bridges.aborted = True
            bridges.notices.append("Timebox budget spent.")
    else:
        # Mid-run: this run's prompt is already counted; the stop counts the prompts before it.
        usage = usage_of(bridges, budget)
        before = Usage(user_messages=max(0, usage.user_messages - 1), tokens=usage.tokens)
        after = bridges.carry_out(turn_start(budget, now=now, usage=before))
        if after is not None and after.active and after.soft_nudge_sent and not budget.soft_nudge_sent:
            bridges.context.append(prompt_warning(after, now=now, usage=usage))
