"""What the Ruby, Perl and PHP readers share: a folded string value (literal text with holes for parts
built at run time, for the home and the working directory), the launches built from such values, the
variables assigned once from a literal, loops over known lists, and the unknown launch for a program
that does not parse.

It reads no program itself: each language folds its own syntax into `Value`s and calls these.
"""

from __future__ import annotations

import posixpath
import re
import shlex
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from enum import Enum

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


class Mark(Enum):
    RUNTIME = "runtime"
    """A part only known at run time."""
    HOME = "home"
    """The home directory (`Dir.home`, `$ENV{HOME}`, `getenv('HOME')`): `$HOME`."""
    CWD = "cwd"
    """The working directory (`Dir.pwd`, `getcwd()`): `.` in a path, `$PWD` in a shell line."""


Part = str | Mark


@dataclass(frozen=True, slots=True)
class Value:
    """A string as far as it is known statically: literal parts and marks, in order."""

    parts: tuple[Part, ...] = ()
    spread: bool = False
    """A list element that stands for any number of elements (`@args`, `*args`)."""
    glob: bool = False
    """A pattern the API expands (`glob("/x/*")`, `Dir["/x/*"]`): each match."""

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
        """As one argv element: a literal, home written `$HOME` / `$HOME/rest` (the caller keeps a
        leading `$HOME` unquoted so the walker expands it, and quotes a literal `~`), the working
        directory as a relative path; None for anything else."""
        if self.spread:
            return None
        head, rest = (self.parts[0], Value(self.parts[1:]).text) if self.parts else ("", "")
        if head in (Mark.HOME, Mark.CWD) and rest is not None and (not rest or rest.startswith("/")):
            return "$HOME" + rest if head is Mark.HOME else posixpath.normpath("." + rest)
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
            elif part in (Mark.HOME, Mark.CWD) and quote != "'":
                after = self.parts[index + 1] if index + 1 < len(self.parts) else ""
                glued = isinstance(after, str) and (after[:1].isalnum() or after[:1] == "_")
                name = "HOME" if part is Mark.HOME else "PWD"
                out.append("${" + name + "}" if glued else "$" + name)  # `$HOMEx` is another variable
            else:
                out.append(RUNTIME)
                unknown = True
        return "".join(out), unknown


RUNTIME_VALUE = Value((Mark.RUNTIME,))
HOME_VALUE = Value((Mark.HOME,))
CWD_VALUE = Value((Mark.CWD,))
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
    """A file removal as the `rm` it amounts to. Only literal paths, paths below the home or working
    directory, and globs of them count: a path built at run time otherwise is data, not a process. A
    glob makes it a shell line, its wildcards unquoted, which the walker reads as every match."""
    known = [(arg, path.glob) for path in paths if (arg := path.arg()) is not None]
    if not known:
        return None
    if not any(glob for _, glob in known):
        return Launch(api=api, argv=(*head, *(arg for arg, _ in known)), line=at)
    words = [glob_word(arg) if glob else _word(arg) for arg, glob in known]
    return Launch(api=api, shell=" ".join((*head, *words)), line=at)


def _word(arg: str) -> str:
    if arg == "$HOME" or arg.startswith("$HOME/"):
        return "$HOME" + (shlex.quote(arg[5:]) if len(arg) > 5 else "")
    return shlex.quote(arg)


def parent(value: Value) -> Value:
    """The directory a path is in (`File.dirname`, `dirname`): lexical for a literal, the parent of
    home or of the working directory (which is absolute) for a path below them."""
    known = value.text
    if known is not None:
        trimmed = known.rstrip("/")
        return literal("/" if known and not trimmed else posixpath.dirname(trimmed) or ".")
    head = value.parts[0] if value.parts else ""
    rest = Value(value.parts[1:]).text
    if head not in (Mark.HOME, Mark.CWD) or rest is None or (rest and not rest.startswith("/")):
        return RUNTIME_VALUE
    if head is Mark.CWD:
        return literal(posixpath.normpath("." + rest + "/.."))
    trimmed = rest.rstrip("/")
    if not trimmed or ".." in trimmed.split("/"):
        return Value((Mark.HOME, trimmed + "/.."))
    above = posixpath.dirname(trimmed)
    return HOME_VALUE if above == "/" else Value((Mark.HOME, above))


def environment(env: Mapping[str, str], name: str | None) -> Value:
    """An environment variable: `HOME` is home, `PWD` the working directory, another its value when
    rein knows it (`TARGET=/ ruby -e ...`), else built at run time."""
    if name in ("HOME", "PWD"):
        return HOME_VALUE if name == "HOME" else CWD_VALUE
    known = env.get(name) if name is not None else None
    return literal(known) if known is not None else RUNTIME_VALUE


def globbed(pattern: Value, home: bool = True) -> Value:
    """The matches of a glob pattern (`glob("/x/*")`); a leading `~` is home when the API expands it."""
    text = pattern.text
    if home and text is not None and (text == "~" or text.startswith("~/")):
        pattern = HOME_VALUE + literal(text[1:])
    return Value(pattern.parts, glob=True)


def below(path: str, home: bool = True) -> Value:
    """A path as a file API outside the shell reads it, made absolute (`File.expand_path`): `~` is
    home when `home` (Ruby expands it there), a relative path is below the working directory."""
    if home and (path == "~" or path.startswith("~/")):
        return HOME_VALUE + literal(path[1:])
    if path.startswith("/"):
        return literal(posixpath.normpath(path))
    return Value((Mark.CWD, "/" + path)) if path not in ("", ".") else CWD_VALUE


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


_WILDCARD = re.compile(r"(\*|\?|\[!?[\w.-]+\])")


def glob_word(pattern: str) -> str:
    """A glob pattern as one shell word: its wildcards (`*`, `?`, `[a-z]`) unquoted, so the walker reads
    it as every match, the rest quoted; a leading `$HOME` stays the variable."""
    head = ""
    if pattern == "$HOME" or pattern.startswith("$HOME/"):
        head, pattern = "$HOME", pattern[5:]
    pieces = [
        piece if _WILDCARD.fullmatch(piece) else shlex.quote(piece)
        for piece in _WILDCARD.split(pattern)
        if piece
    ]
    return head + "".join(pieces) if head or pieces else "''"


def char(code: int) -> str:
    """The character for a code point from an escape, or U+FFFD when there is none."""
    return chr(code) if 0 <= code <= 0x10FFFF else "\ufffd"
