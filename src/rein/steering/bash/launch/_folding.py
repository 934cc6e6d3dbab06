"""What the Ruby, Perl and PHP readers share: a folded string value (literal text with holes for parts
built at run time and for the home directory), the launches built from such values, the variables
assigned once from a literal, and the unknown launch for a program that does not parse.

It reads no program itself: each language folds its own syntax into `Value`s and calls these.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from enum import Enum
from typing import Generic, TypeVar

from rein.steering.bash.launch._launch import RUNTIME, Launch
from rein.steering.bash.launch._tree import Node

MAX_DEPTH = 8
"""How deep `eval` of a literal string is read; deeper is one unknown launch."""
MAX_TEXT = 1 << 16
"""A folded string longer than this is treated as built at run time (`"a" * 10**9`-like growth)."""
MAX_PARTS = 1 << 10
"""A folded string of more parts than this is treated as built at run time."""
MAX_ITEMS = 1 << 12
"""A folded list longer than this is treated as built at run time."""
T = TypeVar("T")


class Mark(Enum):
    RUNTIME = "runtime"
    """A part only known at run time."""
    HOME = "home"
    """The home directory (`Dir.home`, `$ENV{HOME}`, `getenv('HOME')`)."""


Part = str | Mark


@dataclass(frozen=True, slots=True)
class Value:
    """A string as far as it is known statically: literal parts and marks, in order."""

    parts: tuple[Part, ...] = ()
    spread: bool = False
    """A list element that stands for any number of elements (`@args`, `*args`)."""

    def __add__(self, other: Value) -> Value:
        parts = list(self.parts)
        for part in other.parts:
            if parts and isinstance(part, str) and isinstance(parts[-1], str):
                parts[-1] += part
            elif not parts or part is not Mark.RUNTIME or parts[-1] is not Mark.RUNTIME:
                parts.append(part)  # two run-time parts in a row are one
        if len(parts) > MAX_PARTS or sum(len(part) for part in parts if isinstance(part, str)) > MAX_TEXT:
            return RUNTIME_VALUE
        return Value(tuple(parts))

    @property
    def text(self) -> str | None:
        """The whole string when it is a literal."""
        if all(isinstance(part, str) for part in self.parts):
            return "".join(str(part) for part in self.parts)
        return None

    @property
    def opaque(self) -> bool:
        """Nothing about it is known (a plain variable, a call's result)."""
        return self.spread or (Mark.RUNTIME in self.parts and not any(isinstance(p, str) for p in self.parts))

    def arg(self) -> str | None:
        """As one argv element: a literal, or home written `~` / `~/rest` (the caller keeps a leading
        `~/` unquoted so the walker expands it); None for anything else."""
        if self.spread:
            return None
        head, rest = (self.parts[0], Value(self.parts[1:]).text) if self.parts else ("", "")
        if head is Mark.HOME and rest is not None and (not rest or rest.startswith("/")):
            return "~" + rest
        return self.text

    def shell(self) -> tuple[str, bool]:
        """As a shell command line: home is `$HOME`, a run-time part `RUNTIME`; and whether any part is
        unknown (home inside single quotes too: the shell would not expand `$HOME` there)."""
        out: list[str] = []
        unknown, quote = False, ""
        for index, part in enumerate(self.parts):
            if isinstance(part, str):
                out.append(part)
                quote = _quoting(part, quote)
            elif part is Mark.HOME and quote != "'":
                after = self.parts[index + 1] if index + 1 < len(self.parts) else ""
                glued = isinstance(after, str) and (after[:1].isalnum() or after[:1] == "_")
                out.append("${HOME}" if glued else "$HOME")  # `$HOMEx` would be another variable
            else:
                out.append(RUNTIME)
                unknown = True
        return "".join(out), unknown


RUNTIME_VALUE = Value((Mark.RUNTIME,))
HOME_VALUE = Value((Mark.HOME,))
SPREAD = Value((Mark.RUNTIME,), spread=True)


def literal(text: str) -> Value:
    return Value((text,) if text else ())


def _quoting(text: str, quote: str) -> str:
    """The shell quote state ("", "'" or '"') after `text`, starting in `quote`."""
    escaped = False
    for char in text:
        if escaped:
            escaped = False
        elif char == "\\" and quote != "'":
            escaped = True
        elif char in "'\"" and quote in ("", char):
            quote = "" if quote else char
    return quote


def line(node: Node) -> int:
    return node.start_point.row + 1


def shell_launch(api: str, value: Value, at: int) -> Launch:
    """`value` run by a shell."""
    if value.opaque:
        return Launch(api=api, unknown=f"{api} is called with a value built at run time", line=at)
    text, unknown = value.shell()
    why = f"{api} is called with a value built at run time" if unknown else ""
    return Launch(api=api, shell=text, unknown=why, line=at)


def argv_launch(api: str, items: Sequence[Value], at: int) -> Launch:
    """`items` run as an argv, without a shell."""
    argv = tuple(item.arg() for item in items)
    why = ""
    if any(item.spread for item in items):
        why = f"{api} is called with an argument list built at run time"
    elif not argv or argv[0] is None:
        why = f"{api} runs a program whose name is built at run time"
    if not argv or all(item.opaque for item in items):
        return Launch(api=api, unknown=why, line=at)
    return Launch(api=api, argv=argv, unknown=why, line=at)


def command_launch(api: str, items: Sequence[Value], at: int) -> Launch:
    """The common rule: one string is run by a shell, several are an argv."""
    if len(items) == 1 and not items[0].spread:
        return shell_launch(api, items[0], at)
    return argv_launch(api, items, at)


def unknown_launch(api: str, why: str, at: int) -> Launch:
    return Launch(api=api, unknown=why, line=at)


def removal(api: str, head: tuple[str, ...], paths: Sequence[Value], at: int) -> Launch | None:
    """A file removal as the `rm` it amounts to. Only literal paths and the home directory count: a path
    built at run time otherwise is data, not a process."""
    known = tuple(arg for arg in (path.arg() for path in paths) if arg is not None)
    return Launch(api=api, argv=(*head, *known), line=at) if known else None


def at_line(found: Sequence[Launch], at: int) -> tuple[Launch, ...]:
    """Launches read from an eval'd string, placed on the line of the eval."""
    return tuple(replace(launch, line=at) for launch in found)


def too_deep(language: str, at: int) -> Launch:
    return Launch(api="eval", unknown=f"the {language} program nests eval too deeply to read", line=at)


def walk(node: Node) -> Iterator[Node]:
    """`node` and all its descendants, in document order."""
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        stack.extend(reversed(current.children))


class Bindings:
    """Variables assigned exactly once, to be folded from that assignment's value. A language marks
    every other write (or use that may write) of a name as poisoned; `off` disables all of it (code
    that can assign variables by name, such as a string eval)."""

    __slots__ = ("_values", "off")

    def __init__(self) -> None:
        self._values: dict[str, Node | None] = {}
        self.off = False

    def assign(self, name: str, value: Node) -> None:
        self._values[name] = None if name in self._values else value

    def poison(self, name: str) -> None:
        self._values[name] = None

    def get(self, name: str) -> Node | None:
        return None if self.off else self._values.get(name)


class Folder(Generic[T]):
    """Folds the values variables were assigned: each once (a chain `a1 = a0 + a0; a2 = a1 + a1`
    would otherwise take exponential time), none through its own definition (`a = b; b = a`)."""

    __slots__ = ("_active", "_done")

    def __init__(self) -> None:
        self._active: set[int] = set()
        self._done: dict[int, T] = {}

    def resolve(self, bound: Node | None, fold: Callable[[Node], T], default: T) -> T:
        if bound is None:
            return default
        if bound.id in self._done:
            return self._done[bound.id]
        if bound.id in self._active or len(self._active) > 32:
            return default
        self._active.add(bound.id)
        try:
            result = fold(bound)
        finally:
            self._active.discard(bound.id)
        self._done[bound.id] = result
        return result


def syntax_launch(
    language: str, root: Node, src: bytes, names: re.Pattern[bytes], covered: Sequence[tuple[int, int]]
) -> Launch | None:
    """An unknown launch when the program does not parse and mentions a process API name outside the
    calls the reader did resolve."""
    if not root.has_error:
        return None
    for match in names.finditer(src):
        if not any(start <= match.start() < end for start, end in covered):
            break
    else:
        return None
    error = next((node for node in walk(root) if node.is_error or node.is_missing), root)
    near = src[error.start_byte : error.start_byte + 30].decode("utf-8", "replace").strip() or "the end"
    why = f"the {language} program does not parse near {near!r}"
    return Launch(api=language, unknown=why, line=line(error))


def char(code: int) -> str:
    """The character for a code point from an escape, or U+FFFD when there is none."""
    return chr(code) if 0 <= code <= 0x10FFFF else "\ufffd"
