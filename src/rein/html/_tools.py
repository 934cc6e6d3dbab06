"""One tool call as a card: the tool and its status (exit code, error, steering or approval block), the
command in a highlighted code block (an edit as a coloured diff, a write's content folded, any other
tool's arguments as `name: value` lines), and its output folded with its line count.

    card(block, result_message)   # result_message None: no result on this branch (yet)
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping

from rein.html._markdown import code, diff
from rein.html._text import as_json, badge, content_text, esc, get, preview, steering_rule

EXIT_CODE = re.compile(r"\[exit code (-?\d+)\]\s*$")
"""How bash's output ends when the command failed (rein's bash tool)."""
STOPPED = re.compile(r"\[command (aborted|timed out after [^;\]]+)[;\]]")
APPROVAL_TAG = "[approval]"
SUBJECT = 90


def card(block: Mapping[str, object], result: Mapping[str, object] | None) -> str:
    name = str(block.get("name", "tool"))
    arguments = block.get("arguments")
    args: Mapping[str, object] = arguments if isinstance(arguments, dict) else {}
    raw = get(block, "raw_arguments", "rawArguments")
    classes, status, output = "tool", badge("no result", "pending"), ""
    if result is not None:
        extra, status, opened = marks(result, bash=name == "bash")
        classes += f" {extra}" if extra else ""
        output = _output(result, opened=opened)
    head = f'<div class="tool-head"><span class="kind">{esc(name)}</span>{_subject(name, args)}{status}</div>'
    return f'<div class="{classes}">{head}{_arguments(name, args, raw)}{output}</div>'


def marks(result: Mapping[str, object], *, bash: bool = False) -> tuple[str, str, bool]:
    """A result's (classes, status badge, whether its output opens by itself): a block's reason is
    the point of the card; a command's output is folded."""
    text = content_text(result.get("content"))
    rule = steering_rule(text)
    error = get(result, "is_error", "isError") is True
    if rule is not None:
        return "steering blocked", badge(f"steering block: {rule}", "steering"), True
    if text.lstrip().startswith(APPROVAL_TAG):
        return "blocked", badge("not approved", "error"), True
    if bash:
        stopped = STOPPED.search(text)
        if stopped:
            return "error", badge(stopped.group(1), "error"), False
        found = EXIT_CODE.search(text)
        if found:
            return "error", badge(f"exit {found.group(1)}", "error"), False
        if not error:
            return "", badge("exit 0", "ok"), False
    return ("error", badge("error", "error"), False) if error else ("", badge("done", "ok"), False)


def _subject(name: str, args: Mapping[str, object]) -> str:
    path = args.get("path")
    if name != "bash" and isinstance(path, str):
        return f" <code>{esc(path)}</code>"
    command = args.get("command")
    if isinstance(command, str) and ("\n" in command or len(command) > SUBJECT):
        return f' <span class="meta">{esc(preview(command, SUBJECT))}</span>'
    return ""


def _arguments(name: str, args: Mapping[str, object], raw: object) -> str:
    if not args:
        return f'<pre class="args">{esc(raw)}</pre>' if raw else ""
    command = args.get("command")
    if name == "bash" and isinstance(command, str):
        return code(command, "bash")
    old, new = get(args, "old_string", "oldText"), get(args, "new_string", "newText")
    path = str(args.get("path") or "")
    if isinstance(old, str) and isinstance(new, str):
        return diff(old, new)
    content = args.get("content")
    if name == "write" and isinstance(content, str):
        lines = len(content.splitlines())
        return _fold(f"content \u00b7 {_lines(lines)}", code(content, filename=path))
    rest = {key: value for key, value in args.items() if key != "path"}
    if not rest:
        return ""
    shown = "\n".join(f"{key}: {_value(value)}" for key, value in rest.items())
    return f'<pre class="args">{esc(shown)}</pre>'


def _value(value: object) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False) if not isinstance(value, dict | list) else as_json(value)


def _output(result: Mapping[str, object], *, opened: bool) -> str:
    text = content_text(result.get("content"))
    error = " error" if get(result, "is_error", "isError") is True else ""
    lines = len(text.splitlines())
    body = f'<pre class="result{error}">{esc(text)}</pre>'
    return _fold(f"output \u00b7 {_lines(lines)}", body, classes="output", opened=opened)


def _lines(count: int) -> str:
    return f"{count:,} line{'s' if count != 1 else ''}"


def _fold(title: str, inner: str, *, classes: str = "", opened: bool = False) -> str:
    attrs = f' class="{classes}"' if classes else ""
    return f"<details{attrs}{' open' if opened else ''}><summary>{esc(title)}</summary>{inner}</details>"
