"""A runner as data: where in its argv the command it runs starts, and what about it changes.

Most runners differ only in data: their option table, the subcommand that runs a command (`poetry
run`, `pyenv exec`), operands before the command (`timeout 5 cmd`), whether the command runs in this
shell, the options with which they run nothing (`ionice -p PID`) and what they change around the
command (`chroot`, `setsid -f`). A `Runner` holds that; `unwrap` reads a call with it. Code stays for
the tools with semantics of their own (`sudo -s`, `env -S`, the `time` keyword, `nice -5`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Literal

from rein.steering.bash.commands._inner import NOTHING, Call, Unwrapped, assignments, run
from rein.steering.bash.commands._options import Options, Parsed, parse
from rein.steering.bash.commands._subcommand_runs import Handler, subcommand
from rein.steering.bash.commands._suffix import suffixes
from rein.steering.bash.commands._tables import spec
from rein.steering.bash.model import Word


@dataclass(frozen=True, slots=True, kw_only=True)
class Runner:
    """One tool that runs a command given on its line."""

    label: str
    """Added to the wrapper chain of what it runs (`timeout`, `poetry run`)."""
    options: str | Options | None = ""
    """How it reads its options: a key of `TOOL_OPTIONS` ("" for the label), a table, or None when
    it reads none and the command is the next word (`busybox`, `builtin`, `pyenv exec`)."""
    subcommands: tuple[str, ...] = ()
    """The subcommands that run a command (`run`, `exec`), global options allowed before them; none
    for a wrapper whose command follows its options."""
    operands: int = 0
    """Operands between the options and the command (`timeout DURATION`, `chroot NEWROOT`)."""
    priority: bool = False
    """A numeric operand may come before the command (`chrt [priority] cmd`)."""
    mode: Literal["child", "same", "maybe"] = "child"
    """The command runs as a child it waits for, in this shell (`command`, `exec`), or maybe."""
    nothing: tuple[str, ...] = ()
    """Options with which it runs no command (`ionice -p PID`, `command -v`)."""
    complete: bool = True
    """The table lists every option the tool has. False: an option it does not list may take the next
    word, so every suffix of the arguments that starts with a known command is checked instead."""
    env_assignments: bool = False
    """`NAME=value` words before the command set its environment (`sudo A=1 cmd`)."""
    chdir: tuple[str, ...] = ()
    """Options whose value is the directory the command runs in (`sudo -D dir`)."""
    cwd_unknown: bool = False
    """The command runs in a directory not known here (`chroot`, `pkexec`)."""
    cwd_unknown_with: tuple[str, ...] = ()
    """Options that make the directory unknown (`sudo -R root`)."""
    keep_cwd: tuple[str, ...] = ()
    """Options that keep this shell's directory after all (`pkexec --keep-cwd`)."""
    fork: tuple[str, ...] = ()
    """Options with which it starts the command and returns at once (`setsid -f`)."""
    wait: tuple[str, ...] = ()
    """Options with which it waits for the command after all (`setsid -f -w`)."""

    def table(self) -> Options:
        """The option table it reads with (`RUNNER` for a key without one)."""
        if isinstance(self.options, Options):
            return self.options
        return spec(self.options or self.label)


def unwrap(runner: Runner, call: Call, start: int = 1) -> Unwrapped:
    """What `call` runs, its argv read from `start` on (after the subcommand, if any)."""
    if runner.options is None:
        return run(runner.label, runner.mode, call.argv[start + runner.operands :])
    return unwrap_parsed(runner, call, parse(call.argv, start, runner.table()))


def unwrap_parsed(runner: Runner, call: Call, parsed: Parsed) -> Unwrapped:
    """What `call` runs, its options already read (for a handler that looks at them first)."""
    if runner.nothing and parsed.has(*runner.nothing):
        return NOTHING
    if parsed.unknown and not runner.complete:
        return suffixes(call, parsed.rest - 1, runner.label)
    argv = call.argv
    index = parsed.rest + runner.operands
    if runner.priority and index < len(argv) and argv[index].value.isdigit():
        index += 1
    env_set: tuple[tuple[str, Word], ...] = ()
    if runner.env_assignments:
        env_set, index = assignments(argv, index)
    lost = runner.cwd_unknown or bool(runner.cwd_unknown_with and parsed.has(*runner.cwd_unknown_with))
    found = run(
        runner.label,
        runner.mode,
        argv[index:],
        cwd=parsed.last(*runner.chdir) if runner.chdir else None,
        cwd_unknown=lost and not (runner.keep_cwd and parsed.has(*runner.keep_cwd)),
        env_set=env_set,
    )
    if not (runner.fork and parsed.has(*runner.fork)) or (runner.wait and parsed.has(*runner.wait)):
        return found
    return Unwrapped(tuple(replace(inner, background=True) for inner in found.inners), found.notes)


def handler(runner: Runner) -> Handler:
    """The command model's handler for one table entry."""
    if not runner.subcommands:
        return lambda call: unwrap(runner, call)
    return subcommand(runner.subcommands, lambda call, start: unwrap(runner, call, start))


def handlers(table: Mapping[str, Runner]) -> dict[str, Handler]:
    """Handlers by command name for a table of runners."""
    return {name: handler(runner) for name, runner in table.items()}
