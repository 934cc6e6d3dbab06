"""JavaScript string values as the JavaScript reader sees them: literal text with holes.

A value is a tuple of parts: known text, the user's home directory (`os.homedir()`, `process.env.HOME`),
the working directory, an entry of a listed directory, or a part built at run time. This module
decodes JavaScript's string escapes and renders a value for a shell line (`_paths` renders paths). It
does not read the syntax tree (the scope does that).
"""

from __future__ import annotations

import enum
import re
from collections.abc import Iterable
from dataclasses import dataclass

from rein.steering.bash.launch._launch import RUNTIME


class Hole(enum.Enum):
    """A part of a value that is not literal text."""

    HOME = "home"
    """The user's home directory: written `$HOME`."""
    CWD = "cwd"
    """The working directory (`process.cwd()`): `.` in a path, `$PWD` in a shell line."""
    RUNTIME = "runtime"
    """A part built at run time."""


@dataclass(frozen=True, slots=True)
class Entry:
    """Any entry of a listed directory (`f` of `fs.readdirSync(dir)`): joined back to `dir`, the glob
    `dir/*`; anything else built at run time."""

    dir: tuple[str | Hole, ...]


Part = str | Hole | Entry
Parts = tuple[Part, ...]
UNKNOWN: Parts = (Hole.RUNTIME,)


@dataclass(frozen=True, slots=True)
class Items:
    """The elements of an array value; `open` when a spread or a value built at run time makes its
    length unknown."""

    items: tuple[Parts, ...]
    open: bool = False


def concat(values: Iterable[Parts]) -> Parts:
    """The values one after the other, adjacent texts merged."""
    out: list[Part] = []
    for value in values:
        for part in value:
            if isinstance(part, str) and out and isinstance(out[-1], str):
                out[-1] += part
            elif part != "":
                out.append(part)
    return tuple(out) if out else ("",)


def literal(value: Parts) -> str | None:
    """The text of a fully known value."""
    texts = [part for part in value if isinstance(part, str)]
    return "".join(texts) if len(texts) == len(value) else None


def as_shell(value: Parts) -> tuple[str, bool]:
    """The value as shell text (`RUNTIME` for each part built at run time, `$HOME` for home, `$PWD`
    for the working directory), and whether any part is built at run time."""
    out: list[str] = []
    runtime = False
    for index, part in enumerate(value):
        if isinstance(part, str):
            out.append(part)
        elif part in (Hole.HOME, Hole.CWD):
            after = value[index + 1] if index + 1 < len(value) else ""
            glued = isinstance(after, str) and (after[:1].isalnum() or after[:1] == "_")
            name = "HOME" if part is Hole.HOME else "PWD"
            out.append("${" + name + "}" if glued else "$" + name)  # `$HOMEx` would be another variable
        else:
            out.append(RUNTIME)
            runtime = True
    return "".join(out), runtime


_ESCAPE = re.compile(
    r"\\(u\{[0-9a-fA-F]+\}|u[0-9a-fA-F]{4}|x[0-9a-fA-F]{2}|[0-3][0-7]{0,2}|[4-7][0-7]?|\r\n|[\s\S])"
)
_SIMPLE = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "v": "\v"}
_CONTINUATIONS = frozenset({"\n", "\r", "\r\n", "\u2028", "\u2029"})


def _escape(match: re.Match[str]) -> str:
    body = match.group(1)
    if body[0] == "u" and len(body) > 1:
        code = int(body[2:-1] if body[1] == "{" else body[1:], 16)
        return chr(code) if code <= 0x10FFFF else "\ufffd"
    if body[0] == "x" and len(body) == 3:
        return chr(int(body[1:], 16))
    if body[0] in "01234567":
        return chr(int(body, 8))  # `\0`, and the legacy octal escapes of sloppy-mode strings
    if body in _CONTINUATIONS:
        return ""
    return _SIMPLE.get(body, body)


def decode(body: str) -> str:
    """The value of a string literal's body (between its quotes) or a template's text."""
    if "\\" not in body:
        return body
    out = _ESCAPE.sub(_escape, body)
    if any("\ud800" <= char <= "\udfff" for char in out):  # `\uD83D\uDE00`: a surrogate pair is one char
        out = out.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    return out
