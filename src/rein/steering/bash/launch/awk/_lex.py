"""The awk tokenizer: strings (with awk's escapes decoded), regex literals told apart from division by
the previous token as awk does, numbers, names, operators, newlines (awk's statement terminator);
comments and backslash-newline continuations are dropped. It reads POSIX awk with gawk's additions
(`|&`, `**`, `@name(...)`, `\\x` escapes); it does not parse: `_awk` reads the token stream."""

from __future__ import annotations

import re
from dataclasses import dataclass

KEYWORDS = frozenset({
    "BEGIN", "END", "BEGINFILE", "ENDFILE", "function", "func", "if", "else", "while", "for", "do",
    "break", "continue", "next", "nextfile", "exit", "return", "delete", "in", "getline", "print",
    "printf", "switch", "case", "default",
})  # fmt: skip
_REGEX_AFTER = KEYWORDS - {"getline"}
"""Keywords after which a `/` opens a regex (`print /x/`); after other names it divides."""
_NUMBER = re.compile(r"0[xX][0-9a-fA-F]+|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_OPERATORS = (
    "**=", "+=", "-=", "*=", "/=", "%=", "^=", "==", "<=", ">=", "!=", "++", "--", "&&", "||", ">>",
    "!~", "|&", "**", "{", "}", "(", ")", "[", "]", ";", ",", "+", "-", "*", "/", "%", "^", "!", ">",
    "<", "|", "?", ":", "~", "$", "=", "@",
)  # fmt: skip
_OPERATOR = re.compile("|".join(re.escape(operator) for operator in _OPERATORS))
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "a": "\a", "b": "\b", "f": "\f", "v": "\v", "\\": "\\"}
_OCTAL = "01234567"
_HEX = "0123456789abcdefABCDEF"


@dataclass(frozen=True, slots=True)
class Token:
    kind: str
    """"str" (text is the decoded value), "num", "name", "regex", "op", "nl"."""
    text: str
    line: int


@dataclass(frozen=True, slots=True)
class Lexed:
    tokens: tuple[Token, ...]
    error: int
    """The line of the first thing awk would reject (an unterminated string), 0 when none."""


def _regex_allowed(previous: Token | None) -> bool:
    if previous is None or previous.kind == "nl":
        return True
    if previous.kind == "op":
        return previous.text not in (")", "]", "$", "++", "--")
    return previous.kind == "name" and previous.text in _REGEX_AFTER


def tokenize(text: str) -> Lexed:
    tokens: list[Token] = []
    at, line, error, size = 0, 1, 0, len(text)
    while at < size:
        char = text[at]
        previous = tokens[-1] if tokens else None
        if char in " \t\r\f\v":
            at += 1
        elif char == "\\" and text.startswith(("\n", "\r\n"), at + 1):
            at = text.index("\n", at) + 1
            line += 1
        elif char == "\n":
            tokens.append(Token("nl", "\n", line))
            at, line = at + 1, line + 1
        elif char == "#":
            end = text.find("\n", at)
            at = size if end < 0 else end
        elif char == '"':
            value, at, lines, closed = _string(text, at + 1)
            tokens.append(Token("str", value, line))
            line += lines
            error = error or (0 if closed else line)
        elif char == "/" and _regex_allowed(previous):
            at, closed = _regex(text, at + 1)
            tokens.append(Token("regex", "", line))
            error = error or (0 if closed else line)
        elif (number := _NUMBER.match(text, at)) is not None:
            tokens.append(Token("num", number.group(), line))
            at = number.end()
        elif (name := _NAME.match(text, at)) is not None:
            tokens.append(Token("name", name.group(), line))
            at = name.end()
        else:
            operator = _OPERATOR.match(text, at)
            if operator is None:  # a character awk has no use for outside strings
                error = error or line
                at += 1
                continue
            tokens.append(Token("op", operator.group(), line))
            at = operator.end()
    return Lexed(tuple(tokens), error)


def _string(text: str, at: int) -> tuple[str, int, int, bool]:
    """The decoded string from `at` (after the opening quote): value, end, newlines crossed, closed."""
    out: list[str] = []
    lines, size = 0, len(text)
    while at < size:
        char = text[at]
        if char == '"':
            return "".join(out), at + 1, lines, True
        if char == "\n":
            return "".join(out), at, lines, False
        if char != "\\" or at + 1 >= size:
            out.append(char)
            at += 1
            continue
        escaped = text[at + 1]
        at += 2
        if escaped == "\n":  # gawk continues a string across a backslash-newline
            lines += 1
        elif escaped in _ESCAPES:
            out.append(_ESCAPES[escaped])
        elif escaped in _OCTAL:
            digits = escaped
            while len(digits) < 3 and at < size and text[at] in _OCTAL:
                digits, at = digits + text[at], at + 1
            out.append(chr(int(digits, 8) & 0xFF))
        elif escaped == "x" and at < size and text[at] in _HEX:
            digits = text[at]
            at += 1
            if at < size and text[at] in _HEX:
                digits, at = digits + text[at], at + 1
            out.append(chr(int(digits, 16)))
        else:  # `\"`, `\/`, and gawk keeps the character of an unknown escape
            out.append(escaped)
    return "".join(out), at, lines, False


def _regex(text: str, at: int) -> tuple[int, bool]:
    """The end of the regex literal from `at` (after the opening slash), and whether it closed."""
    size = len(text)
    while at < size:
        char = text[at]
        if char == "/":
            return at + 1, True
        if char == "\n":
            return at, False
        if char == "\\":
            at += 2
        elif char == "[":
            at = _bracket(text, at + 1)
        else:
            at += 1
    return at, False


def _bracket(text: str, at: int) -> int:
    """The end of a bracket expression from `at` (after `[`): a `/` inside it does not end the regex."""
    size = len(text)
    if at < size and text[at] == "^":
        at += 1
    if at < size and text[at] == "]":
        at += 1
    while at < size and text[at] not in "]\n":
        if text.startswith(("[:", "[.", "[="), at):
            close = text.find(text[at + 1] + "]", at + 2)
            at = close + 2 if close >= 0 else at + 1
        elif text[at] == "\\":
            at += 2
        else:
            at += 1
    return at + 1 if at < size and text[at] == "]" else at
