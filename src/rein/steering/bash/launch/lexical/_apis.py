"""What one language's process APIs are, and how each takes its command: the contract between the
language tables and the reader.

Each API has a `Shape`: a command line a shell runs, an argv (a program and its arguments, or one
list), a string the API splits on blanks itself (Groovy's `"cmd".execute()`, Java's
`Runtime.exec(String)`), a program and arguments joined into a shell line (R's `system2`), code in
the same language (`load`, `eval(parse(text=))`), a recursive removal (`unlink(p, recursive=TRUE)`
is `rm -rf p`), or a call rein does not read, which is unknown wherever it appears.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Literal

from rein.steering.bash.launch.lexical._lex import Syntax

Shape = Literal["shell", "argv", "split", "joined", "eval", "unknown", "remove"]


@dataclass(frozen=True, slots=True)
class Api:
    """One process API."""

    shape: Shape
    at: int = 0
    """The positional argument holding the command; -1 for a method's receiver (`"cmd".execute()`)."""
    rest: int = -1
    """"argv": where the program's arguments start (each a string, or a list spread out); -1: none."""
    key: str = ""
    """A keyword argument that holds the command instead (`text=` of R's `parse`, `:command`)."""
    rest_key: str = ""
    """"argv": a keyword argument that holds the arguments instead (`args=` of R's `system2`)."""
    count: int = -1
    """"argv": how many arguments from `rest` on belong to the program; -1: all."""
    shell_key: str = ""
    """"argv": a keyword argument that, given, makes one string a shell line (`shell: true`)."""
    when: str = ""
    """"remove": an argument that must be given and true for the removal to be recursive: a keyword
    (`recursive=TRUE`), or a position (`"1"`)."""
    home: bool = False
    """"remove": the API expands a leading `~` (Emacs Lisp, R)."""


SHELL = Api("shell")
UNKNOWN = Api("unknown")
EVAL = Api("eval")
REMOVE = Api("remove")


def argv(at: int = 0, rest: int = 1) -> Api:
    return Api("argv", at=at, rest=rest)


def shell(at: int = 0, key: str = "") -> Api:
    return Api("shell", at=at, key=key)


@dataclass(frozen=True, slots=True)
class Language:
    """How rein reads one language: its tokens and its process APIs."""

    name: str
    syntax: Syntax
    apis: Mapping[str, Api]
    """By name as written, qualifiers included (`os.execute`, `base::system`, `sb-ext:run-program`)."""
    methods: Mapping[str, Api] = field(default_factory=lambda: MappingProxyType({}))
    """By method name, on any receiver (`.execute`, `.doShellScript`)."""
    lisp: bool = False
    """Calls are forms: `(api args...)`."""
    juxtapose: bool = False
    """A call needs no parentheses: its arguments are the atoms that follow (Haskell, OCaml)."""
    bare: bool = False
    """A call without parentheses takes the rest of the statement, split on commas (Elixir, Groovy)."""
    concat: frozenset[str] = frozenset()
    """Operators that join two strings (`..`, `<>`, `++`, `+`)."""
    joins: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    """Calls that join their string arguments, with the separator (`paste0`: "", `paste`: " ")."""
    lists: frozenset[str] = frozenset()
    """Calls that build a list of their arguments (`c`, `list`, `listOf`, `Seq`)."""
    homes: frozenset[str] = frozenset()
    """Calls that return the home directory (`homedir`, `System.user_home`)."""
    getenv: frozenset[str] = frozenset()
    """Calls that read an environment variable (`os.getenv`, `Sys.getenv`)."""
    strip: str = ""
    """A regex for a qualifier that names the standard library (`base::`): the name without it counts."""
    mention: str = ""
    """More words that make code worth reading (a process library's name)."""
    indirect: frozenset[str] = frozenset()
    """Strings that name a process API (`do.call("system", ...)`, `os["execute"]`): unknown."""
    words: bool = False
    """A command literal (`` `cmd` ``) is an argv split like shell words, not a shell line (Julia)."""


def mentions(language: Language) -> re.Pattern[str]:
    """A regex that finds every place the code may reach a process API: code without a match launches
    nothing, which is most code."""
    words = {*language.apis, *language.methods, *language.indirect}
    words |= {name.rpartition(".")[2] for name in language.apis}
    words = {word for word in words if word}
    alternatives = "|".join(re.escape(word) for word in sorted(words, key=len, reverse=True))
    extra = f"|{language.mention}" if language.mention else ""
    extra += f"|{re.escape(language.syntax.command)}" if language.syntax.command else ""
    return re.compile(rf"(?<![\w-])(?:{alternatives})(?![\w-]){extra}")
