"""pi's session files (coding-agent `session-manager.ts`, format versions 1-3), read as rein sessions.

pi's v3 lines are rein's entries with camelCase keys (`parentId`, `customType`, `firstKeptEntryId`,
`tokensBefore`, `fromHook`, `fromId`, `modelId`, `thinkingLevel`, `targetId`; header `parentSession`).
pi has no leaf record: its leaf is the last entry in the file, and a branch move reaches the file only
with the next append (whose `parentId` records it). Older versions are migrated in memory, as pi does
on load (pi then rewrites the file; rein never rewrites):

- v1 (no header `version`): a linear list without ids. Entries get ids from their line numbers and
  each hangs off the one before; a compaction's `firstKeptEntryIndex` (an index into the file's parsed
  lines, header included) becomes `firstKeptEntryId`. Such files are read-only: their ids exist only
  in memory, so an appended line could not name its parent.
- v2: tree with ids; message role `hookMessage` is v3's `custom`.
"""

from __future__ import annotations

from collections.abc import Sequence

from rein.session._codec import Keys

PI_VERSION = 3
"""The newest pi format rein reads and appends to."""

PI_KEYS = Keys(
    "parentId", "customType", "firstKeptEntryId", "tokensBefore", "fromHook", "fromId", "modelId",
    "thinkingLevel", "targetId",
)  # fmt: skip


def migrate(records: list[dict[str, object]], lines: Sequence[int], version: int) -> None:
    """Bring pi `records` (header excluded; `lines` their line numbers) of `version` to v3, in place."""
    if version < 2:
        _v1_to_v2(records, lines)
    if version < 3:
        for raw in records:
            message = raw.get("message")
            if (
                raw.get("type") == "message"
                and isinstance(message, dict)
                and message.get("role") == "hookMessage"
            ):
                raw["message"] = {**message, "role": "custom"}


def _v1_to_v2(records: list[dict[str, object]], lines: Sequence[int]) -> None:
    parent: str | None = None
    for line, raw in zip(lines, records, strict=True):
        raw["id"] = entry_id = f"v1-{line}"
        raw["parentId"] = parent
        parent = entry_id
    # pi's index counts the parsed lines with the header at 0, so index i is records[i - 1].
    for raw in records:
        index = raw.pop("firstKeptEntryIndex", None)
        if raw.get("type") == "compaction" and isinstance(index, int) and 0 < index <= len(records):
            raw["firstKeptEntryId"] = records[index - 1]["id"]
