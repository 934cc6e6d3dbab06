"""Model tokens from a Claude Code transcript (the JSONL file at the hook payload's `transcript_path`).

Claude Code writes each assistant reply as one line per content block, every line carrying the
reply's `message.id` and `message.usage` ({input_tokens, output_tokens, cache_creation_input_tokens,
cache_read_input_tokens}); the last line of an id counts, once. Lines are counted from their
`timestamp` (ISO 8601) on. A missing or unreadable transcript counts nothing: the timebox then runs
on time and turns.
"""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

_FIELDS = ("input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")


def _ms(stamp: object) -> int | None:
    if not isinstance(stamp, str):
        return None
    try:
        return int(datetime.fromisoformat(stamp).timestamp() * 1000)
    except ValueError:
        return None


def _reply_tokens(item: object, since: int) -> tuple[str, int] | None:
    """(reply id, tokens) of an assistant line written at or after `since`, else None."""
    if not isinstance(item, dict) or item.get("type") != "assistant":
        return None
    message = item.get("message")
    stamp = _ms(item.get("timestamp"))
    if not isinstance(message, dict) or stamp is None or stamp < since:
        return None
    usage = message.get("usage")
    if not isinstance(usage, dict):
        return None
    total = sum(value for key in _FIELDS if isinstance(value := usage.get(key), int))
    ident = message.get("id")
    return (ident if isinstance(ident, str) else f"line-{stamp}-{total}"), total


def transcript_tokens(path: str | None, since: int) -> int:
    """Tokens of the replies in the transcript at `path` written at or after `since` (ms)."""
    if not path:
        return 0
    try:
        text = Path(path).read_bytes()
    except OSError:
        return 0
    replies: dict[str, int] = {}
    for raw in text.splitlines():
        if b'"usage"' not in raw:
            continue
        try:
            found = _reply_tokens(json.loads(raw), since)
        except ValueError:
            continue
        if found is not None:
            replies[found[0]] = found[1]
    return sum(replies.values())
