"""The UI's colours and text styles, by class name; the rest of the package names only classes."""

from __future__ import annotations

from prompt_toolkit.styles import Style

STYLE = Style.from_dict(
    {
        "banner": "ansibrightblack",
        "user": "bold",
        "prompt": "bold ansicyan",
        "tool": "bold ansiblue",
        "tool.output": "ansibrightblack",
        "tool.error": "ansired",
        "thinking": "italic ansibrightblack",
        "notice.info": "ansicyan",
        "notice.warning": "ansiyellow",
        "notice.error": "bold ansired",
        "cut": "bold ansimagenta",
        "custom": "ansimagenta",
        "aborted": "ansiyellow",
        "error": "bold ansired",
        "answer": "ansibrightblack",
        "queued": "italic ansibrightblack",
        "running": "ansibrightblack",
        "separator": "ansibrightblack",
        "status": "reverse",
        "footer": "ansibrightblack",
        "hint": "bold ansiyellow",
        "menu.title": "bold",
        "menu.option": "",
        "menu.selected": "reverse bold",
        "menu.help": "ansibrightblack",
        "placeholder": "ansibrightblack",
    }
)
"""Classes: `banner` (start line), `user` (an echoed prompt), `tool*` (folded tool calls), `thinking`,
`notice.<level>`, `cut` (a stream-rule cut), `status`/`footer`/`hint` (the bottom lines), `menu.*`."""
