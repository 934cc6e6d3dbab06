"""What a server-side compaction summarizes and keeps, decided as pi decides it. Pure.

The fork answers `POST /api/session/compact` with pi's `prepareLegacyCompaction` (its agent
package, `harness/compaction/compaction.ts`) over the branch's wire entries, and its client builds its
context from the result; rein decides the same way so the two agree:

- Nothing to compact: the branch is empty or ends in a compaction.
- The part already summarized ends where the last compaction's first kept entry starts (right after
  that compaction when its first kept entry is not on the branch).
- The first kept entry is the request's `preparation.firstKeptEntryId` when given (it must lie
  between there and the leaf); otherwise, walking back from the leaf, the first valid cut point
  (a user, assistant, bash, custom or summary message; a branch summary; never a tool result) at or
  after the message where `keepRecentTokens` is reached; non-message entries just before it join it.
- Entries from the first kept one on are the `retainedTail` (as messages); those before it and after
  the part already summarized are summarized with the previous summary (a turn cut in the middle
  included: rein summarizes its prefix with the history in one pass, pi in a second request).
- `tokensBefore`, `details.readFiles` / `details.modifiedFiles`: pi's estimate of the branch's context
  (the last reply's usage plus four characters a token after it) and the files its `read`, `write` and
  `edit` calls named in the summarized part, merged with the previous compaction's lists.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

Entry = Mapping[str, object]
Message = dict[str, object]

IMAGE_CHARS = 4800
"""pi's stand-in size of one image, in characters."""
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
CUT_ROLES = frozenset({"user", "assistant", "bashExecution", "custom", "branchSummary", "compactionSummary"})
"""Message roles a kept part may start at: a tool result never starts one without its call."""


class PlanRefused(ValueError):
    """The request cannot be compacted; `str()` is the fork's message (a 400)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class CompactionPlan:
    """Indexes into the branch: `start` <= `first_kept` < len(branch); `previous` is -1 without one."""

    start: int
    first_kept: int
    first_kept_id: str
    previous: int
    retained_tail: tuple[Message, ...]
    tokens_before: int
    read_files: tuple[str, ...]
    modified_files: tuple[str, ...]

    def summarized_branch(self, branch: Sequence[Entry]) -> list[Entry]:
        """The branch a summarizer reads: up to the first kept entry, so all of it is summarized. When
        the cut lies inside what the previous compaction kept, that compaction follows, so its summary
        is carried and only what it kept before the cut is summarized again."""
        head = list(branch[: self.first_kept])
        if self.previous >= self.first_kept:
            parent = head[-1].get("id") if head else None
            head.append({**branch[self.previous], "parentId": parent})
        return head

    def summarizes_anything(self, branch: Sequence[Entry]) -> bool:
        return any(_summarized_message(entry) is not None for entry in branch[self.start : self.first_kept])


def plan_compaction(
    branch: Sequence[Entry], keep_recent_tokens: int, first_kept_id: str | None = None
) -> CompactionPlan:
    """The plan for a root-to-leaf `branch`. Raises `PlanRefused`."""
    if not branch or branch[-1].get("type") == "compaction":
        raise PlanRefused("Nothing to compact")
    previous = next((i for i in range(len(branch) - 1, -1, -1) if branch[i].get("type") == "compaction"), -1)
    start = 0
    if previous >= 0:
        kept = branch[previous].get("firstKeptEntryId")
        found = _index(branch, kept) if isinstance(kept, str) and kept else -1
        start = found if found >= 0 else previous + 1
    if first_kept_id:
        first_kept = _index(branch, first_kept_id)
        if not start <= first_kept < len(branch):
            raise PlanRefused("Forced first kept entry was not found")
    else:
        first_kept = _cut(branch, start, keep_recent_tokens)
    kept_id = branch[first_kept].get("id")
    if not isinstance(kept_id, str) or not kept_id:
        raise PlanRefused("First kept entry has no id")
    read, modified = _files(branch, start, first_kept, previous)
    tail = (_summarized_message(entry) for entry in branch[first_kept:])
    return CompactionPlan(
        start=start,
        first_kept=first_kept,
        first_kept_id=kept_id,
        previous=previous,
        retained_tail=tuple(message for message in tail if message is not None),
        tokens_before=context_tokens(context_messages(branch)),
        read_files=read,
        modified_files=modified,
    )


def _index(branch: Sequence[Entry], entry_id: str) -> int:
    return next((i for i, entry in enumerate(branch) if entry.get("id") == entry_id), -1)


def _cut(branch: Sequence[Entry], start: int, keep_recent_tokens: int) -> int:
    """pi's `findLegacyCutPoint`: the first kept entry's index when the client forces none."""
    points = [i for i in range(start, len(branch)) if _is_cut_point(branch[i])]
    if not points:
        return start
    cut = points[0]
    tokens = 0
    for index in range(len(branch) - 1, start - 1, -1):
        message = _message_of(branch[index])
        if message is None:
            continue
        tokens += message_tokens(message)
        if tokens >= keep_recent_tokens:
            cut = next((point for point in points if point >= index), cut)
            break
    while cut > start and branch[cut - 1].get("type") not in ("compaction", "message"):
        cut -= 1  # settings and custom entries just before the cut stay with what follows them
    return cut


def _is_cut_point(entry: Entry) -> bool:
    if entry.get("type") == "branch_summary":
        return True
    message = _message_of(entry)
    return message is not None and message.get("role") in CUT_ROLES


def _message_of(entry: Entry) -> Mapping[str, object] | None:
    """A `message` entry's message."""
    message = entry.get("message") if entry.get("type") == "message" else None
    return message if isinstance(message, Mapping) else None


