"""tox 4's `{...}` substitutions (https://tox.wiki/en/latest/config.html#substitutions), as far as
they are static: `{posargs}` (the given arguments, else the default after `:`, else any number of
arguments known at run time), `{env_name}`, `{/}`, `{:}`, `{[section]key}` and `{key}` of the
environment, `{tox_root}` as `.` where commands run there. Directories tox makes, `{env:X}`,
`{tty:...}` and `{glob:...}` are known only at run time: `RUNTIME`."""

from __future__ import annotations

import shlex
from collections.abc import Callable, Sequence

from rein.steering.bash.launch import RUNTIME

Lookup = Callable[[str | None, str], str | None]
"""`(section or None for the environment's own, key)`: a setting's text, substituted; None if unset."""

_ROOT = frozenset({"toxinidir", "tox_root"})
_NAME = frozenset({"envname", "env_name"})


class Substitution:
    def __init__(self, env: str, posargs: Sequence[str | None] | None, lookup: Lookup, at_root: bool) -> None:
        self.env, self.posargs, self.lookup, self.at_root = env, posargs, lookup, at_root
        self.depth = 0

    def __call__(self, text: str) -> str:
        """`text` with its substitutions made; `\\{` and `\\}` stay literal braces."""
        out: list[str] = []
        at = 0
        while at < len(text):
            char = text[at]
            if char == "\\" and text[at + 1 : at + 2] in ("{", "}"):
                out.append(text[at + 1])
                at += 2
            elif char == "{":
                end = _closing(text, at)
                if end < 0:
                    out.append(text[at:])
                    break
                out.append(self._one(text[at + 1 : end]))
                at = end + 1
            else:
                out.append(char)
                at += 1
        return "".join(out)

    def _one(self, inner: str) -> str:
        self.depth += 1
        try:
            if self.depth > 16:
                return RUNTIME
            return self._resolve(inner)
        finally:
            self.depth -= 1

    def _resolve(self, inner: str) -> str:
        name, colon, default = inner.partition(":")
        if name == "posargs":
            if self.posargs:
                return " ".join(RUNTIME if arg is None else shlex.quote(arg) for arg in self.posargs)
            if colon:
                return self(default)
            return RUNTIME if self.posargs is None else ""
        if inner in ("/", ":"):
            return inner
        if name in _NAME:
            return self.env
        if name in _ROOT:
            return "." if self.at_root else RUNTIME
        if inner.startswith("["):
            section, _, key = inner[1:].partition("]")
            found = self.lookup(section, key)
            return RUNTIME if found is None else found
        if name in ("env", "tty", "glob") or colon:
            if name == "env":
                self(default)  # a default is substituted, though the variable's value wins
            return RUNTIME
        found = self.lookup(None, inner)
        return RUNTIME if found is None else found


def _closing(text: str, at: int) -> int:
    depth, index = 0, at
    while index < len(text):
        char = text[index]
        if char == "\\":
            index += 1
        elif char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                return index
        index += 1
    return -1


def argv(line: str) -> list[str]:
    """A substituted command line as tox splits it (`shlex`, POSIX); a leading `-` (ignore the exit
    code) or `!` (invert it) is dropped. Unbalanced quotes: the rest is one argument, as in tox."""
    lexer = shlex.shlex(line, posix=True)
    lexer.whitespace_split = True
    lexer.commenters = ""
    words: list[str] = []
    try:
        words.extend(lexer)
    except ValueError:
        words.append(line.split(None, len(words))[-1] if words else line)
    if words and words[0][:1] in ("-", "!"):
        words[0] = words[0][1:]
        if not words[0]:
            words.pop(0)
    return words
