"""One compaction of a session's active branch: plan, summarize, write.

1. The branch's context is read; tool outputs that later turns superseded are pruned first (opencode's
   order): when that alone brings an automatic compaction well under its threshold, the compaction
   entry only names what it pruned, and no model is called.
2. Otherwise the cut is chosen at a turn boundary (`_plan`), the summarized part goes through the
   chunked summarizer (the previous summary carried in), and rein's own extracted state and the user's
   recent words are written beside the model's summary (`_compose`).
3. Mid tool loop, when even the last turn does not fit (a huge tool result), a hidden keep marker is
   appended and the compaction keeps only it: the next request carries the summary and the marker.
4. With `require_smaller` (rein's own compactions, not the server's pi-compatible one), a compaction
   that would not shrink the context is refused (`NotSmaller`): before the model is asked, when the
   parts rein writes itself (extracted state, the user's words, the files read again) already take as
   much as what they would replace; after, when the summary came out too large. Nothing is written.

Branch-local and append-only: one `compaction` entry at the leaf (plus the marker); nothing is removed.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from rein.agent import AgentMessage
from rein.ai import ToolResultMessage, UserMessage
from rein.session._context import COMPACTION_PREFIX, SessionContext
from rein.session._convert import to_agent_message
from rein.session._entries import CompactionEntry
from rein.session._session import Session, timestamp
from rein.session.compaction._budget import Budget
from rein.session.compaction._compose import NO_SUMMARY, compose, recent_user_words
from rein.session.compaction._plan import Cut, Item, find_cut, item_tokens, last_turn_cut
from rein.session.compaction._prune import pruned, superseded
from rein.session.compaction._serialize import serialize
from rein.session.compaction._state import OperationalState, extract_state, render_state
from rein.session.compaction._summarize import Summarize, summarize_chunked
from rein.session.compaction._tokens import MESSAGE_OVERHEAD, message_tokens, messages_tokens, text_tokens

Reason = Literal["threshold", "overflow", "manual"]
MARKER_TYPE = "compaction-keep-marker"
MARKER_TEXT = (
    "[rein] The tool results above this point were compacted into the summary (one was too large for"
    " the context window). Continue the task from here."
)
PRUNE_ONLY_SHARE = 80
"""A prune-only compaction is enough when it brings the context under this % of the threshold."""


class NothingToCompact(Exception):
    """The branch has no message a compaction could summarize (it is empty or one turn)."""


class NotSmaller(NothingToCompact):
    """The compaction would not make the context smaller, so nothing was written. `replacement`: the
    tokens of the summary (and the files read again) that would replace `replaced` tokens of the
    context; `asked`: whether the model had written its summary (False: the estimate before was enough)."""

    def __init__(self, *, replacement: int, replaced: int, asked: bool, reinjected: bool) -> None:
        self.replacement = replacement
        self.replaced = replaced
        self.asked = asked
        what = "the summary and the files read again" if reinjected else "the summary"
        if asked:
            size = "larger than" if replacement > replaced else "as large as"
            text = f"{what} ({replacement:,} tokens) would be {size} what it replaces ({replaced:,})"
        else:
            size = "more than" if replacement > replaced else "as many as"
            text = (
                f"too little to summarize: {what} would take at least {replacement:,} tokens,"
                f" {size} the {replaced:,} {'they replace' if reinjected else 'it replaces'}"
            )
        super().__init__(f"not compacted: {text}")


@dataclass(frozen=True, slots=True, kw_only=True)
class Compacted:
    """What a compaction did. `summary` is the entry's text; `requests` the summary requests made."""

    entry_id: str
    summary: str
    reason: Reason
    tokens_before: int
    tokens_after: int
    summarized: int
    kept: int
    pruned: int
    requests: int
    marker: bool
    read_files: tuple[str, ...] = ()
    """The files the session read, then those it changed (read again from disk after the compaction,
    the last ones first)."""
    reinject: str | None = None
    """The text of the hidden message the caller appends after the entry (from `reinject`), counted in
    `tokens_after`."""
    window: int | None = None
    """The summarizer's window at the end: smaller than planned when an overflow taught it."""

    def describe(self) -> str:
        """One line for a person: what the compaction did and what it saved."""
        if self.requests == 0 and self.summarized == 0:
            what = f"pruned {self.pruned} superseded tool outputs"
        else:
            what = f"summarized {self.summarized} messages, kept {self.kept}"
            if self.marker:
                what += " (a keep marker after the large tool result)"
        return (
            f"compacted ({self.reason}): {what}; about {self.tokens_before:,} -> {self.tokens_after:,} tokens"
        )


