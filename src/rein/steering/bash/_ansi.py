"""Bash's `$'...'` strings: their escapes decoded as bash does."""

from __future__ import annotations

import re

_ANSI_ESCAPE = re.compile(r"\\(x[0-9A-Fa-f]{1,2}|u[0-9A-Fa-f]{1,4}|U[0-9A-Fa-f]{1,8}|[0-7]{1,3}|c.|.)", re.S)
_ANSI_SIMPLE = {
    "a": "\a", "b": "\b", "e": "\x1b", "E": "\x1b", "f": "\f", "n": "\n", "r": "\r", "t": "\t",
    "v": "\v", "\\": "\\", "'": "'", '"': '"', "?": "?",
}  # fmt: skip


def decode_ansi_c(body: str) -> str:
    """The text of a `$'...'` string (without `$'` and `'`), escapes decoded as bash does."""
    return _ANSI_ESCAPE.sub(_ansi_one, body) if "\\" in body else body


def _ansi_one(match: re.Match[str]) -> str:
    code = match[1]
    head = code[0]
    if head in _ANSI_SIMPLE and len(code) == 1:
        return _ANSI_SIMPLE[head]
    if head in "xuU" and len(code) > 1:
        value = int(code[1:], 16)
        return chr(value) if value <= 0x10FFFF else "\ufffd"
    if head in "01234567":
        return chr(int(code, 8) & 0xFF)
    if head == "c" and len(code) == 2:
        return chr(ord(code[1]) & 0x1F)
    return match[0]
