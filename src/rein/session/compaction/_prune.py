"""Old tool outputs that later calls made stale, replaced by a short placeholder.

A file read before it was read again or changed, a listing or search run again with the same
arguments, a bash command run again: the older output only costs tokens. Pruning them first (as
opencode does) often frees enough that less must be summarized. Pure: no I/O; the caller decides
whether the pruned messages are sent, stored, or both.
"""

from __future__ import annotations

import json
import posixpath
from collections.abc import Sequence
from dataclasses import dataclass, field

from rein.agent import AgentMessage
from rein.ai import AssistantMessage, TextContent, ToolCall, ToolResultMessage
from rein.session.compaction._scan import PRUNED_PREFIX, exit_code, is_blocked, normalize_command
from rein.session.compaction._tokens import message_tokens

PROTECT_TOKENS = 20_000
MIN_PRUNE_TOKENS = 50
"""A smaller output frees too little to be worth losing."""

SEARCH_TOOLS = frozenset({"ls", "grep", "find"})
CHANGE_VERBS = {"write": "written", "edit": "edited"}


def superseded(
    items: Sequence[tuple[str | None, AgentMessage]], *, protect_tokens: int = PROTECT_TOKENS
) -> dict[str, str]:
    """Entry id -> reason, for each tool result in `items` (entry id, message; oldest first) whose
    output a later call superseded:

    - a `read` of a path read again later over the same range (or the whole file), or written or
      edited later (successfully);
    - an `ls`, `grep` or `find` run again later with the same arguments;
    - a `bash` command run again later, whitespace-normalized.

    A later call counts only if it ran (a blocked call supersedes nothing) and, for bash, finished
    with an exit code (an aborted or timed-out rerun does not). Never pruned: results
    within the last `protect_tokens` tokens of tool output (counted from the end), items whose id
    is None, outputs under `MIN_PRUNE_TOKENS`. Never raises.
    """
    prunable = _prunable(items, protect_tokens)
    calls: dict[str, ToolCall] = {}
    pending = _Pending()
    reasons: dict[str, str] = {}
    for entry_id, message in items:
        if isinstance(message, AssistantMessage):
            calls.update((call.id, call) for call in message.tool_calls)
            continue
        if not isinstance(message, ToolResultMessage):
            continue
        call = calls.get(message.tool_call_id)
        if call is None or (message.is_error and is_blocked(message.text)):
            continue
        # A bash that did not finish leaves the earlier complete output standing.
        if call.name != "bash" or exit_code(message.text, is_error=message.is_error) is not None:
            for stale, reason in pending.supersede(call, message.is_error):
                reasons.setdefault(stale, reason)
        if entry_id is not None and entry_id in prunable:
            pending.add(entry_id, call, message.is_error)
    return reasons


def pruned(message: ToolResultMessage, reason: str) -> ToolResultMessage:
    """`message` with its content replaced by one line saying why; ids, tool name, error flag and
    timestamp are kept, so the call and its result still pair."""
    return ToolResultMessage(
        tool_call_id=message.tool_call_id,
        tool_name=message.tool_name,
        content=(TextContent(text=f"{PRUNED_PREFIX}{reason}]"),),
        is_error=message.is_error,
        timestamp=message.timestamp,
    )


def _prunable(items: Sequence[tuple[str | None, AgentMessage]], protect_tokens: int) -> set[str]:
    """Ids of tool results outside the protected tail and large enough to prune."""
    ids: set[str] = set()
    total = 0
    for entry_id, message in reversed(items):
        if not isinstance(message, ToolResultMessage):
            continue
        size = message_tokens(message)
        total += size
        if total > protect_tokens and entry_id is not None and size >= MIN_PRUNE_TOKENS:
            ids.add(entry_id)
    return ids


@dataclass(slots=True)
class _Read:
    entry_id: str
    offset: int
    limit: int | None


@dataclass(slots=True)
class _Pending:
    """Prunable results not yet superseded, keyed by what a later call would supersede them by."""

    reads: dict[str, list[_Read]] = field(default_factory=dict)
    runs: dict[str, list[str]] = field(default_factory=dict)

    def add(self, entry_id: str, call: ToolCall, failed: bool) -> None:
        if call.name == "read":
            path = _path(call)
            if path is None or failed:
                return  # a failed read holds no content to go stale
            offset, limit = _range(call)
            self.reads.setdefault(path, []).append(_Read(entry_id=entry_id, offset=offset, limit=limit))
        elif (key := _run_key(call)) is not None:
            self.runs.setdefault(key, []).append(entry_id)

    def supersede(self, call: ToolCall, failed: bool) -> list[tuple[str, str]]:
        """The pending results `call` (which ran) makes stale, with the reason, and forgets them."""
        path = _path(call)
        if call.name == "read" and path is not None and not failed:
            offset, limit = _range(call)
            whole = offset == 1 and limit is None
            earlier = self.reads.get(path, [])
            stale = [r for r in earlier if whole or (r.offset, r.limit) == (offset, limit)]
            self.reads[path] = [r for r in earlier if all(r is not s for s in stale)]
            return [(r.entry_id, f"superseded by a later read of {path}") for r in stale]
        if call.name in CHANGE_VERBS and path is not None and not failed:
            stale = self.reads.pop(path, [])
            return [(r.entry_id, f"{path} was {CHANGE_VERBS[call.name]} later") for r in stale]
        key = _run_key(call)
        if key is None:
            return []
        what = "command" if call.name == "bash" else f"{call.name} call"
        return [(entry_id, f"the same {what} ran again later") for entry_id in self.runs.pop(key, [])]


def _path(call: ToolCall) -> str | None:
    path = call.arguments.get("path")
    return posixpath.normpath(path) if isinstance(path, str) and path else None


def _range(call: ToolCall) -> tuple[int, int | None]:
    offset, limit = call.arguments.get("offset"), call.arguments.get("limit")
    return (
        offset if isinstance(offset, int) and not isinstance(offset, bool) else 1,
        limit if isinstance(limit, int) and not isinstance(limit, bool) else None,
    )


def _run_key(call: ToolCall) -> str | None:
    """What makes two runs the same: the normalized command, or a search tool's arguments."""
    if call.name == "bash":
        command = call.arguments.get("command")
        return f"bash\0{normalize_command(command)}" if isinstance(command, str) and command.strip() else None
    if call.name in SEARCH_TOOLS:
        arguments = {**call.arguments, "path": _path(call) or "."}  # the default path, spelled out
        return f"{call.name}\0{json.dumps(arguments, sort_keys=True, default=str)}"
    return None
