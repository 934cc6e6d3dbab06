"""One session entry as HTML, for `rein export` and the web page: messages as a conversation (thinking
and tool calls folded, each call with its output), summaries, model changes, and the marks of stream
rules, steering and the timebox.

Message payloads are read as JSON in either dialect (rein's `tool_call`/`tool_result`, pi's
`toolCall`/`toolResult` and camelCase fields). Every piece of session text goes through `esc`, in
element text and in attribute values alike: a session holds whatever a model wrote.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime

from rein.html._markdown import markdown
from rein.html._text import as_json, badge, content_text, esc, get
from rein.html._tools import card, marks
from rein.session import (
    BranchSummaryEntry,
    CompactionEntry,
    CustomEntry,
    CustomMessageEntry,
    Entry,
    LabelEntry,
    MessageEntry,
    ModelChangeEntry,
    ThinkingLevelChangeEntry,
    UnknownEntry,
)

# The built-in extensions' entry types (rein.builtins.ttsr, .steering, .timebox; a test keeps them equal).
TTSR_MESSAGE = "ttsr-injection"
TTSR_RECORD = "ttsr_injection"
STEERING_ENTRY = "steering"
TIMEBOX_WARNING = "timebox-warning"
TIMEBOX_ACTIVE = "timebox-active"
TIMEBOX_OFF = "timebox-off"

STEERING_OVERRIDE = "steering-override"
"""The steering type of the entry an accepted override comment writes (`rein.steering`'s audit entry)."""


def when(stamp: str) -> str:
    """An ISO-8601 timestamp in local time (`2026-01-24 17:22:26`), or the text as it is."""
    try:
        return f"{datetime.fromisoformat(stamp).astimezone():%Y-%m-%d %H:%M:%S}"
    except ValueError:
        return stamp


def link(entry_id: str) -> str:
    return f'<a href="#e-{esc(entry_id)}">{esc(entry_id)}</a>'


def is_tool_result(message: Mapping[str, object]) -> bool:
    return message.get("role") in ("tool_result", "toolResult")


def tool_calls(message: Mapping[str, object]) -> list[Mapping[str, object]]:
    """The tool-call blocks of an assistant message."""
    content = message.get("content")
    if message.get("role") != "assistant" or not isinstance(content, list):
        return []
    return [b for b in content if isinstance(b, dict) and b.get("type") in ("tool_call", "toolCall")]


def result_call_id(message: Mapping[str, object]) -> str | None:
    value = get(message, "tool_call_id", "toolCallId")
    return value if isinstance(value, str) else None


def body(entry: Entry, results: Mapping[str, MessageEntry]) -> tuple[str, str, str]:
    """The entry's (classes, kind label and badges, inner HTML). `results` maps this assistant
    entry's tool-call ids to their result entries, folded into the call."""
    match entry:
        case MessageEntry():
            return _message(entry.message, results)
        case CustomMessageEntry():
            return _custom_message(entry)
        case CustomEntry():
            return _custom(entry)
        case CompactionEntry():
            facts = f"tokens before: {entry.tokens_before}; kept from {link(entry.first_kept_entry_id)}"
            return (
                "compaction",
                "compaction",
                f'<div class="meta">{facts}</div>' + _summary(entry.summary),
            )
        case BranchSummaryEntry():
            facts = f"summary of the branch left at {link(entry.from_id)}"
            return (
                "branch-summary",
                "branch summary",
                f'<div class="meta">{facts}</div>' + _summary(entry.summary),
            )
        case ModelChangeEntry():
            return "model-change meta-entry", "model", esc(f"{entry.provider}/{entry.model_id}")
        case ThinkingLevelChangeEntry():
            return "thinking-level meta-entry", "thinking level", esc(entry.thinking_level)
        case LabelEntry():
            said = f"label {esc(repr(entry.label))} on " if entry.label else "label cleared on "
            return "label-entry meta-entry", "label", said + link(entry.target_id)
        case UnknownEntry():
            return (
                "unknown",
                f"unknown entry: {esc(entry.original_type)}",
                _folded("as written", as_json(dict(entry.raw)), pre=True),
            )


def _message(message: Mapping[str, object], results: Mapping[str, MessageEntry]) -> tuple[str, str, str]:
    role = message.get("role")
    content = message.get("content")
    if role == "user":
        return "message user", "user", _text(content)
    if role == "assistant":
        return _assistant(message, results)
    if is_tool_result(message):
        name = esc(get(message, "tool_name", "toolName") or "tool")
        classes, status, _opened = marks(message, bash=name == "bash")
        return f"message tool-result {classes}", f"tool result: {name}{status}", _output(message)
    return "message other", f"message: {esc(role)}", _folded("as written", as_json(dict(message)), pre=True)


def _assistant(message: Mapping[str, object], results: Mapping[str, MessageEntry]) -> tuple[str, str, str]:
    parts: list[str] = []
    content = message.get("content")
    for block in content if isinstance(content, list) else [content]:
        if isinstance(block, str):
            parts.append(_markdown(block))
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        if kind == "text":
            parts.append(_markdown(str(block.get("text", ""))))
        elif kind == "thinking":
            thought = "(redacted)" if block.get("redacted") else str(block.get("thinking", ""))
            parts.append(_folded("thinking", thought, classes="thinking"))
        elif kind in ("tool_call", "toolCall"):
            call_id = block.get("id")
            result = results.get(call_id) if isinstance(call_id, str) else None
            parts.append(card(block, result.message if result is not None else None))
    label = "assistant"
    model, provider = message.get("model"), message.get("provider")
    if isinstance(model, str):
        label += f' <span class="meta">{esc(f"{provider}/{model}" if provider else model)}</span>'
    stop = get(message, "stop_reason", "stopReason")
    classes = "message assistant"
    if stop in ("error", "aborted", "length"):
        classes += " error"
        error = get(message, "error_message", "errorMessage")
        label += badge(f"stopped: {stop}", "error")
        if error:
            parts.append(f'<div class="text error">{esc(error)}</div>')
    return classes, label, "".join(parts)


def _output(message: Mapping[str, object]) -> str:
    error = " error" if get(message, "is_error", "isError") is True else ""
    return f'<pre class="result{error}">{esc(content_text(message.get("content")))}</pre>'


def _markdown(text: str) -> str:
    return f'<div class="md">{markdown(text)}</div>'


def _summary(text: str) -> str:
    return f"<details open><summary>summary</summary>{_markdown(text)}</details>"


def _text(content: object) -> str:
    return f'<div class="text">{esc(content_text(content))}</div>'


def _custom_message(entry: CustomMessageEntry) -> tuple[str, str, str]:
    hidden = "" if entry.display else badge("hidden", "hidden")
    text = content_text(entry.content)
    details = entry.details if isinstance(entry.details, dict) else {}
    if entry.custom_type == TTSR_MESSAGE:
        rules = ", ".join(str(r) for r in details.get("rules", [])) if details else ""
        mark = badge(f"stream rule injected: {rules or 'rule'}", "ttsr")
        injected = f"<details><summary>injected text</summary>{_markdown(text)}</details>"
        return "ttsr injection", f"stream rule{mark}{hidden}", injected
    if entry.custom_type == TIMEBOX_WARNING:
        return "timebox notice", f"timebox{badge('timebox warning', 'timebox')}{hidden}", _text(text)
    return "custom-message", f"custom message: {esc(entry.custom_type)}{hidden}", _text(text)


def _custom(entry: CustomEntry) -> tuple[str, str, str]:
    data = entry.data if isinstance(entry.data, dict) else {}
    raw = _folded("data", as_json(entry.data), pre=True)
    if entry.custom_type == TTSR_RECORD:
        rules = data.get("rules") or ([data["rule"]] if "rule" in data else [])
        names = ", ".join(str(r) for r in rules) if isinstance(rules, list) else str(rules)
        return (
            "ttsr record meta-entry",
            f"stream rule fired{badge(names or 'rule', 'ttsr')}",
            _cut(data) + raw,
        )
    if entry.custom_type == STEERING_ENTRY:
        kind = str(data.get("type", "entry"))
        detail = data.get("data")
        if kind == STEERING_OVERRIDE and isinstance(detail, dict):
            rule = str(detail.get("rule"))
            told = f"The agent lifted {rule}, which the user made overridable: {detail.get('why')}"
            text = _text(f"{told}\n{detail.get('command')}")
            return "steering override", f"steering{badge(f'override: {rule}', 'steering')}", text + raw
        return "steering record meta-entry", f"steering{badge(kind, 'steering')}", raw
    if entry.custom_type in (TIMEBOX_ACTIVE, TIMEBOX_OFF):
        what = "timebox off"
        if entry.custom_type == TIMEBOX_ACTIVE:
            what = "timebox set" if data.get("active", True) else "timebox spent: stopped"
        return "timebox notice meta-entry", f"timebox{badge(what, 'timebox')}", raw
    return "custom meta-entry", f"custom: {esc(entry.custom_type)}", raw


def _cut(data: Mapping[str, object]) -> str:
    """The reply text a stream rule cut (dropped, then retried), when the record kept it."""
    cut = data.get("cut")
    if not isinstance(cut, dict) or not isinstance(cut.get("text"), str):
        return ""
    source, tool = cut.get("source"), cut.get("toolName")
    where = f"{source}: {tool}" if tool else str(source or "")
    meta = f' <span class="meta">{esc(where)}</span>' if where else ""
    return (
        f'<details class="cut"><summary>cut reply (dropped, then retried){meta}</summary>'
        f'<pre class="cut-text">{esc(cut["text"])}</pre></details>'
    )


def _folded(title: str, text: str, *, classes: str = "", opened: bool = False, pre: bool = False) -> str:
    tag = "pre" if pre else 'div class="text"'
    close = "pre" if pre else "div"
    attrs = f' class="{classes}"' if classes else ""
    return (
        f"<details{attrs}{' open' if opened else ''}><summary>{esc(title)}</summary>"
        f"<{tag}>{esc(text)}</{close}></details>"
    )
