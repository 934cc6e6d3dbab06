"""The contract of the `Runner` table: for every entry, a line built from the entry itself (each option
of its table with and without a value, its operands, its subcommand, `--`) runs the inner command
exactly where the real tool would, and the options that make it run nothing do. Generated from the
table, so a new entry is tested by adding it."""

from __future__ import annotations

import shlex
from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from rein.steering.bash.commands import RUNNERS as HANDLERS
from rein.steering.bash.commands import Call, Unwrapped, read
from rein.steering.bash.commands._runner import Runner
from rein.steering.bash.commands._runner_tables import RUNNERS, TIME_KEYWORD
from rein.steering.bash.model import State, Word
from tests.steering.bash.helpers import CWD, run

COMMAND = ("git", "push", "-f")
VALUE = "VALUE"

_READ_IN_CODE = {"sudo": frozenset({"--shell", "--login"})}
"""Options of a table the tool's handler reads before the entry does (`sudo -s` takes a shell string)."""


@dataclass(frozen=True)
class Entry:
    name: str
    runner: Runner
    head: str
    """How the line names the tool: by path, except the `time` keyword."""


ENTRIES = [
    *(Entry(name, runner, f"/usr/bin/{name}") for name, runner in RUNNERS.items()),
    Entry("time", TIME_KEYWORD, "time"),
]


def _named(runner: Runner) -> frozenset[str]:
    """The options whose effect the entry itself names (tested one by one, not in bulk)."""
    return frozenset((
        *runner.nothing, *runner.chdir, *runner.cwd_unknown_with, *runner.keep_cwd, *runner.fork,
        *runner.wait,
    ))  # fmt: skip


def option_words(entry: Entry) -> Iterator[tuple[str, ...]]:
    """Every option of the entry's table, in each form the tool reads it, as the words of one line."""
    runner = entry.runner
    if runner.options is None:
        return
    table = runner.table()
    skip = _named(runner) | _READ_IN_CODE.get(entry.name, frozenset())
    flags: list[str] = []
    separate: list[str] = []
    attached: list[str] = []
    for name, arity in table.long.items():
        option = f"--{name}"
        if option in skip:
            continue
        if arity == "none":
            flags.append(option)
        elif arity == "optional":
            attached.append(f"{option}={VALUE}")
        else:
            separate += [option, VALUE]
            attached.append(f"{option}={VALUE}")
    for letter in table.short_value:
        if f"-{letter}" not in skip:
            separate += [f"-{letter}", VALUE]
            attached.append(f"-{letter}{VALUE}")
    yield ()
    yield tuple(flags)
    yield tuple(separate)
    yield (*flags, *attached)


def _operands(entry: Entry) -> tuple[str, ...]:
    return tuple(f"OPERAND{index}" for index in range(entry.runner.operands))


def operand_words(runner: Runner) -> Iterator[tuple[str, ...]]:
    operands = tuple(f"OPERAND{index}" for index in range(runner.operands))
    yield operands
    if runner.priority:
        yield (*operands, "10")


def line(entry: Entry, *words: str) -> tuple[str, ...]:
    return (entry.head, *entry.runner.subcommands[:1], *words)


def unwrapped(entry: Entry, words: tuple[str, ...]) -> Unwrapped:
    argv = tuple(Word.literal(word) for word in words)
    call = Call(entry.name, argv, State(cwd=CWD), known=frozenset({"git"}))
    return read(call).runs


def assert_runs(entry: Entry, words: tuple[str, ...]) -> None:
    found = unwrapped(entry, words)
    assert len(found.inners) == 1, (words, found)
    inner = found.inners[0]
    runner = entry.runner
    assert tuple(word.value for word in inner.argv) == COMMAND, words
    assert (inner.label, inner.mode, inner.via) == (runner.label, runner.mode, ""), words
    assert inner.cwd_unknown == runner.cwd_unknown, words
    assert not inner.background, words


def cases() -> Iterator[tuple[Entry, tuple[str, ...]]]:
    """Each line an entry runs `COMMAND` from as written: options in every form, operands, `--`."""
    for entry in ENTRIES:
        for options in option_words(entry) if entry.runner.options is not None else [()]:
            for operands in operand_words(entry.runner):
                yield entry, line(entry, *options, *operands, *COMMAND)
                if entry.runner.options is not None:  # `--` ends the options; operands follow it
                    yield entry, line(entry, *options, "--", *operands, *COMMAND)


CASES = list(cases())