def _summarized_message(entry: Entry) -> Message | None:
    """An entry as the summarizer and the retained tail read it (compactions are neither)."""
    kind = entry.get("type")
    if kind == "message":
        message = _message_of(entry)
        return dict(message) if message is not None else None
    if kind == "custom_message":
        return {
            "role": "custom",
            **_fields(entry, "customType", "content", "display", "details"),
            "timestamp": _ms(entry),
        }
    if kind == "branch_summary":
        return {"role": "branchSummary", **_fields(entry, "summary", "fromId"), "timestamp": _ms(entry)}
    return None


def _fields(entry: Entry, *keys: str) -> Message:
    """The keys the entry has (JSON drops JavaScript's undefined ones)."""
    return {key: entry[key] for key in keys if key in entry}


def context_messages(branch: Sequence[Entry]) -> list[Message]:
    """The messages pi's `buildLegacySessionContext` makes of the branch: after its last compaction,
    the summary, then the retained tail stored on the entry or the entries from its first kept one,
    then the entries after it."""
    last = next((i for i in range(len(branch) - 1, -1, -1) if branch[i].get("type") == "compaction"), -1)
    entries: list[Entry] = list(branch)
    if last >= 0:
        compaction = branch[last]
        entries = [compaction]
        kept = compaction.get("firstKeptEntryId")
        if compaction.get("retainedTail") is None and isinstance(kept, str) and kept:
            found = _index(branch[:last], kept)
            entries += branch[found:last] if found >= 0 else []
        entries += branch[last + 1 :]
    out: list[Message] = []
    for entry in entries:
        if entry.get("type") == "compaction":
            out.append({"role": "compactionSummary", "summary": entry.get("summary")})
            tail = entry.get("retainedTail")
            out += [dict(m) for m in tail if isinstance(m, Mapping)] if isinstance(tail, list) else []
            continue
        message = _summarized_message(entry)
        deferred = message is not None and message.get("stopReason") == "deferred"  # a reply still to come
        if message is not None and not (deferred and message.get("role") == "assistant"):
            out.append(message)
    return out


def context_tokens(messages: Sequence[Mapping[str, object]]) -> int:
    """pi's `estimateContextTokens`: the last successful reply's usage plus estimates after it."""
    for index in range(len(messages) - 1, -1, -1):
        counted = _usage_tokens(messages[index])
        if counted > 0:
            return counted + sum(message_tokens(m) for m in messages[index + 1 :])
    return sum(message_tokens(m) for m in messages)


