"""What an unknown command may run: every suffix of its argv that starts with a command rein knows
(`prlimit --nofile=64 rm -rf ~` may run `rm -rf ~`), and every string argument that parses as bash
and starts with a command rein knows (`hyperfine 'git push --force'`; not `logger 'ran git reset
--hard'`, see `_guess`). Neither is known to run; each is checked as if it did, so a wrapper no one
listed still cannot hide a blocked command."""

from __future__ import annotations

import posixpath
import re

from rein.steering.bash.commands._guess import command_line
from rein.steering.bash.commands._inert import SHELL_BUILTINS
from rein.steering.bash.commands._inner import Call, Inner, Unwrapped

_SHELLISH = re.compile(r"[\s;&|`$()<>]")
"""A string worth parsing as a command line: one word with no blank or operator is a name at most."""
_SHELL_ONLY = frozenset({"source", ".", "eval", "exec", "builtin", "trap", "coproc"})
"""Builtins with no program of their name: a program that runs its arguments cannot run these
(`crane cp source destination` copies; it never sources), only a shell line can (see `strings`)."""
MAX_GUESSES = 32
"""Suffixes and strings checked per command; past that the command is unknown as a whole."""


def suffixes(call: Call, start: int, label: str) -> Unwrapped:
    """Each suffix of `call.argv` after index `start` that begins with a known command name."""
    argv = call.argv
    inners: list[Inner] = []
    for index in range(start + 1, len(argv)):
        word = argv[index]
        name = posixpath.basename(word.value)
        if word.dynamic or name not in call.known or name in _SHELL_ONLY or _data_path(word.value, name):
            continue
        if len(inners) == MAX_GUESSES:
            return Unwrapped(
                tuple(inners), (f"{label} has more than {MAX_GUESSES} arguments that may be commands",)
            )
        why = (
            f"{label} is not a command rein knows; its arguments from '{word.value}' on are checked as if run"
        )
        inners.append(Inner(label, "maybe", argv=argv[index:], via="argv suffix", why=why))
    return Unwrapped(tuple(inners))


def _data_path(value: str, name: str) -> bool:
    """A path or URL that is data, not a program: `https://example.com/file`, `projects/local` (a
    shell builtin cannot be run by its path)."""
    return "://" in value or ("/" in value and name in SHELL_BUILTINS)


def strings(call: Call, label: str) -> Unwrapped:
    """Each argument (or `--opt=` value) that reads as a command line, parsed as one."""
    inners: list[Inner] = []
    for word in call.argv[1:]:
        if word.dynamic:
            continue
        if len(inners) == MAX_GUESSES:
            return Unwrapped(
                tuple(inners), (f"{label} has more than {MAX_GUESSES} arguments that may be commands",)
            )
        name, eq, value = word.value.partition("=")
        texts = [word.value, value] if eq and name and not _SHELLISH.search(name) else [word.value]
        for text in texts:  # the whole word (`X=1 git push -f`), else the value of `--opt=cmd`
            if _SHELLISH.search(text.strip()) and command_line(text, call.known):
                why = f"{label} is not a command rein knows; its argument '{text}' reads as a command line"
                inners.append(
                    Inner(label, "maybe", script=text, via="string argument", why=why, speculative=True)
                )
                break
    return Unwrapped(tuple(inners))


def unknown_command(call: Call) -> Unwrapped:
    found = suffixes(call, 0, call.name)
    more = strings(call, call.name)
    return Unwrapped((*found.inners, *more.inners), (*found.notes, *more.notes))
