"""The model's context, built in one pass over a root-to-leaf path. Pure: no I/O, nothing persisted.

Per entry on the path:
- message: sent as it is (its JSON payload; pi's roles included, converting them is the caller's job).
- custom_message: a user-role message with the entry's content (text becomes one text block).
- branch_summary: a user-role message wrapping the summary (skipped when the summary is empty).
- compaction: the latest one on the path wins. Its summary, as a user-role message, replaces every
  message before `first_kept_entry_id`; the kept entries follow, then everything after the compaction.
  A first kept id that is not earlier on the path keeps nothing before the compaction (as pi does).
  Kept tool outputs named in its `details["pruned"]` (id -> reason) are sent as a short placeholder;
  an empty summary (a compaction that only pruned) sends no summary message.
- model_change, thinking_level_change, label, custom: not sent, reported on the context instead. An
  assistant message carrying string `provider` and `model` fields also sets the model (as in pi).
- unknown kinds: ignored.

Transient messages (per-turn hints) are appended after the path and never reach the file.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Literal, TypeVar

from rein.session._entries import (
    BranchSummaryEntry,
    CompactionEntry,
    CustomEntry,
    CustomMessageEntry,
    Entry,
    JsonObject,
    LabelEntry,
    MessageEntry,
    ModelChangeEntry,
    ModelRef,
    ThinkingLevelChangeEntry,
)

T = TypeVar("T")

COMPACTION_PREFIX = "The conversation before this point was compacted. Summary:\n\n<summary>\n"
BRANCH_PREFIX = "The conversation came back from another branch. Summary of that branch:\n\n<summary>\n"
SUMMARY_SUFFIX = "\n</summary>"

ContextKind = Literal["message", "custom_message", "compaction_summary", "branch_summary", "transient"]


@dataclass(frozen=True, slots=True, kw_only=True)
class ContextMessage:
    """One message for the model, as JSON (`message["role"]`, `message["content"]`, ...).

    kind: where it came from. entry_id: the entry it came from (None for transient messages).
    custom_type: the custom_message's type. hidden: a custom_message with `display=False`, or transient.
    """

    kind: ContextKind
    message: JsonObject
    entry_id: str | None
    custom_type: str | None = None
    hidden: bool = False


@dataclass(frozen=True, slots=True, kw_only=True)
class SessionContext:
    """What a branch means for the next model call, and what extensions restore from it.

    messages: in order, compaction applied. model / thinking_level: the latest on the path (None if
    none). custom: every custom entry on the path, in order. labels: target id -> label from the label
    entries on the path. compaction: the compaction applied, if any. leaf_id: the path's last entry.
    """

    messages: tuple[ContextMessage, ...]
    model: ModelRef | None
    thinking_level: str | None
    custom: tuple[CustomEntry, ...]
    labels: Mapping[str, str]
    compaction: CompactionEntry | None
    leaf_id: str | None

    def custom_of(self, custom_type: str) -> tuple[CustomEntry, ...]:
        """The custom entries of one type on the path, oldest first (e.g. "ttsr_injection")."""
        return tuple(entry for entry in self.custom if entry.custom_type == custom_type)

    def convert(self, convert: Callable[[ContextMessage], T | None]) -> list[T]:
        """The messages in the caller's types (the `rein.ai` boundary); `convert` returning None drops
        a message. Exceptions from `convert` propagate."""
        out: list[T] = []
        for message in self.messages:
            converted = convert(message)
            if converted is not None:
                out.append(converted)
        return out


def message_text(content: object) -> str:
    """The text of a message's content: a string, or the `text` of its text blocks, joined."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(_texts(content))
    return ""


def _texts(blocks: Iterable[object]) -> Iterable[str]:
    for block in blocks:
        if isinstance(block, dict) and block.get("type") == "text" and isinstance(block.get("text"), str):
            yield block["text"]


def _user_text(text: str) -> JsonObject:
    return {"role": "user", "content": [{"type": "text", "text": text}]}


