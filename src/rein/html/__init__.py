"""Session entries as HTML, shared by `rein export` (a self-contained page) and the session server's
web page: every piece of session text escaped, model text rendered as Markdown (no raw HTML, safe
links only, code highlighted), each tool call a card with its output folded, edits as diffs, the marks
of stream rules, steering and the timebox.

    classes, kind, inner = body(entry, results)   # one entry; `results` folds tool results into calls
    markdown(text), code(text, "bash"), diff(old, new), card(call_block, result_message)
"""

from __future__ import annotations

from rein.html._entries import (
    STEERING_ENTRY,
    STEERING_OVERRIDE,
    TIMEBOX_ACTIVE,
    TIMEBOX_OFF,
    TIMEBOX_WARNING,
    TTSR_MESSAGE,
    TTSR_RECORD,
    body,
    is_tool_result,
    link,
    result_call_id,
    tool_calls,
    when,
)
from rein.html._markdown import code, diff, markdown
from rein.html._style import CONTENT_CSS
from rein.html._text import STEERING_TAG, as_json, badge, esc, get, preview, steering_rule
from rein.html._tools import card

__all__ = [
    "CONTENT_CSS",
    "STEERING_ENTRY",
    "STEERING_OVERRIDE",
    "STEERING_TAG",
    "TIMEBOX_ACTIVE",
    "TIMEBOX_OFF",
    "TIMEBOX_WARNING",
    "TTSR_MESSAGE",
    "TTSR_RECORD",
    "as_json",
    "badge",
    "body",
    "card",
    "code",
    "diff",
    "esc",
    "get",
    "is_tool_result",
    "link",
    "markdown",
    "preview",
    "result_call_id",
    "steering_rule",
    "tool_calls",
    "when",
]
