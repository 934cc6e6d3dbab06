"""The text of a compaction: the model's summary, rein's extracted state, the user's own words.

The model's prose can lose things; the state (files, commands, failures, TODOs) is extracted from the
entries themselves and the user's messages are copied, so neither depends on the summarizer.
"""

from __future__ import annotations

from collections.abc import Sequence

from rein.session.compaction._tokens import text_tokens

NO_SUMMARY = "(The summarizer returned no summary; the state below was extracted by rein.)"
USER_HEADING = "## The user's messages, word for word (oldest first)"


def recent_user_words(older: Sequence[str], newer: Sequence[str], budget: int) -> list[str]:
    """The newest of the user's messages (`older` carried from the last compaction, then `newer`)
    that fit `budget` tokens, oldest first. A message too long for what is left is cut at its end."""
    kept: list[str] = []
    left = budget
    for text in reversed([*older, *newer]):
        cost = text_tokens(text)
        if cost <= left:
            kept.append(text)
            left -= cost
            continue
        if left >= 32:  # a long last request still says what it asked, cut at its end
            kept.append(text[: left * 4 - 20] + " [...cut by rein]")
        break
    kept.reverse()
    return kept


def compose(summary: str, state: str, user_words: Sequence[str]) -> str:
    """The compaction entry's summary text: three sections in a fixed order."""
    parts = [summary.strip() or NO_SUMMARY, state.strip()]
    if user_words:
        quoted = "\n\n".join(
            "\n".join(f"> {line}" for line in text.splitlines() or [""]) for text in user_words
        )
        parts.append(f"{USER_HEADING}\n\n{quoted}")
    return "\n\n".join(parts)
