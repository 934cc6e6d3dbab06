"""The conversation of a session for the page: a window of the active branch as HTML `<article>`s,
rendered with `rein.html.body` (every session text escaped), tool results folded into their calls,
and the branch's token counters.

    page = conversation(view.branch(), limit=200, before=None)   # Conversation(html, shown_from, ...)
    counters(view.branch())                                     # {"input", "output", ..., "turns"}

Only the window is decoded and rendered (plus a few entries after it, where its calls' results are),
so a 10,000-entry session answers as fast as a short one; counters read the raw usage fields only.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from rein.ai import JsonValue
from rein.html import body, esc, is_tool_result, result_call_id, tool_calls, when
from rein.server._view import Entry
from rein.server._wire import wire_entries
from rein.server.web._checkpoints import checkpoint_body, undone_on
from rein.session import CustomEntry, MessageEntry
from rein.session import Entry as Decoded

DEFAULT_LIMIT = 200
MAX_LIMIT = 2000
LOOKAHEAD = 64
"""Entries after the window read for the results of its last calls."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Conversation:
    html: str
    shown_from: int
    """Branch index of the first entry shown."""
    shown_to: int
    """Branch index after the last entry shown."""


def conversation(
    branch: Sequence[Entry], *, limit: int = DEFAULT_LIMIT, before: int | None = None
) -> Conversation:
    """The `limit` branch entries ending at index `before` (default: the leaf end), oldest first."""
    end = len(branch) if before is None else max(0, min(before, len(branch)))
    start = max(0, end - max(1, min(limit, MAX_LIMIT)))
    shown = wire_entries(branch[start:end])
    after = wire_entries(branch[end : end + LOOKAHEAD])
    results, folded = _fold([*shown, *after])
    undone = undone_on(branch)
    parts = [_article(entry, results.get(entry.id, {}), undone) for entry in shown if entry.id not in folded]
    return Conversation(html="".join(parts), shown_from=start, shown_to=end)


def _fold(entries: Sequence[Decoded]) -> tuple[dict[str, dict[str, MessageEntry]], set[str]]:
    """Assistant entry id -> call id -> the result answering it; and the ids of folded results. On a
    branch the call is always an earlier entry, so a result looks back (as `rein export` walks up)."""
    calls: dict[str, str] = {}  # call id -> the assistant entry that made it
    results: dict[str, dict[str, MessageEntry]] = {}
    folded: set[str] = set()
    for entry in entries:
        if not isinstance(entry, MessageEntry):
            continue
        for block in tool_calls(entry.message):
            calls[str(block.get("id"))] = entry.id
        if is_tool_result(entry.message):
            call_id = result_call_id(entry.message)
            owner = calls.get(call_id) if call_id is not None else None
            if owner is not None and call_id is not None and call_id not in results.get(owner, {}):
                results.setdefault(owner, {})[call_id] = entry
                folded.add(entry.id)
    return results, folded


def _article(entry: Decoded, results: Mapping[str, MessageEntry], undone: frozenset[str]) -> str:
    """One entry; a checkpoint's lists its files, with buttons for its diffs and its undo."""
    mine = checkpoint_body(entry, undone) if isinstance(entry, CustomEntry) else None
    classes, kind, inner = mine if mine is not None else body(entry, results)
    anchor = esc(entry.id)
    return (
        f'<article class="entry {classes}" id="e-{anchor}" data-entry-id="{anchor}">'
        f'<div class="meta"><span class="kind">{kind}</span> <span class="time">{esc(when(entry.timestamp))}'
        f"</span></div>{inner}"
        f'<button type="button" class="continue" data-entry-id="{anchor}">Continue from here</button>'
        "</article>\n"
    )


def counters(branch: Sequence[Entry]) -> dict[str, JsonValue]:
    """Tokens and cost summed over the branch's assistant messages (either dialect's usage fields);
    `turns` counts them."""
    totals = {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 0}
    cost = 0.0
    turns = 0
    for entry in branch:
        message = entry.get("message")
        if (
            entry.get("type") != "message"
            or not isinstance(message, dict)
            or message.get("role") != "assistant"
        ):
            continue
        turns += 1
        usage = message.get("usage")
        if not isinstance(usage, dict):
            continue
        parts = [_number(usage, "input"), _number(usage, "output")]
        parts += [_number(usage, "cacheRead", "cache_read"), _number(usage, "cacheWrite", "cache_write")]
        for key, value in zip(("input", "output", "cacheRead", "cacheWrite"), parts, strict=True):
            totals[key] += value
        total = _number(usage, "totalTokens", "total_tokens")
        totals["totalTokens"] += total or sum(parts)
        spent = usage.get("cost")
        if isinstance(spent, dict) and isinstance(spent.get("total"), int | float):
            cost += float(spent["total"])
    out: dict[str, JsonValue] = dict(totals)
    out["cost"] = round(cost, 6)
    out["turns"] = turns
    return out


def _number(data: Mapping[str, object], *keys: str) -> int:
    for key in keys:
        value = data.get(key)
        if isinstance(value, int) and not isinstance(value, bool):
            return value
    return 0


def branch_note(entries: Sequence[Entry], branch: Sequence[Entry]) -> dict[str, JsonValue] | None:
    """Where the active branch left another one (the newest entry on it with a child off the branch,
    e.g. after "Continue from here"), and the entry counts: the page says the counters count this
    branch only. None when the session has no other branch."""
    if len(branch) >= len(entries):
        return None
    on_branch = {str(entry.get("id")) for entry in branch}
    forks: set[str] = set()
    for entry in entries:
        parent = entry.get("parentId", entry.get("parent_id"))
        if isinstance(parent, str) and parent in on_branch and str(entry.get("id")) not in on_branch:
            forks.add(parent)
    fork = next((str(entry.get("id")) for entry in reversed(branch) if str(entry.get("id")) in forks), None)
    if fork is None:
        return None
    return {"from": fork, "branchEntries": len(branch), "sessionEntries": len(entries)}
