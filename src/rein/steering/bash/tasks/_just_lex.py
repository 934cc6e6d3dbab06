"""Tokens of justfile items and expressions (https://just.systems/man/en/ , grammar in just's
GRAMMAR.md): names, the four string kinds and their triple-quoted (indented) forms with the `x`
(shell-expanded) and `f` (format) prefixes, backticks, operators, comments. A logical line ends at
a newline outside brackets, or at `}}` closing an interpolation."""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from typing import Literal

Kind = Literal["name", "string", "backtick", "op"]


class JustSyntax(Exception):
    """Text just would reject; the reader reports the file as not parsing."""


@dataclass(frozen=True, slots=True)
class Token:
    kind: Kind
    text: str
    """The name, the operator, or the string's value (unescaped, unindented)."""
    at: int
    """Offset in the text."""
    prefix: str = ""
    """`x` (shell-expanded) or `f` (format string) before a string."""


_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")
_OPS = (":=", "::", "==", "!=", "=~", "!~", "&&", "||", *":=+/()[]{},@*$?!")
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", '"': '"', "\\": "\\"}
_OPEN, _CLOSE = "([{", ")]}"


class Lexer:
    def __init__(self, text: str) -> None:
        self.text = text
        self.newlines = [at for at, char in enumerate(text) if char == "\n"]

    def line(self, at: int) -> int:
        """The 1-based line of offset `at`."""
        return bisect.bisect_left(self.newlines, at) + 1

    def logical(self, at: int, stop: str = "") -> tuple[list[Token], int]:
        """The tokens from `at` to the end of the logical line, and the offset after it (past the
        newline, or past `stop` found outside brackets)."""
        text, found, depth = self.text, list[Token](), 0
        while at < len(text):
            char = text[at]
            if stop and depth == 0 and text.startswith(stop, at):
                return found, at + len(stop)
            if char == "\n" and depth == 0:
                return found, at + 1
            if char in " \t\r\n":
                at += 1
            elif char == "\\" and text.startswith("\n", at + 1):
                at += 2
            elif char == "#" and not stop:
                end = text.find("\n", at)
                at = len(text) if end < 0 else end
            elif char in "'\"`" or (char in "xf" and text[at + 1 : at + 2] in ("'", '"')):
                token, at = self._string(at)
                found.append(token)
            elif (name := _NAME.match(text, at)) is not None:
                found.append(Token("name", name.group(), at))
                at = name.end()
            else:
                op = next((op for op in _OPS if text.startswith(op, at)), None)
                if op is None:
                    raise JustSyntax(f"unexpected {char!r} on line {self.line(at)}")
                depth += (op in _OPEN) - (op in _CLOSE)
                found.append(Token("op", op, at))
                at += len(op)
        if stop:
            raise JustSyntax(f"unterminated interpolation from line {self.line(at)}")
        return found, at

    def _string(self, start: int) -> tuple[Token, int]:
        at, prefix = start, ""
        if self.text[at] in "xf":
            prefix, at = self.text[at], at + 1
        quote = self.text[at]
        triple = self.text.startswith(quote * 3, at)
        delimiter = quote * 3 if triple else quote
        at += len(delimiter)
        end = self._closing(at, delimiter)
        raw = self.text[at:end]
        value = _unescape(raw) if quote == '"' else raw
        kind: Kind = "backtick" if quote == "`" else "string"
        return Token(kind, unindent(value) if triple else value, start, prefix), end + len(delimiter)

    def _closing(self, at: int, delimiter: str) -> int:
        while True:
            end = self.text.find(delimiter, at)
            if end < 0:
                raise JustSyntax(f"unterminated string on line {self.line(at)}")
            if delimiter[0] != '"' or not _odd_backslashes(self.text, end):
                return end
            at = end + 1


def _odd_backslashes(text: str, end: int) -> bool:
    count = 0
    while end - count - 1 >= 0 and text[end - count - 1] == "\\":
        count += 1
    return count % 2 == 1


def _unescape(raw: str) -> str:
    out, at = [], 0
    while at < len(raw):
        char = raw[at]
        if char != "\\" or at + 1 >= len(raw):
            out.append(char)
            at += 1
            continue
        following = raw[at + 1]
        if following in _ESCAPES:
            out.append(_ESCAPES[following])
        elif following == "\n":  # a line continuation: the newline and the next line's indent go
            at += 2
            while at < len(raw) and raw[at] in " \t":
                at += 1
            continue
        elif following == "u" and (code := re.match(r"u\{([0-9A-Fa-f]{1,6})\}", raw[at + 1 :])):
            out.append(chr(min(int(code.group(1), 16), 0x10FFFF)))
            at += 1 + code.end()
            continue
        else:
            raise JustSyntax(f"unknown escape \\{following}")
        at += 2
    return "".join(out)


def unindent(text: str) -> str:
    """An indented string's value: a first line break dropped, the common indentation of its
    non-blank lines removed, a last line of blanks emptied."""
    lines = text.split("\n")
    if len(lines) > 1 and not lines[0].strip():
        lines = lines[1:]
    if lines and not lines[-1].strip():
        lines[-1] = ""
    indents = [len(line) - len(line.lstrip(" \t")) for line in lines if line.strip()]
    cut = min(indents, default=0)
    return "\n".join(line[cut:] if line.strip() else "" for line in lines)
