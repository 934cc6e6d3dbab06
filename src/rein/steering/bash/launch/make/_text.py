"""Text-level helpers for the GNU make reader: variable references' extent, searches and splits that
skip them, logical lines, comments, and telling a variable assignment from other lines. No
expansion happens here (see `_make_expand`)."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

_CLOSE = {"(": ")", "{": "}"}
_MODIFIERS = ("override", "export", "private", "unexport")


@dataclass(frozen=True, slots=True)
class Assignment:
    name: str
    """The variable name as written (it may hold references)."""
    op: str
    """`=`, `:=`, `::=`, `:::=`, `?=`, `+=` or `!=`."""
    value: str


def reference_end(text: str, at: int) -> int:
    """The index just past the reference starting with the `$` at `at`. GNU make matches only the
    bracket kind that opened it; an unterminated reference runs to the end."""
    if at + 1 >= len(text):
        return len(text)
    opener = text[at + 1]
    if opener not in _CLOSE:
        return at + 2
    closer, depth = _CLOSE[opener], 0
    for index in range(at + 1, len(text)):
        if text[index] == opener:
            depth += 1
        elif text[index] == closer:
            depth -= 1
            if not depth:
                return index + 1
    return len(text)


def find(text: str, chars: str, start: int = 0) -> int:
    """The first of `chars` in `text` outside variable references, or -1."""
    pattern = _searcher(chars)
    at = start
    while (found := pattern.search(text, at)) is not None:
        if found.group() != "$":
            return found.start()
        at = reference_end(text, found.start())
    return -1


@functools.cache
def _searcher(chars: str) -> re.Pattern[str]:
    return re.compile(f"[{re.escape('$' + chars)}]")


def split_arguments(text: str, most: int) -> list[str]:
    """A function call's arguments: split at commas outside any brackets, into at most `most`
    parts (the last one keeps its commas), or without limit when `most` is 0."""
    parts: list[str] = []
    depth, start = 0, 0
    for index, char in enumerate(text):
        if char in "({":
            depth += 1
        elif char in ")}":
            depth -= 1
        elif char == "," and not depth and (not most or len(parts) < most - 1):
            parts.append(text[start:index])
            start = index + 1
    return [*parts, text[start:]]


def odd_backslashes(text: str, end: int) -> bool:
    """Whether an odd number of backslashes ends `text[:end]` (so the next character is escaped)."""
    count = 0
    while end - count > 0 and text[end - count - 1] == "\\":
        count += 1
    return count % 2 == 1


def join_continued(lines: list[str], at: int) -> tuple[str, int]:
    """The logical line starting at physical line `at` and the index after it: a backslash-newline
    and the blanks around it become one space, as make reads lines outside recipes."""
    text, at = lines[at], at + 1
    while odd_backslashes(text, len(text)) and at < len(lines):
        text = text[:-1].rstrip() + " " + lines[at].lstrip()
        at += 1
    return text, at


def strip_comment(text: str) -> str:
    """The line without its comment: `#` to the end unless escaped (`\\#` is a `#`)."""
    out: list[str] = []
    for index, char in enumerate(text):
        if char == "#":
            if not odd_backslashes(text, index):
                break
            out[-1] = "#"
        else:
            out.append(char)
    return "".join(out)


def assignment(text: str) -> Assignment | None:
    """`text` as a variable assignment, read as GNU make's parse_variable_definition does: a name
    (references allowed, blanks only before the operator), then the operator."""
    at, blank = 0, False
    while at < len(text):
        char = text[at]
        if char == "$":
            at = reference_end(text, at)
            continue
        if char in " \t":
            blank, at = True, at + 1
            continue
        for op in (":::=", "::=", ":=", "+=", "?=", "!=", "="):
            if text.startswith(op, at):
                name = text[:at].strip()
                return Assignment(name, op, text[at + len(op) :].lstrip()) if name else None
        if blank or char in ":#;":
            return None
        at += 1
    return None


def modifiers(text: str) -> tuple[tuple[str, ...], str]:
    """The leading `override`, `export`, `private`, `unexport` words and the rest of the line."""
    found: list[str] = []
    while True:
        words = text.split(None, 1)
        if len(words) < 2 or words[0] not in _MODIFIERS:
            return tuple(found), text
        found.append(words[0])
        text = words[1]


def first_word(text: str) -> str:
    word = text.split(None, 1)
    return word[0] if word else ""


def split_commands(text: str) -> list[str]:
    """An expanded recipe line as the commands make runs: it splits at newlines (a multi-line
    variable), but a backslash-newline continues a command."""
    commands: list[str] = []
    start = 0
    for index, char in enumerate(text):
        if char == "\n" and not odd_backslashes(text, index):
            commands.append(text[start:index])
            start = index + 1
    return [*commands, text[start:]]
