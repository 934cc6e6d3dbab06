"""Tcl's twelve rules, as far as rein needs them: a script is commands separated by newlines and `;`,
a command is words, a word is braced (`{...}`, literal), quoted (`"..."`) or bare, with `$var`,
`[script]` and backslash substitution in the last two, and `{*}` expanding a word into many.

A substituted part is built at run time; a bracketed script is read as a script too, and so is every
braced word (bodies of `if`, `proc`, `foreach`, `catch` are braced words: reading all of them finds
their commands wherever they are).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from rein.steering.bash.launch._folding import RUNTIME_VALUE, Value, char, literal

MAX_WORDS = 50_000
"""Past this many words in one program the rest is not read (the reader then fails closed)."""


@dataclass(frozen=True, slots=True)
class TclWord:
    value: Value
    braced: bool = False
    expand: bool = False
    """`{*}word`: any number of words."""


@dataclass(slots=True)
class Command:
    words: list[TclWord]
    line: int
    scripts: list[tuple[str, int]] = field(default_factory=list)
    """Bracketed scripts in its words (`[exec ls]`), with their lines: read as scripts."""


_BARE = re.compile(r'[^\\\[$" \t\r\n;]+')
_QUOTED = re.compile(r'[^\\\[$"]+')
_BACKSLASH = {"a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v"}


class Parser:
    """Splits a script into commands; `overflow` says it stopped before the end."""

    __slots__ = ("count", "overflow", "pos", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0
        self.count = 0
        self.overflow = False

    def commands(self, line: int = 1) -> list[Command]:
        text = self.text
        found: list[Command] = []
        counted = self.pos
        while self.pos < len(text):
            char_ = text[self.pos]
            if char_ in " \t\r\n;" or text.startswith("\\\n", self.pos):
                self.pos += 2 if char_ == "\\" else 1
                continue
            if char_ == "#":
                self._comment()
                continue
            line += text.count("\n", counted, self.pos)
            counted = self.pos
            command = Command([], line)
            self._command(command)
            if command.words:
                found.append(command)
            if self.count > MAX_WORDS:
                self.overflow = True
                break
        return found

    def _comment(self) -> None:
        text = self.text
        while self.pos < len(text) and text[self.pos] != "\n":
            self.pos += 2 if text[self.pos] == "\\" else 1

    def _command(self, command: Command) -> None:
        text = self.text
        while self.pos < len(text):
            char_ = text[self.pos]
            if char_ in "\n;":
                self.pos += 1
                return
            if char_ in " \t\r" or text.startswith("\\\n", self.pos):
                self.pos += 2 if char_ == "\\" else 1
                continue
            command.words.append(self._word(command))
            self.count += 1

    def _word(self, command: Command) -> TclWord:
        text = self.text
        expand = (
            text.startswith("{*}", self.pos)
            and self.pos + 3 < len(text)
            and text[self.pos + 3] not in " \t\n;"
        )
        if expand:
            self.pos += 3
        if text.startswith("{", self.pos):
            end = _brace_end(text, self.pos)
            body = text[self.pos + 1 : end].replace("\\\n", " ")
            self.pos = min(end + 1, len(text))
            return TclWord(literal(body), braced=True, expand=expand)
        if text.startswith('"', self.pos):
            self.pos += 1
            value = self._substituted(command, '"')
            self.pos += 1
            return TclWord(value, expand=expand)
        return TclWord(self._substituted(command, ""), expand=expand)

    def _substituted(self, command: Command, quote: str) -> Value:
        """A quoted (up to `"`) or bare (up to a blank or the command's end) word, substituted."""
        text = self.text
        value = Value()
        while self.pos < len(text):
            char_ = text[self.pos]
            if (quote and char_ == '"') or (not quote and char_ in " \t\r\n;"):
                break
            if char_ == "\\":
                escaped, self.pos = _backslash(text, self.pos)
                value = value + literal(escaped)
            elif char_ == "[":
                end = _bracket_end(text, self.pos)
                script = text[self.pos + 1 : end]
                listed = _list(script)
                if listed is None:
                    command.scripts.append((script, command.line))
                value = value + (RUNTIME_VALUE if listed is None else literal(listed))
                self.pos = min(end + 1, len(text))
            elif (
                char_ == "$"
                and self.pos + 1 < len(text)
                and (text[self.pos + 1].isalnum() or text[self.pos + 1] in "_{:")
            ):
                self.pos = _variable_end(text, self.pos + 1)
                value = value + RUNTIME_VALUE
            else:
                run = (_QUOTED if quote else _BARE).match(text, self.pos)
                piece = run.group() if run else char_
                value = value + literal(piece)
                self.pos += len(piece)
        return value


def _list(script: str) -> str | None:
    """What `[list a b c]` of literal words substitutes: the list, its elements braced where needed."""
    if not script.lstrip().startswith("list"):
        return None
    commands = Parser(script).commands()
    if len(commands) != 1 or commands[0].words[0].value.text != "list" or commands[0].scripts:
        return None
    words = [word.value.text for word in commands[0].words[1:]]
    if any(word is None for word in words):
        return None
    return " ".join(
        f"{{{word}}}" if not word or any(c in word for c in ' \t\n{}"\\$[];') else word
        for word in words
        if word is not None
    )


def _brace_end(text: str, pos: int) -> int:
    depth = 0
    while pos < len(text):
        char_ = text[pos]
        if char_ == "\\":
            pos += 2
            continue
        depth += (char_ == "{") - (char_ == "}")
        if depth == 0:
            return pos
        pos += 1
    return len(text)


def _bracket_end(text: str, pos: int) -> int:
    depth = 0
    while pos < len(text):
        char_ = text[pos]
        if char_ == "\\":
            pos += 2
            continue
        if char_ == "{" and depth:
            pos = _brace_end(text, pos) + 1
            continue
        depth += (char_ == "[") - (char_ == "]")
        if depth == 0:
            return pos
        pos += 1
    return len(text)


def _variable_end(text: str, pos: int) -> int:
    if text[pos] == "{":
        close = text.find("}", pos)
        return len(text) if close < 0 else close + 1
    while pos < len(text) and (text[pos].isalnum() or text[pos] == "_" or text.startswith("::", pos)):
        pos += 2 if text[pos] == ":" else 1
    if pos < len(text) and text[pos] == "(":
        close = text.find(")", pos)
        return len(text) if close < 0 else close + 1
    return pos


def _backslash(text: str, pos: int) -> tuple[str, int]:
    nxt = text[pos + 1] if pos + 1 < len(text) else ""
    if nxt == "\n":
        end = pos + 2
        while end < len(text) and text[end] in " \t":
            end += 1
        return " ", end
    if nxt in _BACKSLASH:
        return _BACKSLASH[nxt], pos + 2
    if nxt in {"x", "u"}:
        size = 2 if nxt == "x" else 4
        digits = ""
        while (
            len(digits) < size
            and pos + 2 + len(digits) < len(text)
            and text[pos + 2 + len(digits)] in "0123456789abcdefABCDEF"
        ):
            digits += text[pos + 2 + len(digits)]
        if digits:
            return char(int(digits, 16)), pos + 2 + len(digits)
    if nxt.isdigit() and nxt in "01234567":
        digits = nxt
        while (
            len(digits) < 3
            and pos + 1 + len(digits) < len(text)
            and text[pos + 1 + len(digits)] in "01234567"
        ):
            digits += text[pos + 1 + len(digits)]
        return char(int(digits, 8)), pos + 1 + len(digits)
    return nxt, pos + 2