@pytest.mark.parametrize(("entry", "words"), CASES, ids=[shlex.join(words)[:90] for _, words in CASES])
def test_the_command_is_found_where_the_tool_runs_it(entry: Entry, words: tuple[str, ...]) -> None:
    assert_runs(entry, words)


@pytest.mark.parametrize("entry", ENTRIES, ids=[entry.head for entry in ENTRIES])
def test_the_walker_reads_each_entry_to_its_command(entry: Entry) -> None:
    options = list(option_words(entry))[-1] if entry.runner.options is not None else ()
    source = shlex.join(line(entry, *options, *_operands(entry), *COMMAND))
    refs = [ref for ref in run(source).refs if ref.wrappers]
    assert [(" ".join(word.value for word in ref.argv), ref.wrappers) for ref in refs] == [
        (" ".join(COMMAND), (entry.runner.label,))
    ], source


def _with_value(entry: Entry, option: str) -> tuple[str, ...]:
    """The option as the tool reads it, with a value when its table says it takes one."""
    table = entry.runner.table()
    if option.startswith("--"):
        takes = table.long.get(option[2:]) == "required"
    else:
        takes = option[1:] in table.short_value
    return (option, VALUE) if takes else (option,)


NAMED = [
    (entry, option, kind)
    for entry in ENTRIES
    for kind, options in (
        ("nothing", entry.runner.nothing),
        ("chdir", entry.runner.chdir),
        ("cwd unknown", entry.runner.cwd_unknown_with),
        ("keep cwd", entry.runner.keep_cwd),
        ("fork", entry.runner.fork),
    )
    for option in options
]


@pytest.mark.parametrize(
    ("entry", "option", "kind"), NAMED, ids=[f"{entry.name} {option}" for entry, option, _ in NAMED]
)
def test_each_option_the_entry_names_does_what_it_says(entry: Entry, option: str, kind: str) -> None:
    words = line(entry, *_with_value(entry, option), *COMMAND)
    found = unwrapped(entry, words)
    if kind == "nothing":
        assert found.inners == () and found.notes == (), words
        return
    [inner] = found.inners
    assert tuple(word.value for word in inner.argv) == COMMAND, words
    if kind == "chdir":
        assert inner.cwd is not None and inner.cwd.value == VALUE
    elif kind in ("cwd unknown", "keep cwd"):
        assert inner.cwd_unknown is (kind == "cwd unknown")
    else:
        assert inner.background
        for wait in entry.runner.wait:  # waiting for it after all: the shell waits too
            assert_runs(entry, line(entry, option, *_with_value(entry, wait), *COMMAND))


@pytest.mark.parametrize("entry", [entry for entry in ENTRIES if entry.runner.env_assignments])
def test_assignments_before_the_command_set_its_environment(entry: Entry) -> None:
    [inner] = unwrapped(entry, line(entry, "A=1", "B=2", *COMMAND)).inners
    assert tuple(word.value for word in inner.argv) == COMMAND
    assert [(name, value.value) for name, value in inner.env_set] == [("A", "1"), ("B", "2")]


READING = [entry for entry in ENTRIES if entry.runner.options is not None]


@pytest.mark.parametrize("entry", READING, ids=[entry.head for entry in READING])
def test_an_option_the_table_does_not_know(entry: Entry) -> None:
    """A complete table: the tool rejects the option, rein still reads the command after it. Else the
    option may take the next word, so every suffix from a known command on is checked."""
    words = line(entry, "--not-an-option", *_operands(entry), *COMMAND)
    if entry.runner.complete:
        assert_runs(entry, words)
        return
    [inner] = unwrapped(entry, words).inners
    assert (tuple(word.value for word in inner.argv), inner.via) == (COMMAND, "argv suffix")


SUBCOMMANDS = [entry for entry in ENTRIES if entry.runner.subcommands]


@pytest.mark.parametrize("entry", SUBCOMMANDS, ids=[entry.name for entry in SUBCOMMANDS])
def test_only_the_subcommand_runs_a_command(entry: Entry) -> None:
    """A global flag may come before it (`poetry -v run cmd`); another subcommand runs nothing."""
    for subcommand in entry.runner.subcommands:
        assert_runs(entry, (entry.head, "-v", subcommand, *COMMAND))
    assert unwrapped(entry, (entry.head, "install", *COMMAND)) == Unwrapped()


def test_every_entry_is_a_handler_of_the_model() -> None:
    assert set(RUNNERS) <= set(HANDLERS)
