"""Shapes shared by the runners whose subcommand runs a command: `poetry run cmd`, `pyenv exec cmd`,
`lerna exec -- cmd`. Each reads the argv from the index after the subcommand on. (A runner that is
only data is a `Runner` table entry: `_runner`, `_runner_tables`.)"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from rein.steering.bash.commands._inner import NOTHING, Call, Unwrapped, run, script
from rein.steering.bash.commands._options import Parsed, parse
from rein.steering.bash.commands._suffix import suffixes
from rein.steering.bash.commands._tables import spec
from rein.steering.bash.model import Word

Handler = Callable[[Call], Unwrapped]
Runs = Callable[[Call, int], Unwrapped]
"""A handler that reads the argv from an index on (after the subcommand that runs a command)."""


def after(call: Call, label: str, parsed: Parsed, mode: str = "child") -> Unwrapped:
    """The command from `parsed.rest` on; when an option rein does not know may have taken the next
    word, every suffix that starts with a known command instead."""
    if parsed.unknown:
        return suffixes(call, parsed.rest - 1, label)
    return run(label, "maybe" if mode == "maybe" else "child", call.argv[parsed.rest :])


def after_dashdash(label: str) -> Runs:
    """A tool that runs the words after `--` (`lerna exec [options] -- cmd`, `tox exec -e py -- cmd`).
    Without `--`, which of its options take a value is not known here: every suffix that starts with a
    known command is checked."""

    def handler(call: Call, start: int) -> Unwrapped:
        argv = call.argv
        for index in range(start, len(argv)):
            if argv[index].value == "--" and not argv[index].dynamic:
                return run(label, "child", argv[index + 1 :])
        return suffixes(call, start - 1, label)

    return handler


def subcommand(names: str | Iterable[str], handler: Runs) -> Handler:
    """A tool whose subcommand (one of `names`) runs a command: `poetry run`, `bundle exec`, `pyenv
    exec`. Global options may come first (`poetry -C app run`); rein does not know which take a value,
    so the subcommand is the first of `names` where every word before it is an option or may be an
    option's value."""
    wanted = frozenset((names,) if isinstance(names, str) else names)

    def dispatch(call: Call) -> Unwrapped:
        argv = call.argv
        for index, word in enumerate(argv[1:], start=1):
            if word.value in wanted and not word.dynamic:
                return handler(call, index + 1)
            if not word.value.startswith("-") and not argv[index - 1].value.startswith("-"):
                return NOTHING
        return NOTHING

    return dispatch


def first_operand(call: Call, key: str) -> tuple[str, int] | None:
    """The subcommand after the tool's own options (`pnpm --filter web exec`, `brew -v bundle`), and
    the index after it; None when there is none or it is only known at run time."""
    parsed = parse(call.argv, 1, spec(key))
    if parsed.rest >= len(call.argv) or call.argv[parsed.rest].dynamic:
        return None
    return call.argv[parsed.rest].value, parsed.rest + 1


def package_bin(word: Word) -> Word:
    """The command a package name runs: `vite@5` runs `vite`, `@scope/cli` runs `cli`."""
    value = word.value
    name = value[1:].partition("@")[0] if value.startswith("@") else value.partition("@")[0]
    name = name.rpartition("/")[2] or name
    return word if name == value else Word(value=name, raw=word.raw)


def package_runner(label: str, key: str) -> Runs:
    """`npx pkg args`, `pnpm dlx pkg`, `bunx pkg`, `uvx pkg`: the package's command runs."""

    def handler(call: Call, start: int) -> Unwrapped:
        parsed = parse(call.argv, start, spec(key))
        command = parsed.last("-c", "--call")
        if command is not None:
            return script(label, "child", (command,), f"{label} -c command")
        if parsed.has("-c", "--shell-mode"):  # pnpm: the words are a shell command line
            return script(label, "child", call.argv[parsed.rest :], f"{label} -c command")
        if parsed.unknown:
            return suffixes(call, parsed.rest - 1, label)
        rest = call.argv[parsed.rest :]
        return run(label, "child", (package_bin(rest[0]), *rest[1:])) if rest else NOTHING

    return handler
