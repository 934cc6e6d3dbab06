"""Ruby's string escapes: double-quoted (`\\n`, `\\u{263A}`, `\\x41`, octal, `\\cA`, `\\M-a`) and
single-quoted bodies, where only the backslash and the delimiters are escaped.
"""

from __future__ import annotations

import re

from rein.steering.bash.launch._folding import char

_ESCAPE = re.compile(
    r"\\(?:u\{([0-9a-fA-F \t]*)\}|u([0-9a-fA-F]{4})|x([0-9a-fA-F]{1,2})|([0-7]{1,3})"
    r"|c(.)|C-(.)|M-(.)|(\n)|(.))",
    re.DOTALL,
)
_SIMPLE = {"n": "\n", "t": "\t", "s": " ", "r": "\r", "e": "\x1b", "a": "\x07", "b": "\x08", "f": "\x0c",
           "v": "\x0b"}  # fmt: skip


def _unescape(match: re.Match[str]) -> str:
    braces, four, hexa, octal, ctrl, ctrl2, meta, newline, other = match.groups()
    if braces is not None:
        return "".join(char(int(code, 16)) for code in braces.split())
    if four or hexa:
        return char(int(four or hexa, 16))
    if octal:
        return char(int(octal, 8) & 0xFF)
    if ctrl or ctrl2:
        return "\x7f" if (ctrl or ctrl2) == "?" else char(ord(ctrl or ctrl2) & 0x9F)
    if meta:
        return char(ord(meta) | 0x80)
    return "" if newline else _SIMPLE.get(other, other)


def single(raw: str, closing: str) -> str:
    """A single-quoted (or `%q`) body: only backslash and the delimiters are escaped."""
    return re.sub(r"\\([\\'" + re.escape(closing) + "])", r"\1", raw)


def unescape(raw: str) -> str:
    """A double-quoted body's text with its escapes decoded."""
    return _ESCAPE.sub(_unescape, raw)
