"""A read-only view of one session as the service caches it: its entries (parsed, in append order),
their prefix hashes, the active branch and the messages the model sees on it.

`messages()` follows pi's session context closely enough for the wire's `messageCount` and history
`messages`, not exactly: after the last compaction on the branch it gives one summary message, the
kept entries from `firstKeptEntryId`, and everything after the compaction; message entries give
their `message`, custom messages and branch summaries a user message. pi's own `convertToLlm` may
differ in details (custom message display flags, extension-defined roles).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from rein.server.store import SessionRow

Entry = dict[str, object]
COMPACTION_PREFIX = (
    "The conversation history before this point was compacted into the following summary:\n\n<summary>\n"
)
BRANCH_PREFIX = "The following is a summary of a branch that this conversation came back from:\n\n<summary>\n"
SUMMARY_SUFFIX = "\n</summary>"


@dataclass(frozen=True, slots=True, kw_only=True)
class SessionView:
    """A session at one revision. The lists are shared with the service's cache: read, never mutate."""

    row: SessionRow
    entries: Sequence[Entry]
    static_context: dict[str, object] | None
    hashes: Sequence[str] = field(repr=False)
    """`hashes[n]` is the tree hash of the first n entries."""
    index: Mapping[str, int] = field(repr=False)
    """entry id -> position in `entries`."""

    def prefix_hash(self, count: int) -> str | None:
        return self.hashes[count] if 0 <= count < len(self.hashes) else None

    def branch(self) -> list[Entry]:
        """Root..leaf by parentId; stops at a missing parent or a cycle rather than looping."""
        path: list[Entry] = []
        seen: set[str] = set()
        current = self.row.leaf_id
        while current is not None and current not in seen and current in self.index:
            seen.add(current)
            entry = self.entries[self.index[current]]
            path.append(entry)
            parent = entry.get("parentId")
            current = parent if isinstance(parent, str) else None
        path.reverse()
        return path

    def messages(self) -> list[Entry]:
        return branch_messages(self.branch())

    def summary(self) -> dict[str, object]:
        """The state summary every mutation answers."""
        return {
            "sessionId": self.row.session_id,
            "staticContextHash": self.row.static_context_hash,
            "treeHash": self.row.tree_hash,
            "messageCount": len(self.messages()),
            "entryCount": self.row.entry_count,
            "leafId": self.row.leaf_id,
            "revision": self.row.revision,
        }

    def listing(self) -> dict[str, object]:
        """One row of `GET /api/sessions`: the summary plus its times (ms since the epoch)."""
        return {**self.summary(), "createdAt": self.row.created_ms, "updatedAt": self.row.updated_ms}


def branch_messages(branch: Sequence[Entry]) -> list[Entry]:
    last = max((i for i, entry in enumerate(branch) if entry.get("type") == "compaction"), default=-1)
    if last < 0:
        return [m for entry in branch if (m := _message(entry)) is not None]
    compaction = branch[last]
    out: list[Entry] = [
        _user_text(COMPACTION_PREFIX + str(compaction.get("summary", "")) + SUMMARY_SUFFIX, compaction)
    ]
    kept = compaction.get("firstKeptEntryId")
    keeping = False
    for entry in branch[:last]:
        keeping = keeping or entry.get("id") == kept
        if keeping and (m := _message(entry)) is not None:
            out.append(m)
    out += [m for entry in branch[last + 1 :] if (m := _message(entry)) is not None]
    return out


def _message(entry: Entry) -> Entry | None:
    kind = entry.get("type")
    if kind == "message":
        message = entry.get("message")
        return message if isinstance(message, dict) else None
    if kind == "custom_message":
        return {"role": "user", "content": entry.get("content", ""), "timestamp": _ms(entry)}
    if kind == "branch_summary":
        return _user_text(BRANCH_PREFIX + str(entry.get("summary", "")) + SUMMARY_SUFFIX, entry)
    return None


def _user_text(text: str, entry: Entry) -> Entry:
    return {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": _ms(entry)}


def _ms(entry: Entry) -> int | None:
    """An entry's ISO timestamp as a message's milliseconds since the epoch."""
    stamp = entry.get("timestamp")
    try:
        return int(datetime.fromisoformat(stamp).timestamp() * 1000) if isinstance(stamp, str) else None
    except ValueError:
        return None
