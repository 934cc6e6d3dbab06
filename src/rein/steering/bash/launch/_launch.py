"""The one value every language reader returns: a process the program would start."""

from __future__ import annotations

from dataclasses import dataclass

RUNTIME = "${__rein_runtime__}"
"""Stands in a shell text for a part the program builds at run time: a variable that is never set, so
the walker reads it as a value it cannot know."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Launch:
    """A process a program would start (or may start: a reader never says whether a branch runs).

    Exactly one of `shell` and `argv` is set, except for a launch rein cannot know at all, which sets
    only `unknown`. `unknown` is non-empty when what runs is not fully known statically (a value built
    at run time, a call rein cannot resolve); `shell` or `argv` then hold the best-known text, which the
    walker still analyses (a definite block found there is reported), but the launch as a whole counts
    as unknown and blocks. An argv with a None element but no `unknown` is a known command with one
    argument only known at run time (`subprocess.run(["git", "push", branch])`): no shell reads it, so
    the walker checks it as that command with one unknown argument.
    """

    api: str
    """How the program starts it, as written: `os.system`, `child_process.execSync`, `system()`,
    `recipe of 'all'`, `e command`. Shown by `rein explain`."""
    shell: str | None = None
    """A command line run by a shell (`/bin/sh -c`); parts built at run time are `RUNTIME`."""
    argv: tuple[str | None, ...] = ()
    """An argv run directly, without a shell; None stands for one argument rein cannot know."""
    rest: bool = False
    """More arguments follow the argv, how many and which only known at run time (`["pytest",
    *files]`): no shell reads them, so the walker checks the command with unknown arguments, which
    a rule about flags or targets treats as unknown."""
    unknown: str = ""
    """Why what runs is not known statically; empty when it is."""
    line: int = 0
    """1-based line in the program text, 0 when not known."""
    file: str = ""
    """The file the line is in, when not the program text itself (a makefile's `include`)."""
