"""Stored context messages in the loop's types (the `rein.ai` boundary of the store)."""

from __future__ import annotations

from collections.abc import Sequence

from rein.agent import AgentMessage, CustomMessage
from rein.ai import MessageFormatError, UserMessage, message_from_json
from rein.session._context import ContextMessage, SessionContext, message_text
from rein.session._entries import Entry


def to_agent_message(item: ContextMessage) -> AgentMessage | None:
    """A stored context message in the loop's types; unreadable ones are skipped, not fatal."""
    if item.kind == "custom_message":
        text = message_text(item.message.get("content"))  # the context gives custom content as blocks
        return CustomMessage(custom_type=item.custom_type or "custom", content=text, display=not item.hidden)
    if item.kind in ("compaction_summary", "branch_summary"):  # built by the context, without a timestamp
        return UserMessage.of(message_text(item.message.get("content")))
    try:
        return message_from_json(item.message)
    except MessageFormatError:
        return None


def view_messages(path: Sequence[Entry], context: SessionContext) -> tuple[list[AgentMessage], int]:
    """The context's messages in the loop's types, and the index of the first one that came after the
    branch's compaction (0 without one): replies kept from before it report the size of the context
    before it, so only later ones may be asked how large the context is."""
    compaction = context.compaction
    after: set[str] = set()
    if compaction is not None:
        ids = [entry.id for entry in path]
        after = set(ids[ids.index(compaction.id) + 1 :]) if compaction.id in ids else set()
    messages: list[AgentMessage] = []
    usage_from: int | None = 0 if compaction is None else None
    for item in context.messages:
        converted = to_agent_message(item)
        if converted is None:
            continue
        if usage_from is None and item.entry_id in after:
            usage_from = len(messages)
        messages.append(converted)
    return messages, len(messages) if usage_from is None else usage_from
