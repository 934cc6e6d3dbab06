"""The values the command model reads and returns: a `Call` in, what it runs (`Unwrapped`) out."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Literal

from rein.steering.bash._disk import DiskView
from rein.steering.bash._words import split_assignment
from rein.steering.bash.model import Expansion, State, Stdin, Unknown, Word

Mode = Literal["same", "child", "maybe", "later", "remote"]
"""How the inner command runs: in this shell (`command cd`), as a child that finishes before the
wrapper does (`sudo`), maybe, repeatedly or in another process (`xargs`, `find -exec`, `watch`), later in
this same shell (`trap`), or on another machine or container (`ssh`, `docker exec`)."""

Argv = tuple[Word, ...]
Value = str | Unknown

PLACEHOLDER = "__rein_unknown__"
"""Stands for a value only known at run time in a string rein re-parses (`bash -c "ls $X"`): the string
as a whole is unknown and blocks, but what is known of it is still checked, and an expansion the outer
shell already ran is not walked a second time."""


@dataclass(frozen=True, slots=True)
class Call:
    """One command as the command model reads it: its argv (words already expanded where rein knows
    their value) and what the shell knows where it runs."""

    name: str
    argv: Argv
    state: State
    stdin: Stdin | None = None
    files: Mapping[str, Value] = field(default_factory=lambda: MappingProxyType({}))
    """Files this command line wrote before this command, by absolute path, with their content."""
    files_unknown: bool = False
    """Something earlier wrote or fetched files rein cannot name (a download, an archive)."""
    git_config: Mapping[str, Value] = field(default_factory=lambda: MappingProxyType({}))
    """git configuration this command line set (`git config`), keys lowercased as git compares them."""
    known: frozenset[str] = frozenset()
    """Command names rein knows: the model's own and those the policy's rules name. In an unknown
    command's argv, a suffix starting with one of them is checked as if it ran."""
    disk: DiskView | None = None
    """The files on disk this command may run, read at check time; None when the host gives none."""


@dataclass(frozen=True, slots=True)
class Inner:
    """One command a runner runs: an argv, or a script string to parse."""

    label: str
    """Appended to the wrapper chain ("sudo", "bash -c"); empty for routes that are a `via` instead."""
    mode: Mode
    argv: Argv = ()
    script: str | None = None
    via: str = ""
    cwd: Word | None = None
    """Directory the inner command runs in (`env -C`, `sudo -D`), relative to the outer cwd."""
    cwd_unknown: bool = False
    env_set: tuple[tuple[str, Word], ...] = ()
    env_unset: tuple[str, ...] = ()
    env_clear: bool = False
    args: tuple[Value, ...] | None = None
    """The positional parameters a script starts with (`bash -c 'rm -rf "$1"' _ /`), `$0` first."""
    why: str = ""
    """Why rein checks this as a command: shown by `rein explain`."""
    speculative: bool = False
    """A guess at what may run (a string argument of an unknown command): what cannot be parsed in it
    is ignored, since the program may never run it as shell."""
    language: str = ""
    """For a script in another language (`python`, `make`): its language; empty for shell."""
    stdin: Stdin | None = None
    """Standard input the runner itself gives the command (a program's `input=`, a pipe it writes);
    None for the runner's own stdin where the mode passes it on."""
    background: bool = False
    """The runner starts it detached and returns (`tmux new -d`, `screen -dm`, `setsid -f`)."""
    origin: str = ""
    """The file on disk the command comes from, as a person finds it (`package.json scripts.dev`)."""
    lenient: bool = False
    """Read from a file of the person's on disk: only a definite finding in it blocks."""


@dataclass(frozen=True, slots=True)
class Unwrapped:
    inners: tuple[Inner, ...] = ()
    notes: tuple[str, ...] = ()
    """Why part of the outer command is unknown (`eval "$X"`)."""
    problems: tuple[str, ...] = ()
    tolerated: tuple[str, ...] = ()
    """What rein could not read in a file of the person's it runs: shown, never blocking, since
    project scripts build commands at run time all the time."""


NOTHING: Unwrapped = Unwrapped()


def assignments(argv: Argv, index: int) -> tuple[tuple[tuple[str, Word], ...], int]:
    """The `NAME=value` words from `index` on (`env A=1 cmd`), and the index after them."""
    found: list[tuple[str, Word]] = []
    while index < len(argv):
        split = split_assignment(argv[index])
        if split is None:
            break
        found.append((split[0], split[1]))
        index += 1
    return tuple(found), index


def run(
    label: str,
    mode: Mode,
    argv: Argv,
    *,
    cwd: Word | None = None,
    cwd_unknown: bool = False,
    env_set: tuple[tuple[str, Word], ...] = (),
    env_unset: tuple[str, ...] = (),
    env_clear: bool = False,
) -> Unwrapped:
    """The wrapper runs `argv` (nothing when it is empty: `env`, `xargs` alone)."""
    if not argv:
        return NOTHING
    inner = Inner(
        label, mode, argv=argv, cwd=cwd, cwd_unknown=cwd_unknown,
        env_set=env_set, env_unset=env_unset, env_clear=env_clear,
    )  # fmt: skip
    return Unwrapped((inner,))


def text_of(words: Sequence[Word]) -> tuple[str, str | None]:
    """The words joined as a shell reads them, and the first one with a part not known statically
    (None when all are known). Unknown parts become `PLACEHOLDER`."""
    texts: list[str] = []
    dynamic: str | None = None
    for word in words:
        if not word.dynamic:
            texts.append(word.value)
            continue
        dynamic = dynamic or word.raw
        texts.append("".join(_part_text(part) for part in word.parts))
    return " ".join(texts), dynamic


def _part_text(part: str | Expansion) -> str:
    if isinstance(part, str):
        return part
    if isinstance(part.value, str):
        return part.value
    return part.raw if part.kind == "glob" else PLACEHOLDER


def script(
    label: str, mode: Mode, words: Argv, what: str, via: str = "", args: tuple[Value, ...] | None = None
) -> Unwrapped:
    """A string of words the shell parses as commands; a part only known at run time makes it unknown."""
    if not words:
        return NOTHING
    text, dynamic = text_of(words)
    notes = (f"{what} is dynamic: {dynamic}",) if dynamic else ()
    return Unwrapped((Inner(label, mode, script=text, via=via, args=args),), notes)
