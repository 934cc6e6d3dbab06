"""Where to cut: which messages a compaction summarizes and which it keeps. Pure.

The cut is at a turn boundary (a user-role message: the user's, an extension's, a branch summary),
so no tool result is ever kept without the call it answers. The kept part is the longest tail that fits
`keep_recent` tokens; when even the last turn does not fit (one huge tool result), nothing is kept and
the caller decides (a keep marker mid tool loop, or the summary alone).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from rein.agent import AgentMessage, CustomMessage
from rein.ai import ToolResultMessage, UserMessage
from rein.session._context import ContextKind
from rein.session.compaction._tokens import message_tokens


@dataclass(frozen=True, slots=True)
class Item:
    """One message of the context, with the entry it came from (None for transient ones)."""

    entry_id: str | None
    kind: ContextKind
    message: AgentMessage


@dataclass(frozen=True, slots=True, kw_only=True)
class Cut:
    """`summarize` then `kept`, in order; `first_kept_id` is None when nothing is kept."""

    summarize: tuple[Item, ...]
    kept: tuple[Item, ...]

    @property
    def first_kept_id(self) -> str | None:
        return self.kept[0].entry_id if self.kept else None


def is_boundary(item: Item) -> bool:
    return item.entry_id is not None and isinstance(item.message, UserMessage | CustomMessage)


def item_tokens(item: Item, pruned: Mapping[str, str]) -> int:
    """An item's size as it would be sent: a pruned output costs only its placeholder."""
    if item.entry_id is not None and item.entry_id in pruned and isinstance(item.message, ToolResultMessage):
        return 16
    return message_tokens(item.message)


def find_cut(items: Sequence[Item], keep_recent: int, pruned: Mapping[str, str] | None = None) -> Cut:
    """The earliest turn boundary whose tail fits `keep_recent` tokens; a cut at 0 summarizes nothing."""
    pruned = pruned or {}
    tail = 0
    best = len(items)
    for index in range(len(items) - 1, -1, -1):
        tail += item_tokens(items[index], pruned)
        if tail > keep_recent:
            break
        if is_boundary(items[index]):
            best = index
    return Cut(summarize=tuple(items[:best]), kept=tuple(items[best:]))


def last_turn_cut(items: Sequence[Item]) -> Cut:
    """Keep only the last turn (from the last boundary after the first item): what a forced compaction
    does when everything would otherwise fit and nothing be summarized."""
    for index in range(len(items) - 1, 0, -1):
        if is_boundary(items[index]):
            return Cut(summarize=tuple(items[:index]), kept=tuple(items[index:]))
    return Cut(summarize=tuple(items), kept=())
