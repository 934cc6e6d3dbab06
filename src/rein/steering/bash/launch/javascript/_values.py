"""JavaScript string values as the JavaScript reader sees them: literal text with holes.

A value is a tuple of parts: known text, the user's home directory (`os.homedir()`, `process.env.HOME`),
or a part built at run time. This module decodes JavaScript's string escapes, joins paths the way
node's `path.join` does, and renders a value for a shell line or an argv. It does not read the syntax
tree (the scope does that).
"""

from __future__ import annotations

import enum
import posixpath
import re
import shlex
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from rein.steering.bash.launch._launch import RUNTIME


class Hole(enum.Enum):
    """A part of a value that is not literal text."""

    HOME = "home"
    """The user's home directory: written `~` in a path and `$HOME` in a shell line."""
    RUNTIME = "runtime"
    """A part built at run time."""


Part = str | Hole
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


def as_path(value: Parts) -> str | None:
    """A path for an argv: literal text, or home written `~` / `~/rest`; None when built at run time."""
    known = literal(value)
    if known is not None:
        return known
    if value[0] is Hole.HOME:
        rest = literal(value[1:]) if len(value) > 1 else ""
        if rest is not None and (not rest or rest.startswith("/")):
            return "~" + rest
    return None


def as_shell(value: Parts) -> tuple[str, bool]:
    """The value as shell text (`RUNTIME` for each part built at run time, `$HOME` for home), and
    whether any part is built at run time."""
    runtime = Hole.RUNTIME in value
    text = "".join(
        part if isinstance(part, str) else RUNTIME if part is Hole.RUNTIME else "$HOME" for part in value
    )
    return text, runtime


def shell_word(value: str | None) -> str:
    """An argv element quoted as one shell word; None (built at run time) is an unknown variable."""
    if value is None:
        return f'"{RUNTIME}"'
    if value == "~" or value.startswith("~/"):
        return "~" + shlex.quote(value[1:]) if len(value) > 1 else "~"
    return shlex.quote(value)


def join_path(args: Sequence[Parts], resolve: bool) -> Parts:
    """`path.join(...)` (or `path.resolve(...)`, where an absolute part starts over) of the values."""
    if resolve:
        for index in range(len(args) - 1, -1, -1):
            first = args[index][0]
            if first is Hole.HOME or (isinstance(first, str) and first.startswith("/")):
                args = args[index:]
                break
    texts = [literal(arg) for arg in args]
    if all(text is not None for text in texts):
        joined = "/".join(text for text in texts if text)
        return (posixpath.normpath(joined).replace("//", "/") if joined else ".",)
    if args and args[0] == (Hole.HOME,) and all(text is not None for text in texts[1:]):
        rest = "/".join(text for text in texts[1:] if text)
        return (Hole.HOME, "/" + rest) if rest else (Hole.HOME,)
    return UNKNOWN


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
