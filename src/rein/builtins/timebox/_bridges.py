"""The engine's adapter contract on rein's extension API, and how the extension reads replies.

Store        BudgetStore on custom session entries (`timebox-active`, `timebox-off`)
StatusUI     UIBridge on the session's UI, the status line under the key "timebox"
Transcript   TranscriptBridge: user messages and the tokens of assistant replies
Agent        AgentBridge: `ctx.abort()`, and the text for this run's system prompt
"""

from __future__ import annotations

from collections.abc import Sequence

from rein.agent import AgentEvent
from rein.ai import AssistantMessage, TextContent, ThinkingContent
from rein.extensions import UI, ExtensionAPI, ExtensionContext, SessionView
from rein.timebox import ACTIVE, OFF, ActiveRecord, Level, Record, read_record, record_data

STATUS_KEY = "timebox"
CHARS_PER_TOKEN = 4
"""How streamed text is counted before the provider reports a reply's tokens (see `streamed_tokens`)."""


class Store:
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


class StatusUI:
    def __init__(self, ui: UI) -> None:
        self._ui = ui

    def notify(self, message: str, level: Level) -> None:
        self._ui.notify(message, level)

    def set_status(self, text: str | None) -> None:
        self._ui.set_status(STATUS_KEY, text)


class Transcript:
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
            for message in self._session.branch_messages  # a compaction does not give tokens back
            if isinstance(message, AssistantMessage) and message.timestamp >= start_time
        )


class Agent:
    def __init__(self, context: ExtensionContext) -> None:
        self._context = context
        self.prompt: list[str] = []

    def abort_current_turn(self) -> None:
        self._context.abort()

    def append_system_prompt(self, extra: str) -> None:
        self.prompt.append(extra)


def reply_of(payload: object) -> AssistantMessage | None:
    """The assistant reply a `message_end` or `turn_end` payload carries: the `AgentEvent`'s message, or
    a bare reply. The check stays although the events are typed: `ExtensionRunner.notify` takes any
    payload, and a bare reply is counted too (tests/timebox drive the runner with one)."""
    message = payload.message if isinstance(payload, AgentEvent) else payload
    return message if isinstance(message, AssistantMessage) else None


def streamed_tokens(partial: AssistantMessage) -> int:
    """The tokens of a reply still streaming: what its provider reported so far, or, when more, the
    input it reported plus the streamed text, tool arguments and thinking at four characters a token.

    Providers report output tokens only when the reply ends; the estimate lets a token limit stop a
    long reply while it streams. It is a floor for most text (code and non-Latin scripts take more
    tokens per character), and the exact count replaces it at `message_end`.
    """
    usage = partial.usage
    chars = 0
    for block in partial.content:
        if isinstance(block, TextContent):
            chars += len(block.text)
        elif isinstance(block, ThinkingContent):
            chars += len(block.thinking)
        else:
            chars += len(block.raw_arguments)
    estimate = usage.input + usage.cache_read + usage.cache_write + -(-chars // CHARS_PER_TOKEN)
    return max(usage.total, estimate)