def _to_message(entry: MessageEntry | CustomMessageEntry | BranchSummaryEntry) -> ContextMessage:
    if isinstance(entry, MessageEntry):
        return ContextMessage(kind="message", message=entry.message, entry_id=entry.id)
    if isinstance(entry, CustomMessageEntry):
        content = entry.content
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else list(content)
        return ContextMessage(
            kind="custom_message",
            message={"role": "user", "content": blocks},
            entry_id=entry.id,
            custom_type=entry.custom_type,
            hidden=not entry.display,
        )
    text = BRANCH_PREFIX + entry.summary + SUMMARY_SUFFIX
    return ContextMessage(kind="branch_summary", message=_user_text(text), entry_id=entry.id)


def _pruned(details: object) -> Mapping[str, object]:
    """The tool outputs a compaction replaced by a placeholder: `details["pruned"]`, id -> reason."""
    pruned = details.get("pruned") if isinstance(details, Mapping) else None
    return pruned if isinstance(pruned, Mapping) else {}


def build_context(path: Sequence[Entry], *, transient: Sequence[JsonObject] = ()) -> SessionContext:
    """The context of a root-to-leaf `path` (e.g. `tree.active_path()`), plus `transient` messages."""
    # The pass collects the entries that become messages; only those a compaction keeps are then
    # turned into `ContextMessage`s.
    sent: list[MessageEntry | CustomMessageEntry | BranchSummaryEntry] = []
    starts: dict[str, int] = {}  # entry id -> its position in `sent`
    provider: str | None = None
    model_id: str | None = None
    thinking: str | None = None
    custom: list[CustomEntry] = []
    labels: dict[str, str] = {}
    compaction: CompactionEntry | None = None
    cut = 0
    for entry in path:
        starts[entry.id] = len(sent)
        if isinstance(entry, MessageEntry):
            sent.append(entry)
            message = entry.message
            if message.get("role") == "assistant":
                p, m = message.get("provider"), message.get("model")
                if isinstance(p, str) and isinstance(m, str):
                    provider, model_id = p, m
        elif isinstance(entry, CustomMessageEntry):
            sent.append(entry)
        elif isinstance(entry, BranchSummaryEntry):
            if entry.summary:
                sent.append(entry)
        elif isinstance(entry, CompactionEntry):
            compaction = entry
            cut = starts.get(entry.first_kept_entry_id, len(sent))
        elif isinstance(entry, CustomEntry):
            custom.append(entry)
        elif isinstance(entry, ModelChangeEntry):
            provider, model_id = entry.provider, entry.model_id
        elif isinstance(entry, ThinkingLevelChangeEntry):
            thinking = entry.thinking_level
        elif isinstance(entry, LabelEntry):
            if entry.label:
                labels[entry.target_id] = entry.label
            else:
                labels.pop(entry.target_id, None)
    messages: list[ContextMessage] = []
    pruned: Mapping[str, object] = {}
    if compaction is not None:
        if compaction.summary:  # a compaction that only pruned outputs has no summary to send
            text = COMPACTION_PREFIX + compaction.summary + SUMMARY_SUFFIX
            messages.append(
                ContextMessage(kind="compaction_summary", message=_user_text(text), entry_id=compaction.id)
            )
        pruned = _pruned(compaction.details)
    for kept in sent[cut:]:
        reason = pruned.get(kept.id)
        item = _to_message(kept)
        if isinstance(reason, str):
            placeholder = [{"type": "text", "text": f"[output pruned by rein: {reason}]"}]
            item = replace(item, message={**item.message, "content": placeholder})
        messages.append(item)
    messages.extend(
        ContextMessage(kind="transient", message=m, entry_id=None, hidden=True) for m in transient
    )
    return SessionContext(
        messages=tuple(messages),
        model=None
        if provider is None or model_id is None
        else ModelRef(provider=provider, model_id=model_id),
        thinking_level=thinking,
        custom=tuple(custom),
        labels=labels,
        compaction=compaction,
        leaf_id=path[-1].id if path else None,
    )
