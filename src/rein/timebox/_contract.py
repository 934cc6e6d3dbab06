"""The adapter contract: what every host implements so the same core drives it.

    BudgetStore       where records live (custom session entries, a JSON-lines file)
    UIBridge          notifications and the status line
    TranscriptBridge  the counting input: user messages, model tokens
    AgentBridge       abort the turn, add to the next agent run's system prompt

Methods are synchronous and called in the order the core's effects list them (see `_step`). They may
raise: the core does not catch, so a failure surfaces at the adapter's edge (an extension handler's
error report, a hook's fail-closed answer). The adapter also wires its host's events to the core's
transitions: `session_start` on load or reload, `turn_start` before each turn, `agent_start` before the
agent runs (it may add to the prompt), shutdown (the adapter drops its in-memory state), and routes its
`/timebox` command (or the host's equivalent) to `command`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

from rein.timebox._budget import Budget, Level, Record, Usage

Clock = Callable[[], int]
"""Milliseconds since the epoch. Injected: the core never reads a clock."""
RunOnStop = Callable[[str], None]
"""Runs the on-stop command, detached, once per hard stop. Should not raise."""


class BudgetStore(Protocol):
    def append(self, record: Record) -> None:
        """Persist a record (a budget set or spent, or the timebox turned off): store
        `record_data(record)`, the form `read_record` reads back."""
        ...

    def load_records(self) -> Sequence[Record]:
        """Every readable timebox record of the session, oldest first."""
        ...


class UIBridge(Protocol):
    def notify(self, message: str, level: Level) -> None: ...

    def set_status(self, text: str | None) -> None:
        """Show `text` in the host's status line under the timebox's key; None clears it."""
        ...


class TranscriptBridge(Protocol):
    def count_user_messages(self) -> int:
        """User messages in the session so far."""
        ...

    def tokens_since(self, start_time: int) -> int:
        """Model tokens the host's provider reported since `start_time`."""
        ...


class AgentBridge(Protocol):
    def abort_current_turn(self) -> None:
        """Best effort: cancel the turn about to run (or in flight)."""
        ...

    def append_system_prompt(self, extra: str) -> None:
        """Add `extra` to the system prompt of the next agent run only."""
        ...


def usage_of(transcript: TranscriptBridge, budget: Budget | None) -> Usage:
    """The counting input for `budget`; tokens are only counted when it limits them."""
    limited = budget is not None and budget.token_limit is not None
    tokens = transcript.tokens_since(budget.start_time) if budget is not None and limited else 0
    return Usage(user_messages=transcript.count_user_messages(), tokens=tokens)
