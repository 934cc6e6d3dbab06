"""Session entries as HTML, shared by `rein export` (a self-contained page) and the session server's
web page: every piece of session text escaped, tool calls folded with their output, the marks of
stream rules, steering and the timebox.

    classes, kind, inner = body(entry, results)   # one entry; `results` folds tool results into calls
"""

from __future__ import annotations

from rein.html._entries import (
    STEERING_ENTRY,
    STEERING_OVERRIDE,
    STEERING_TAG,
    TIMEBOX_ACTIVE,
    TIMEBOX_OFF,
    TIMEBOX_WARNING,
    TTSR_MESSAGE,
    TTSR_RECORD,
    as_json,
    badge,
    body,
    esc,
    get,
    is_tool_result,
    link,
    preview,
    result_call_id,
    steering_rule,
    tool_calls,
    when,
)

__all__ = [
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
    "esc",
    "get",
    "is_tool_result",
    "link",
    "preview",
    "result_call_id",
    "steering_rule",
    "tool_calls",
    "when",
]