def _usage_tokens(message: Mapping[str, object]) -> int:
    usage = message.get("usage")
    if message.get("role") != "assistant" or message.get("stopReason") in ("aborted", "error"):
        return 0
    if not isinstance(usage, Mapping):
        return 0
    total = _number(usage.get("totalTokens"))
    return total or sum(_number(usage.get(key)) for key in ("input", "output", "cacheRead", "cacheWrite"))


def message_tokens(message: Mapping[str, object]) -> int:
    """pi's `estimateTokens`: characters (UTF-16 units, as JavaScript counts) over four, rounded up."""
    role = message.get("role")
    chars = 0
    if role in ("user", "custom", "toolResult"):
        chars = _content_chars(message.get("content"))
    elif role == "assistant":
        for block in _blocks(message.get("content")):
            kind = block.get("type")
            if kind == "text":
                chars += _length(block.get("text"))
            elif kind == "thinking":
                chars += _length(block.get("thinking"))
            elif kind == "toolCall":
                chars += _length(block.get("name")) + _length(_js_json(block.get("arguments", _UNDEFINED)))
    elif role == "bashExecution":
        chars = _length(message.get("command")) + _length(message.get("output"))
    elif role in ("branchSummary", "compactionSummary"):
        chars = _length(message.get("summary"))
    return math.ceil(chars / 4)


def _content_chars(content: object) -> int:
    if isinstance(content, str):
        return _length(content)
    chars = 0
    for block in _blocks(content):
        if block.get("type") == "text":
            chars += _length(block.get("text"))
        elif block.get("type") == "image":
            chars += IMAGE_CHARS
    return chars


def _files(
    branch: Sequence[Entry], start: int, end: int, previous: int
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """pi's file lists: paths only read, and paths written or edited, each sorted."""
    read: set[str] = set()
    modified: set[str] = set()
    if previous >= 0 and branch[previous].get("fromHook") is not True:
        details = branch[previous].get("details")
        if isinstance(details, Mapping):
            read.update(_strings(details.get("readFiles")))
            modified.update(_strings(details.get("modifiedFiles")))
    for entry in branch[start:end]:
        message = _message_of(entry)
        if message is None or message.get("role") != "assistant":
            continue
        for block in _blocks(message.get("content")):
            arguments = block.get("arguments")
            path = arguments.get("path") if isinstance(arguments, Mapping) else None
            if block.get("type") != "toolCall" or not isinstance(path, str) or not path:
                continue
            if block.get("name") == "read":
                read.add(path)
            elif block.get("name") in ("write", "edit"):
                modified.add(path)
    return tuple(sorted(read - modified)), tuple(sorted(modified))


def _blocks(content: object) -> Iterable[Mapping[str, object]]:
    return (block for block in content if isinstance(block, Mapping)) if isinstance(content, list) else ()


def _strings(value: object) -> list[str]:
    return [item for item in value if isinstance(item, str)] if isinstance(value, list) else []


def _length(value: object) -> int:
    return len(value.encode("utf-16-le")) // 2 if isinstance(value, str) else 0


def _number(value: object) -> int:
    return int(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0


_UNDEFINED = object()


def _js_json(value: object) -> str:
    """`JSON.stringify(value) ?? "undefined"`, closely enough for a length."""
    if value is _UNDEFINED:
        return "undefined"
    try:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    except (TypeError, ValueError):
        return "[unserializable]"


def _ms(entry: Entry) -> int | None:
    """An entry's ISO timestamp as milliseconds since the epoch (JavaScript's `getTime()`)."""
    stamp = entry.get("timestamp")
    if not isinstance(stamp, str):
        return None
    try:
        moment = datetime.fromisoformat(stamp)
    except ValueError:
        return None
    return (moment.replace(tzinfo=moment.tzinfo or UTC) - EPOCH) // timedelta(milliseconds=1)
