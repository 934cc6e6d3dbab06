"""Python values rein can know without running a program, and the pure operations on them.

A value is text (a string whose parts may be built at run time), the home directory, a sequence of
values, or a constant; None is a value built at run time. The operations are what the program's own
code does to literals: concatenation, `%` and `str.format`, `str.join`, `shlex`, path joins. This
module reads no syntax: `_python_scope` evaluates expressions to these values.
"""

from __future__ import annotations

import posixpath
import re
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath
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
    """The home directory followed by `rest` (`os.path.expanduser("~/x")` is `Home("/x")`)."""

    rest: str = ""


@dataclass(frozen=True, slots=True)
class Seq:
    """A list or tuple; `open` when a starred part makes its length unknown."""

    items: tuple[Value, ...]
    open: bool = False


@dataclass(frozen=True, slots=True)
class Const:
    """A constant that is not a string: what `shell=True` is given."""

    value: bool | int | float | complex | None


Value: TypeAlias = "Text | Home | Seq | Const | None"
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
    directory in a shell text is a path rein does not know)."""
    return value if isinstance(value, Text) else RUNTIME_TEXT


def word(value: Value) -> str | None:
    """`value` as one argv element: the home directory is written `~` or `~/x`, which the caller keeps
    unquoted so the walker expands it."""
    if isinstance(value, Text):
        return value.known
    if isinstance(value, Home) and (not value.rest or value.rest.startswith("/")):
        return "~" + value.rest
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
    return True if isinstance(value, Home) else None


def concat(left: Value, right: Value) -> Value:
    """`left + right`: strings and lists concatenate; a part built at run time stays one."""
    if isinstance(left, Seq) or isinstance(right, Seq):
        if isinstance(left, Seq) and isinstance(right, Seq) and len(left.items) + len(right.items) <= ITEMS:
            return Seq(left.items + right.items, left.open or right.open)
        return Seq(left.items, True) if isinstance(left, Seq) else Seq((), True)
    if isinstance(left, Home) and isinstance(right, Text) and right.known is not None:
        return Home(left.rest + right.known)
    if (left is None and right is None) or isinstance(left, Const) or isinstance(right, Const):
        return None
    return text(*as_text(left).parts, *as_text(right).parts)


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


def path_join(values: Sequence[Value]) -> Value:
    """`os.path.join(...)`: an absolute part starts over, so one built at run time before it does not
    matter."""
    out: Value = Text(("",))
    for value in values:
        known = value.known if isinstance(value, Text) else None
        if isinstance(value, Home) or (known is not None and known.startswith("/")):
            out = value
        elif known is None or out is None:
            out = None
        elif isinstance(out, Home):
            out = Home(posixpath.join("~" + out.rest, known)[1:])
        elif isinstance(out, Text) and out.known is not None:
            out = Text((posixpath.join(out.known, known),))
    return out


def pure_path(values: Sequence[Value]) -> Value:
    """`pathlib.Path(...)`: joined, then normalised as pathlib does (`Path("/a/")` is `/a`)."""
    joined_path = path_join(values) if values else Text((".",))
    if isinstance(joined_path, Home):
        return Home(str(PurePosixPath("~" + joined_path.rest))[1:])
    if isinstance(joined_path, Text) and joined_path.known is not None:
        return Text((str(PurePosixPath(joined_path.known)),))
    return None


def expanduser(value: Value) -> Value:
    known = value.known if isinstance(value, Text) else None
    if known is not None and (known == "~" or known.startswith("~/")):
        return Home(known[1:])
    return None if known is not None and known.startswith("~") else value


def normpath(value: Value) -> Value:
    """`os.path.normpath`, and `abspath`: a relative path names the same file relative to the working
    directory as the command rein checks runs in."""
    if isinstance(value, Home):
        normal = posixpath.normpath("~" + value.rest)
        return Home(normal[1:]) if normal == "~" or normal.startswith("~/") else None
    known = value.known if isinstance(value, Text) else None
    return None if known is None else Text((posixpath.normpath(known),))


def environ(name: Value, env: Mapping[str, str]) -> Value:
    """`os.environ[name]`: its value when the command line set it; the home directory for HOME."""
    key = as_text(name).known
    if key is not None and key in env:
        return Text((env[key],))
    return Home() if key == "HOME" else None