def context_items(context: SessionContext) -> list[Item]:
    """The context's messages after the summary (which a new compaction carries, not summarizes)."""
    items: list[Item] = []
    for message in context.messages:
        if message.kind == "compaction_summary":
            continue
        converted = to_agent_message(message)
        if converted is not None:
            items.append(Item(message.entry_id, message.kind, converted))
    return items


def _details(entry: CompactionEntry | None) -> Mapping[str, object]:
    details = entry.details if entry is not None else None
    return details if isinstance(details, Mapping) else {}


def _strings_map(value: object) -> dict[str, str]:
    if not isinstance(value, Mapping):
        return {}
    return {key: why for key, why in value.items() if isinstance(key, str) and isinstance(why, str)}


def _strings(value: object) -> list[str]:
    return [item for item in value if isinstance(item, str)] if isinstance(value, list) else []


async def compact_session(
    store: Session,
    summarize: Summarize,
    budget: Budget,
    *,
    reason: Reason,
    instructions: str | None = None,
    keep_recent: int | None = None,
    fixed: int = 0,
    require_smaller: bool = False,
    reinject: Callable[[Sequence[str]], str | None] | None = None,
) -> Compacted:
    """Compact `store`'s active branch. `keep_recent` overrides the budget's (an overflow retry keeps
    less); `fixed`: tokens every request carries besides the messages (system prompt, tools);
    `reinject`: the text read again after the compaction, given the files read (`Compacted.reinject`);
    `require_smaller`: refuse a compaction that would not shrink the context (`NotSmaller`).
    Raises `NothingToCompact`, and the summarizer's `SummaryOverflow` / `SummaryError` unchanged
    (nothing is written then)."""
    context = store.context()
    previous = context.compaction
    carried = _details(previous)
    items = context_items(context)
    summary_tokens = text_tokens(COMPACTION_PREFIX + previous.summary) if previous and previous.summary else 0
    before = messages_tokens(item.message for item in items) + summary_tokens + fixed
    stale = superseded([(item.entry_id, item.message) for item in items])
    if reason == "threshold" and instructions is None and stale:
        freed = sum(item_tokens(i, {}) - item_tokens(i, stale) for i in items if i.entry_id in stale)
        if before - freed < budget.threshold * PRUNE_ONLY_SHARE // 100:
            return _prune_only(store, previous, items, stale, before - freed, before)
    cut = find_cut(items, budget.keep_recent if keep_recent is None else keep_recent, stale)
    marker = not cut.kept and bool(items) and isinstance(items[-1].message, ToolResultMessage)
    if not marker and not cut.summarize:
        if reason == "threshold":
            raise NothingToCompact("nothing to compact: every message is in the turns kept")
        cut = last_turn_cut(items)
        if not cut.summarize or (not cut.kept and reason == "manual"):
            raise NothingToCompact("nothing to compact: the branch has a single turn")
    summarized = [_pruned_item(item, stale) for item in cut.summarize]
    state = extract_state(summarized, OperationalState.from_json(carried.get("state")))
    model_summary = carried.get("model_summary")
    words = recent_user_words(
        _strings(carried.get("user_messages")),
        [m.text for m in summarized if isinstance(m, UserMessage) and m.text.strip()],
        budget.keep_user,
    )
    stale = {**_strings_map(carried.get("pruned")), **stale}
    read_files = (*state.read, *(path for path, _ in state.modified))
    reinjected = reinject(read_files) if reinject is not None else None
    # Besides the summary, the context after: the kept turns (and the marker), the files read again.
    kept = sum(item_tokens(i, stale) for i in cut.kept) + (message_tokens(_marker()) if marker else 0)
    extra = text_tokens(reinjected) + MESSAGE_OVERHEAD if reinjected else 0
    replaced = before - fixed - kept

    def refuse(summary: str, *, asked: bool) -> NotSmaller | None:
        replacement = text_tokens(COMPACTION_PREFIX + summary) + extra
        if not require_smaller or replacement < replaced:
            return None
        return NotSmaller(
            replacement=replacement, replaced=replaced, asked=asked, reinjected=reinjected is not None
        )

    # The parts rein writes itself are known now: when they alone do not fit, asking the model is moot.
    floor = compose("", render_state(state), words)
    if early := refuse(floor[len(NO_SUMMARY) :], asked=False):
        raise early
    if marker:
        marker_id = store.append_custom_message(MARKER_TYPE, MARKER_TEXT, display=False)
        cut = Cut(summarize=cut.summarize, kept=(Item(marker_id, "custom_message", _marker()),))
    try:
        result = await summarize_chunked(
            [serialize(message) for message in summarized],
            summarize,
            window=budget.window,
            max_tokens=budget.summary,
            previous=model_summary if isinstance(model_summary, str) and model_summary else _text(previous),
            instructions=instructions,
        )
        text = result.text.strip() or (model_summary if isinstance(model_summary, str) else "")
        summary = compose(text, render_state(state), words)
        if late := refuse(summary, asked=True):
            raise late
    except BaseException:
        if marker:  # the branch goes on as it was; the marker stays in the tree, off the branch
            store.branch(context.leaf_id)
        raise
    kept_ids = {item.entry_id for item in cut.kept}
    details: dict[str, object] = {
        "reason": reason,
        "model_summary": text,
        "state": state.to_json(),
        "user_messages": words,
        "pruned": {key: why for key, why in stale.items() if key in kept_ids},
        "requests": result.requests,
        "window": result.window,
    }
    entry_id = store.new_id()
    store.append(
        CompactionEntry(
            id=entry_id,
            parent_id=store.leaf_id,
            timestamp=timestamp(),
            summary=summary,
            first_kept_entry_id=cut.first_kept_id or entry_id,  # its own id: keep nothing before it
            tokens_before=before,
            details=details,
        )
    )
    return Compacted(
        entry_id=entry_id,
        summary=summary,
        reason=reason,
        tokens_before=before,
        tokens_after=text_tokens(COMPACTION_PREFIX + summary) + extra + kept + fixed,
        summarized=len(cut.summarize),
        kept=len(cut.kept),
        pruned=len(stale),
        requests=result.requests,
        marker=marker,
        read_files=read_files,
        reinject=reinjected,
        window=result.window,
    )


