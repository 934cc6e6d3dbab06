"""A call that may start a process, and the launches it makes: a command line a shell runs, an argv,
a removal as the `rm` it is, or an unknown launch. The tables of which functions start processes are
`_apis`'s (the standard library) and `_libraries`'s (other libraries)."""

from __future__ import annotations

import ast
import functools
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from rein.steering.bash.launch._launch import Launch
from rein.steering.bash.launch.python._paths import shell_word
from rein.steering.bash.launch.python._scope import Scope
from rein.steering.bash.launch.python._values import Glob, Home, Seq, Text, Value, as_text, word

_LINES = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")
SHELLS = frozenset({"sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "yash", "posh"})


class Absent:
    """An argument the call does not give."""


ABSENT = Absent()


@dataclass(frozen=True, slots=True)
class Site:
    """A call that may start a process: the call, the program text it is in, and its line."""

    node: ast.Call
    scope: Scope
    text: str
    line: int

    @property
    def api(self) -> str:
        """How the program writes the function it calls."""
        return written(self.text, self.node.func)

    def argument(self, index: int, keyword: str = "") -> Value | Absent:
        """The value of the argument at `index` or named `keyword`."""
        expr = argument(self.node, index, keyword)
        return None if expr is None else expr if isinstance(expr, Absent) else self.scope.value(expr)

    def unknown(self, why: str) -> Launch:
        return unknown(self.api, why, self.line)


def unknown(api: str, why: str, line: int) -> Launch:
    return Launch(api=api, unknown=f"{api} {why}", line=line)


def written(text: str, node: ast.expr) -> str:
    """How the program writes `node`, on one line and not too long."""
    spelled = " ".join((_segment(text, node) or ast.unparse(node)).split())
    return spelled if len(spelled) <= 60 else spelled[:57] + "..."


def _segment(text: str, node: ast.expr) -> str | None:
    """`ast.get_source_segment`, with the program's lines split once rather than at each call."""
    end_line: int | None = getattr(node, "end_lineno", None)
    end_col: int | None = getattr(node, "end_col_offset", None)
    if end_line is None or end_col is None or not hasattr(node, "lineno"):
        return None  # a node rein made
    lines = _lines(text)
    if not 0 < node.lineno <= end_line <= len(lines):
        return None
    if node.lineno == end_line:
        return lines[end_line - 1][node.col_offset : end_col].decode("utf-8", "replace")
    middle = b"".join(lines[node.lineno : end_line - 1])
    spelled = lines[node.lineno - 1][node.col_offset :] + middle + lines[end_line - 1][:end_col]
    return spelled.decode("utf-8", "replace")


@functools.lru_cache(maxsize=8)
def _lines(text: str) -> tuple[bytes, ...]:
    """The program's lines as the parser counts them (not at a form feed), in UTF-8: its columns."""
    return tuple(line.encode("utf-8", "surrogateescape") for line in _LINES.findall(text))


Handler = Callable[[Site], tuple[Launch, ...]]


def argument(call: ast.Call, index: int, keyword: str = "") -> ast.expr | Absent | None:
    """The argument at `index` or named `keyword`; None when `*args` or `**kwargs` may hold it."""
    for given in call.keywords:
        if keyword and given.arg == keyword:
            return given.value
    for position, arg in enumerate(call.args):
        if isinstance(arg, ast.Starred):
            return None
        if position == index:
            return arg
    if keyword and any(given.arg is None for given in call.keywords):
        return None
    return ABSENT


def command_line(site: Site, value: Value | Absent, why: str = "") -> tuple[Launch, ...]:
    """A command line run by `/bin/sh -c`."""
    if isinstance(value, Absent):
        return ()
    command = as_text(value)
    if command.known == "":
        return ()
    if all(part is None for part in command.parts):
        return (site.unknown(why or "is called with a value built at run time"),)
    reasons = [why] if why else []
    reasons += [] if command.known is not None else ["is called with a value built at run time"]
    unknown = f"{site.api} {' and '.join(reasons)}" if reasons else ""
    return (Launch(api=site.api, shell=command.shell, unknown=unknown, line=site.line),)


def argv(site: Site, items: Sequence[Value], open_: bool, why: str = "") -> tuple[Launch, ...]:
    """An argv run without a shell; `open_` when more arguments only known at run time follow `items`
    (`["pytest", *files]`), which the walker checks as unknown arguments of a known program. The
    entries of a directory (`*glob.glob(p)`, or a loop's one entry of it) are such arguments too."""
    globbed = next((index for index, item in enumerate(items) if isinstance(item, Glob)), None)
    if globbed is not None:
        items, open_ = items[:globbed], True
    reasons = [why] if why else []
    if not items:
        reasons += ["is called with an argument list built at run time"] if open_ else []
        return (site.unknown(" and ".join(reasons)),) if reasons else ()
    words = tuple(map(word, items))
    if words[0] is None and (open_ or None in words[1:]):  # with known arguments the walker decides it
        reasons += ["runs a program whose name is built at run time"]
    unknown = f"{site.api} {' and '.join(reasons)}" if reasons else ""
    return (Launch(api=site.api, argv=words, rest=open_, unknown=unknown, line=site.line),)


def program(site: Site, value: Value) -> tuple[Launch, ...]:
    """What `pty.spawn` and a `subprocess` call without a shell run: a list is an argv, a string one
    program's name."""
    if isinstance(value, Text | Home | Glob):
        return argv(site, (value,), False)
    if isinstance(value, Seq):
        return argv(site, value.items, value.open)
    return (site.unknown("is called with a value built at run time"),)


def shell(index: int, keyword: str) -> Handler:
    return lambda site: command_line(site, site.argument(index, keyword))


def program_argument(site: Site, value: Value | Absent) -> tuple[Launch, ...]:
    return () if isinstance(value, Absent) else program(site, value)


def opaque(why: str) -> Handler:
    return lambda site: (site.unknown(why),)


def removal(site: Site, command: tuple[str, ...], path: Value | Absent) -> tuple[Launch, ...]:
    """The `rm` a removal is, when its path is known (the home directory is `$HOME`); removing each
    entry of a directory is removing its glob (`rm -rf $HOME/*`)."""
    if isinstance(path, Glob):
        spelled = path.path.known if isinstance(path.path, Text) else None
        relative = Glob(Text(("./" + spelled,))) if spelled and spelled.startswith("-") else path
        return (Launch(api=site.api, shell=" ".join((*command, shell_word(relative))), line=site.line),)
    single = None if isinstance(path, Absent) else word(path)
    if single is None:
        return ()  # a path built at run time is data: a script cleaning its own temp dir
    single = "./" + single if single.startswith("-") else single
    return (Launch(api=site.api, argv=(*command, single), line=site.line),)
