"""Python values rein can know without running a program, and the pure operations on them.

A value is text (a string whose parts may be built at run time), the home directory, a sequence of
values, a dict, a glob (each entry a directory listing yields), or a constant; None is a value built at
run time. The operations are what the program's own code does to literals: concatenation, `%` and
`str.format`, `str.join`, `shlex`. Paths are `_paths`'s. This module reads no syntax: `_scope`
evaluates expressions to these values.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TypeAlias

from rein.steering.bash.launch._launch import RUNTIME


@dataclass(frozen=True, slots=True)
class Text:
    """A string; a None part is built at run time."""

    parts: tuple[str | None, ...]

    @property
    def known(self) -> str | None:
        """The whole string, when no part is built at run time."""
        out = ""
        for part in self.parts:
            if part is None:
                return None
            out += part
        return out

    @property
    def shell(self) -> str:
        return "".join(RUNTIME if part is None else part for part in self.parts)


@dataclass(frozen=True, slots=True)
class Home:
    """The home directory followed by `rest` (`os.path.expanduser("~/x")` is `Home("/x")`); `rest` may
    climb above it (`Path.home().parent` is `Home("/..")`)."""

    rest: str = ""


@dataclass(frozen=True, slots=True)
class Glob:
    """Each path a directory listing or `glob.glob` yields, written as the shell pattern that matches
    them all (`os.listdir(d)` yields `Glob(Text(("*",)))`); `path` is a known text or the home dir."""

    path: Text | Home


@dataclass(frozen=True, slots=True)
class Seq:
    """A list or tuple; `open` when a part of unknown length follows `items` (`["git", *args]`): the
    items after such a part are not kept, as their positions are unknown."""

    items: tuple[Value, ...]
    open: bool = False


@dataclass(frozen=True, slots=True)
class Dict:
    """A dict display whose keys and values rein evaluated; later pairs win."""

    pairs: tuple[tuple[Value, Value], ...]

    def get(self, key: Value) -> Value:
        """The value at `key`; None when it is missing or a key is built at run time."""
        for known, value in reversed(self.pairs):
            if known == key:
                return value
            if not isinstance(known, Text | Const) or (isinstance(known, Text) and known.known is None):
                return None
        return None


@dataclass(frozen=True, slots=True)
class Const:
    """A constant that is not a string: what `shell=True` is given."""

    value: bool | int | float | complex | None


Value: TypeAlias = "Text | Home | Glob | Seq | Dict | Const | None"
RUNTIME_TEXT = Text((None,))
LENGTH = 100_000
"""The longest text rein builds: constants that double each other grow exponentially."""
ITEMS = 4_096
"""The most items of a sequence rein builds."""
_PERCENT = re.compile(r"%(\([^)]*\))?([#0\- +]*)(\*|\d+)?(?:\.(\*|\d+))?[hlL]?([a-zA-Z%])")
_BRACE = re.compile(r"\{\{|\}\}|\{([^{}!:]*)(?:!([rsa]))?(?::([^{}]*))?\}")


def constant(value: object) -> Value:
    """The value of a literal."""
    if isinstance(value, str):
        return Text((value,))
    if isinstance(value, bytes):
        return Text((value.decode("utf-8", "surrogateescape"),))
    if value is None or isinstance(value, bool | int | float | complex):
        return Const(value)
    return None


def text(*parts: str | None) -> Text:
    """A text with adjacent known parts merged, and adjacent unknown ones (one unknown is as good)."""
    merged: list[str | None] = []
    for part in parts:
        if part == "":
            continue
        if merged and part is not None and merged[-1] is not None:
            merged[-1] = merged[-1] + part
        elif not (merged and part is None and merged[-1] is None):
            merged.append(part)
    if sum(len(part) for part in merged if part is not None) > LENGTH:
        return RUNTIME_TEXT
    return Text(tuple(merged))


def as_text(value: Value) -> Text:
    """`value` where a string is expected: anything but text is built at run time there (the home
    directory in a shell text is a path rein does not know); a glob of known text is its pattern, which
    a shell expands to every match."""
    if isinstance(value, Glob) and isinstance(value.path, Text):
        return value.path
    return value if isinstance(value, Text) else RUNTIME_TEXT


def word(value: Value) -> str | None:
    """`value` as one argv element. The home directory is written `$HOME` or `$HOME/x`, which the caller
    keeps unquoted so the walker expands it; a literal that starts so is a relative path Python does not
    expand, written `./$HOME` so it stays one. A glob is no one word: None."""
    if isinstance(value, Text):
        known = value.known
        if known is not None and known.startswith("$HOME") and known[5:6] in ("", "/"):
            return "./" + known
        return known
    if isinstance(value, Home) and (not value.rest or value.rest.startswith("/")):
        return "$HOME" + value.rest
    return None


def truth(value: Value) -> bool | None:
    """Whether `value` is true, None when that is only known at run time."""
    if isinstance(value, Const):
        return bool(value.value)
    if isinstance(value, Text):
        known = value.known
        return None if known is None else bool(known)
    if isinstance(value, Seq):
        return True if value.items else None if value.open else False
    if isinstance(value, Dict):
        return bool(value.pairs)
    return True if isinstance(value, Home) else None


def concat(left: Value, right: Value) -> Value:
    """`left + right`: strings and lists concatenate; a part built at run time stays one."""
    if isinstance(left, Seq) or isinstance(right, Seq):
        if not isinstance(left, Seq):
            return Seq((), True)
        if left.open:
            return left
        if isinstance(right, Seq) and len(left.items) + len(right.items) <= ITEMS:
            return Seq(left.items + right.items, right.open)
        return Seq(left.items, True)
    if isinstance(left, Home) and isinstance(right, Text) and right.known is not None:
        return Home(left.rest + right.known)
    if isinstance(left, Text) and left.known == "" and isinstance(right, Home | Glob):
        return right
    if isinstance(left, Glob) or isinstance(right, Glob):
        return _glob_concat(left, right)
    if (left is None and right is None) or isinstance(left, Const | Dict) or isinstance(right, Const | Dict):
        return None
    return text(*as_text(left).parts, *as_text(right).parts)


def _glob_concat(left: Value, right: Value) -> Value:
    """`glob + "/x"`, `"/dir/" + name`: the pattern extended by known text."""
    if isinstance(left, Glob) and isinstance(right, Text) and right.known is not None:
        path = left.path
        return Glob(
            Home(path.rest + right.known) if isinstance(path, Home) else text(path.known, right.known)
        )
    if isinstance(left, Text | Home) and isinstance(right, Glob) and isinstance(right.path, Text):
        joined = concat(left, right.path)
        return (
            Glob(joined) if isinstance(joined, Home) or (isinstance(joined, Text) and joined.known) else None
        )
    return None


def convert(value: Value, conversion: str) -> str | None:
    """`value` formatted with the conversion `s`, `r`, `a` (or `%d`), None when built at run time."""
    if isinstance(value, Const) and conversion in "sd" and isinstance(value.value, int):
        return str(int(value.value) if conversion == "d" else value.value)
    known = as_text(value).known
    if known is None:
        return None
    return repr(known) if conversion == "r" else ascii(known) if conversion == "a" else known


def percent(template: Text, arguments: Value) -> Text:
    """`template % arguments`. A conversion with flags, a width or a name is built at run time."""
    known = template.known
    if known is None:
        return RUNTIME_TEXT
    values = list(arguments.items) if isinstance(arguments, Seq) and not arguments.open else [arguments]
    parts: list[str | None] = []
    position = index = 0
    for match in _PERCENT.finditer(known):
        parts.append(known[position : match.start()])
        position = match.end()
        name, flags, width, precision, conversion = match.groups()
        if conversion == "%":
            parts.append("%")
            continue
        value = values[index] if index < len(values) and not name else None
        index += 1
        plain = not (flags or width or precision) and conversion in "srad"
        parts.append(convert(value, conversion) if plain else None)
    return text(*parts, known[position:])


def formatted(template: Text, arguments: Sequence[Value], keywords: Mapping[str, Value]) -> Text:
    """`template.format(...)`. A field with a format spec, an attribute or an index is built at run
    time."""
    known = template.known
    if known is None:
        return RUNTIME_TEXT
    parts: list[str | None] = []
    position = automatic = 0
    for match in _BRACE.finditer(known):
        parts.append(known[position : match.start()])
        position = match.end()
        if match.group() in ("{{", "}}"):
            parts.append(match.group()[0])
            continue
        field, conversion, spec = match.groups()
        value: Value = None
        if field == "":
            value = arguments[automatic] if automatic < len(arguments) else None
            automatic += 1
        elif field.isdecimal():
            value = arguments[int(field)] if int(field) < len(arguments) else None
        elif field.isidentifier():
            value = keywords.get(field)
        parts.append(None if spec else convert(value, conversion or "s"))
    return text(*parts, known[position:])


def joined(separator: Text, items: Value, quote: bool = False) -> Text:
    """`separator.join(items)`, or `shlex.join(items)` when `quote`."""
    if not isinstance(items, Seq) or separator.known is None:
        return RUNTIME_TEXT
    parts: list[str | None] = []
    for index, item in enumerate(items.items):
        parts.append(separator.known if index else "")
        known = as_text(item).known
        if quote:
            parts.append(None if known is None else shlex.quote(known))
        else:
            parts.extend(as_text(item).parts)
    return text(*parts, *((separator.known if items.items else "", None) if items.open else ()))


def split(value: Value, separator: str | None = None, shell: bool = False) -> Value:
    """`value.split(separator)`, or `shlex.split(value)` when `shell`."""
    known = as_text(value).known
    if known is None:
        return None
    try:
        words = shlex.split(known) if shell else known.split(separator)
    except ValueError:
        return None
    return Seq(tuple(Text((item,)) for item in words[:ITEMS]), len(words) > ITEMS)


def environ(name: Value, env: Mapping[str, str]) -> Value:
    """`os.environ[name]`: its value when the command line set it; the home directory for HOME."""
    key = as_text(name).known
    if key is not None and key in env:
        return Text((env[key],))
    return Home() if key == "HOME" else None
