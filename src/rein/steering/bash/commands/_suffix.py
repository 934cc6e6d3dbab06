"""What an unknown command may run: every suffix of its argv that starts with a command rein knows
(`prlimit --nofile=64 rm -rf ~` may run `rm -rf ~`), and every string argument that parses as bash
(`hyperfine 'git push --force'`). Neither is known to run; each is checked as if it did, so a wrapper
no one listed still cannot hide a blocked command."""

from __future__ import annotations

import posixpath
import re

from rein.steering.bash.commands._inner import Call, Inner, Unwrapped

_SHELLISH = re.compile(r"[\s;&|`$()<>]")
"""A string worth parsing as a command line: one word with no blank or operator is a name at most."""
MAX_GUESSES = 32
"""Suffixes and strings checked per command; past that the command is unknown as a whole."""


def suffixes(call: Call, start: int, label: str) -> Unwrapped:
    """Each suffix of `call.argv` after index `start` that begins with a known command name."""
    argv = call.argv
    inners: list[Inner] = []
    for index in range(start + 1, len(argv)):
        word = argv[index]
        name = posixpath.basename(word.value)
        if word.dynamic or name not in call.known:
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


def strings(call: Call, label: str) -> Unwrapped:
    """Each argument (or `--opt=` value) that reads like a command line, parsed as one."""
    inners: list[Inner] = []
    for word in call.argv[1:]:
        if word.dynamic:
            continue
        name, eq, value = word.value.partition("=")
        texts = [value] if eq and name and not _SHELLISH.search(name) else [word.value]  # `--opt=cmd`
        for text in texts:
            if len(inners) == MAX_GUESSES:
                return Unwrapped(
                    tuple(inners), (f"{label} has more than {MAX_GUESSES} arguments that may be commands",)
                )
            if _SHELLISH.search(text.strip()):
                why = f"{label} is not a command rein knows; its argument '{text}' reads as a command line"
                inners.append(
                    Inner(label, "maybe", script=text, via="string argument", why=why, speculative=True)
                )
    return Unwrapped(tuple(inners))


def unknown_command(call: Call) -> Unwrapped:
    found = suffixes(call, 0, call.name)
    more = strings(call, call.name)
    return Unwrapped((*found.inners, *more.inners), (*found.notes, *more.notes))
