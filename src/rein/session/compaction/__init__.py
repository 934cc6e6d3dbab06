"""Compaction: a long branch's old turns become a summary, so the session goes on in its window.

    budget = Budget.of(window, CompactionSettings(), fixed=system_and_tools_tokens)
    result = await compact_session(store, provider_summarize(provider, model), budget, reason="manual")

- `_budget`: the settings (`[compaction]`, pi's names) and each part's share of a window, scaled down
  for small windows; `model_window` knows the common models' windows.
- `_plan`: the cut at a turn boundary that keeps the most recent turns that fit.
- `_prune`: tool outputs that later calls superseded, replaced by a placeholder first.
- `_summarize`: the chunked summarizer (chunks that fit, then summaries of summaries; an overflowing
  chunk split again, down to one message cut in parts; a part that still overflows surfaces the error).
- `_state`: what must survive, extracted from the entries (files, commands, failures, errors, TODOs).
- `_compose`, `_reinject`: the summary's text; the instruction files and last files read, again.
- `_compact`: one compaction of a store's active branch, append-only and branch-local.
"""

from __future__ import annotations

from rein.session.compaction._budget import Budget, CompactionSettings, model_window
from rein.session.compaction._compact import (
    MARKER_TYPE,
    Compacted,
    NothingToCompact,
    NotSmaller,
    Reason,
    compact_session,
    context_items,
)
from rein.session.compaction._provider import provider_summarize
from rein.session.compaction._state import Command, OperationalState, extract_state, render_state
from rein.session.compaction._summarize import (
    Summarize,
    SummaryError,
    SummaryOverflow,
    SummaryResult,
    summarize_chunked,
)
from rein.session.compaction._tokens import context_tokens, message_tokens, messages_tokens, text_tokens

__all__ = [
    "MARKER_TYPE",
    "Budget",
    "Command",
    "Compacted",
    "CompactionSettings",
    "NotSmaller",
    "NothingToCompact",
    "OperationalState",
    "Reason",
    "Summarize",
    "SummaryError",
    "SummaryOverflow",
    "SummaryResult",
    "compact_session",
    "context_items",
    "context_tokens",
    "extract_state",
    "message_tokens",
    "messages_tokens",
    "model_window",
    "provider_summarize",
    "render_state",
    "summarize_chunked",
    "text_tokens",
]
