"""`--help` and `-h` on every command and subcommand, one layout for all of them.

The commands are discovered, not listed: every entry of `rein.cli.COMMANDS`, the subcommands of its
typer app, or the `SUBCOMMANDS` of a hand-parsed one. A new command or subcommand is walked without
touching this file, and a command module that offers neither cannot be added.
"""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest
import typer
from typer.core import TyperGroup

from rein.cli import COMMANDS
from tests.cli.helpers import run_rein

SECTIONS = ("Arguments:", "Options:", "Commands:")
OPTION_TERM = re.compile(r"(-[a-z], )?--[a-z][a-z-]*( <[a-z|]+>)?")
NOT_OURS = ("\u256d", "\u2502", "usage:", "positional arguments", "<list[", "<str>", "<path>", "<int")


def _subcommands(group: TyperGroup) -> list[tuple[str, ...]]:
    found: list[tuple[str, ...]] = []
    for name, sub in group.commands.items():
        found.append((name,))
        if isinstance(sub, TyperGroup):
            found += [(name, *deeper) for deeper in _subcommands(sub)]
    return found


def discover() -> list[tuple[str, ...]]:
    """`()` is `rein` itself (the agent), then every command and subcommand."""
    found: list[tuple[str, ...]] = [()]
    for name, (module_name, _) in COMMANDS.items():
        module = importlib.import_module(module_name)
        found.append((name,))
        app = getattr(module, "app", None)
        if isinstance(app, typer.Typer):
            command = typer.main.get_command(app)
            if isinstance(command, TyperGroup):
                found += [(name, *sub) for sub in _subcommands(command)]
        else:
            assert hasattr(module, "SUBCOMMANDS"), f"{module_name}: give it a typer app or SUBCOMMANDS"
            found += [(name, sub) for sub in module.SUBCOMMANDS]
    return found


PAGES = discover()


def assert_layout(text: str, prog: str) -> None:
    """Usage line(s), a blank line, the indented description, then Arguments, Options and Commands in
    that order, each a heading after a blank line and rows whose help starts in one column."""
    lines = text.rstrip("\n").split("\n")
    assert lines[0].startswith(f"Usage: {prog} "), lines[0]
    at = 1
    while lines[at].startswith(f"       {prog} "):
        at += 1
    assert lines[at] == "" and re.match(r"  \S", lines[at + 1]), text
    headings = [line for line in lines[at:] if line and not line.startswith(" ")]
    assert headings == [h for h in SECTIONS if h in headings] and "Options:" in headings, headings
    for heading in headings:
        start = lines.index(heading)
        assert lines[start - 1] == ""
        end = next((i for i in range(start + 1, len(lines)) if not lines[i]), len(lines))
        columns = set()
        for line in lines[start + 1 : end]:
            assert line.startswith("  "), line
            if line[2] == " ":
                continue  # a help line wrapped under its row
            term, _, rest = line[2:].partition("  ")
            if heading == "Options:":
                assert OPTION_TERM.fullmatch(term), term
            if rest.strip():
                columns.add(2 + len(term) + 2 + len(rest) - len(rest.lstrip()))
        assert len(columns) <= 1, (heading, columns)
    assert re.search(r"^  -h, --help +Show this message and exit\.$", text, re.MULTILINE), text
    assert all(len(line) <= 80 for line in lines), text
    assert not [bad for bad in NOT_OURS if bad in text], text


def test_every_command_is_walked() -> None:
    expected = {
        (),
        ("check",),
        ("explain",),
        ("rules",),
        ("rules", "list"),
        ("rules", "test"),
        ("hook",),
        ("hook", "install"),
        ("hook", "uninstall"),
        ("demo",),
    }
    assert expected <= set(PAGES)
    assert {page[0] for page in PAGES if page} == set(COMMANDS)


@pytest.mark.slow
@pytest.mark.parametrize("words", PAGES, ids=lambda words: " ".join(("rein", *words)))
def test_help_on_every_command_has_the_common_layout(words: tuple[str, ...], tmp_path: Path) -> None:
    long = run_rein(*words, "--help", cwd=tmp_path, home=tmp_path)
    short = run_rein(*words, "-h", cwd=tmp_path, home=tmp_path)
    assert (long.returncode, long.stderr) == (0, ""), long.stderr
    assert (short.returncode, short.stdout) == (0, long.stdout)
    assert_layout(long.stdout, " ".join(("rein", *words)))


def test_rein_help_lists_the_agent_options_and_every_command(tmp_path: Path) -> None:
    done = run_rein("--help", cwd=tmp_path, home=tmp_path)
    assert done.returncode == 0
    usage = done.stdout.splitlines()[:2]
    assert usage == ["Usage: rein [OPTIONS] [PROMPT]...", "       rein COMMAND [ARGS]..."]
    for option in ("-p, --print", "--mode <text|json>", "-c, --continue", "--approve <ask|auto|deny>"):
        assert f"\n  {option}  " in done.stdout, option
    commands = done.stdout.split("\nCommands:\n")[1]
    assert [line.split()[0] for line in commands.splitlines() if line[2] != " "] == list(COMMANDS)


def test_the_old_spellings_of_rein_help_still_work(tmp_path: Path) -> None:
    page = run_rein("--help", cwd=tmp_path, home=tmp_path).stdout
    for spelling in ("help", "--agent-help"):
        done = run_rein(spelling, cwd=tmp_path, home=tmp_path)
        assert (done.returncode, done.stdout) == (0, page)


def test_help_after_a_double_dash_is_part_of_the_command(tmp_path: Path) -> None:
    done = run_rein("check", "--", "ls", "--help", cwd=tmp_path, home=tmp_path)
    assert (done.returncode, done.stdout) == (0, "allow\n")


def test_a_command_that_needs_arguments_prints_its_help_on_stderr_and_exits_2(tmp_path: Path) -> None:
    for words in (("check",), ("hook",), ("rules",)):
        done = run_rein(*words, cwd=tmp_path, home=tmp_path)
        assert done.returncode == 2 and done.stdout == "", words
        assert_layout(done.stderr, " ".join(("rein", *words)))
