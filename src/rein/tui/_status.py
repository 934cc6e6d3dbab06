"""The two bottom lines: the status line (model, tokens, stream-rule firings, extensions' statuses
such as the timebox countdown) and the footer (what the keys do now, or a hint)."""

from __future__ import annotations

import time

from prompt_toolkit.formatted_text import StyleAndTextTuples

from rein.ai import Model
from rein.tui._format import elapsed, tokens
from rein.tui._live import Live

IDLE_KEYS = "Enter sends | Alt-Enter newline | Tab completes /commands and @files | Ctrl-D quits"
RUNNING_KEYS = "Esc aborts | Enter queues a prompt"


def status_line(model: Model, live: Live) -> str:
    firings = f"{live.firings} rule firing" + ("" if live.firings == 1 else "s")
    parts = [f"{model.provider}/{model.id}", tokens(live.tokens), firings, *live.statuses.values()]
    return " | ".join(parts)


def footer(live: Live) -> StyleAndTextTuples:
    hint = live.current_hint()
    if hint:
        return [("class:hint", hint)]
    if live.running:
        return [("class:footer", f"working {elapsed(time.monotonic() - live.started)} | {RUNNING_KEYS}")]
    return [("class:footer", IDLE_KEYS)]
