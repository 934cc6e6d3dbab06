"""The recipes of a GNU makefile as launches: each recipe line of each target of a rule, expanded with
the variables as the whole makefile left them and the rule's automatic variables, split where a
multi-line variable puts newlines, its `@-+` prefixes stripped, and run by `$(SHELL)`: a shell
launch for a POSIX shell with `-c`, else an argv `SHELL .SHELLFLAGS line` (`SHELL = python3`,
`.SHELLFLAGS = -c 'rm -rf /' x`), which the walker reads as that command line.
With `.ONESHELL` a rule's lines are one launch. The makefile itself is read by `_make`."""

from __future__ import annotations

import posixpath
import shlex
from collections import Counter
from dataclasses import dataclass, field

from rein.steering.bash.launch._launch import RUNTIME, Launch
from rein.steering.bash.launch.make._builtin import FLAGS
from rein.steering.bash.launch.make._expand import Alt, Expander, Scope
from rein.steering.bash.launch.make._text import split_commands

_POSIX_SHELLS = frozenset({"sh", "bash", "dash", "zsh", "ksh", "ash", "mksh", "yash", "posh"})


@dataclass(frozen=True, slots=True)
class Rule:
    targets: tuple[str, ...]
    prereqs: tuple[str, ...]
    order_only: tuple[str, ...]
    static: str | None
    """The target pattern of a static pattern rule (`objs: %.o: %.c`)."""
    line: int
    recipe: list[tuple[str, int]] = field(default_factory=list)
    """The recipe lines as written (prefix removed) and their line numbers."""
    builtin: bool = False
    """One of make's own rules (`_make_builtin`): its unset flag variables are empty."""
    file: str = ""
    """The included makefile the rule is in; empty for the makefile read first."""


@dataclass(frozen=True, slots=True)
class _Shell:
    argv: tuple[str, ...]
    """The program and flags that run a recipe line; empty: a POSIX shell."""
    unknown: str = ""


def recipe_launches(rule: Rule, expander: Expander, oneshell: bool, counts: Counter[str]) -> list[Launch]:
    """`counts`: how many rules name each target (their prerequisites add up)."""
    if not rule.recipe:
        return []
    first = rule.recipe[0][1]
    lines = [("\n".join(text for text, _ in rule.recipe), first)] if oneshell else rule.recipe
    launches: list[Launch] = []
    unset = FLAGS - expander.table.keys() if rule.builtin else frozenset()
    bound = {name: (Alt(""),) for name in unset}
    for target in rule.targets:
        automatic = _automatic(rule, target, counts)
        shells = _shells(expander, Scope(first, automatic))
        api = f"built-in rule '{target}: {rule.prereqs[0]}'" if rule.builtin else f"recipe of '{target}'"
        for text, number in lines:
            for alt in expander.expand(text, Scope(number, automatic, bound)):
                commands = [command.lstrip(" \t@+-") for command in split_commands(alt.text)]
                for command in ["\n".join(commands)] if oneshell else commands:
                    if command.strip():
                        launches.extend(
                            _launch(api, command, alt.unknown, number, shell, rule.file) for shell in shells
                        )
    return launches


def _shells(expander: Expander, scope: Scope) -> list[_Shell]:
    """How recipe lines run: `$(SHELL) $(.SHELLFLAGS) line`."""
    flags_alt = expander.expand("$(.SHELLFLAGS)", scope)[0]
    flags = _split(flags_alt.text)
    shells: list[_Shell] = []
    for alt in expander.expand("$(SHELL)", scope):
        words = _split(alt.text)
        if (
            not words
            or flags is None
            or alt.unknown
            or flags_alt.unknown
            or RUNTIME in alt.text + flags_alt.text
        ):
            shells.append(_Shell((), "the makefile runs its recipes with a SHELL rein cannot know"))
        elif posixpath.basename(words[0]) in _POSIX_SHELLS and flags == ["-c"] and len(words) == 1:
            shells.append(_Shell(()))
        else:
            shells.append(_Shell((*words, *flags)))
    return list(dict.fromkeys(shells))


def _split(text: str) -> list[str] | None:
    """SHELL and .SHELLFLAGS as make splits them (quotes as a shell reads them); None if broken."""
    try:
        return shlex.split(text)
    except ValueError:
        return None


def _launch(api: str, command: str, unknown: str, line: int, shell: _Shell, file: str) -> Launch:
    why = unknown or shell.unknown
    if shell.argv:
        return Launch(api=api, argv=(*shell.argv, command), unknown=why, line=line, file=file)
    return Launch(api=api, shell=command, unknown=why, line=line, file=file)


def _automatic(rule: Rule, target: str, counts: Counter[str]) -> dict[str, str]:
    """`$@`, `$<`, `$^`, `$+`, `$|`, `$*` where the rule says them. A pattern or special target's are
    left out (`RUNTIME`: a file name make picks), as are the prerequisites of a target several rules
    name."""
    if RUNTIME in target or "%" in target or target.startswith("."):
        return {}
    automatic = {"@": target}
    if rule.static is not None:
        stem = _stem(rule.static, target)
        if stem is None:
            return automatic
        prereqs = [prereq.replace("%", stem, 1) for prereq in rule.prereqs]
        automatic["*"] = stem
    elif counts[target] == 1:
        prereqs = list(rule.prereqs)
    else:
        return automatic
    automatic["<"] = prereqs[0] if prereqs else ""
    automatic["^"] = " ".join(dict.fromkeys(prereqs))
    automatic["+"] = " ".join(prereqs)
    automatic["|"] = " ".join(rule.order_only)
    return automatic


def _stem(pattern: str, target: str) -> str | None:
    prefix, percent, suffix = pattern.partition("%")
    if not percent or len(target) < len(prefix) + len(suffix):
        return None
    if not (target.startswith(prefix) and target.endswith(suffix)):
        return None
    return target[len(prefix) : len(target) - len(suffix)]