def _text(previous: CompactionEntry | None) -> str | None:
    """A compaction written by another tool (pi) carries its summary as a whole."""
    return previous.summary if previous is not None and previous.summary else None


def _pruned_item(item: Item, stale: Mapping[str, str]) -> AgentMessage:
    """The message as the summarizer reads it: a superseded output is only its placeholder."""
    reason = stale.get(item.entry_id) if item.entry_id is not None else None
    if reason is not None and isinstance(item.message, ToolResultMessage):
        return pruned(item.message, reason)
    return item.message


def _marker() -> AgentMessage:
    return UserMessage.of(MARKER_TEXT)


def _prune_only(
    store: Session,
    previous: CompactionEntry | None,
    items: Sequence[Item],
    stale: Mapping[str, str],
    after: int,
    before: int,
) -> Compacted:
    """A compaction that only prunes superseded outputs: the previous summary and cut stay as they were."""
    first = (
        previous.first_kept_entry_id
        if previous is not None
        else next((item.entry_id for item in items if item.entry_id is not None), None)
    )
    entry_id = store.new_id()
    pruned_ids = {**_strings_map(_details(previous).get("pruned")), **stale}
    details = {**_details(previous), "reason": "threshold", "pruned": pruned_ids, "requests": 0}
    store.append(
        CompactionEntry(
            id=entry_id,
            parent_id=store.leaf_id,
            timestamp=timestamp(),
            summary=previous.summary if previous is not None else "",
            first_kept_entry_id=first or entry_id,
            tokens_before=before,
            details=details,
        )
    )
    return Compacted(
        entry_id=entry_id,
        summary=previous.summary if previous is not None else "",
        reason="threshold",
        tokens_before=before,
        tokens_after=after,
        summarized=0,
        kept=len(items),
        pruned=len(stale),
        requests=0,
        marker=False,
    )
