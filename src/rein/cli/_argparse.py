"""argparse for the commands that must start fast (`rein` itself, `rein check`): one table of options
feeds both the parser and the help page, and argparse's own help and error output are replaced by
rein's (`rein.cli._help`).

Why not typer here: typer 0.29 coerces every value through pydantic, and its first parse costs
about 0.3 s of CPU (importing typer and pydantic, building the adapters), more than half of what
the whole agent needs to start.

    OPTIONS = (Option("--cwd", "<dir>", "Directory (default: here).", dest="cwd"), ...)
    parser = build(prog, OPTIONS, positional="command")
    values = parse(parser, args, "command")   # raises UsageError(message) instead of exiting
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NoReturn


class UsageError(Exception):
    """An option argparse could not take; `str()` is the one-line problem (see `_help.usage_error`)."""


@dataclass(frozen=True, slots=True)
class Option:
    """One option: its flags (`-p, --print` as "-p", "--print"), a value placeholder (`<dir>`; None
    for a switch), the help text, and optionally the allowed values and the attribute name."""

    flags: tuple[str, ...]
    placeholder: str | None
    help: str
    choices: tuple[str, ...] = ()
    dest: str | None = None

    @property
    def row(self) -> tuple[str, str]:
        """The (term, help) row of the help page."""
        term = ", ".join(self.flags)
        return (term if self.placeholder is None else f"{term} {self.placeholder}", self.help)


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        # argparse's words, in click's where they differ, so every command reads alike
        raise UsageError(message.replace("unrecognized arguments:", "no such option:"))


def build(prog: str, options: Sequence[Option], positional: str) -> argparse.ArgumentParser:
    """A parser for `options` and any number of `positional` words; no `-h` (the caller shows rein's
    help page), no abbreviated long options."""
    parser = _Parser(prog=prog, add_help=False, allow_abbrev=False)
    parser.add_argument(positional, nargs="*")
    for option in options:
        if option.placeholder is None:
            parser.add_argument(*option.flags, action="store_true", dest=option.dest)
        else:
            choices = option.choices or None
            parser.add_argument(*option.flags, choices=choices, metavar=option.placeholder, dest=option.dest)
    return parser


def parse(parser: argparse.ArgumentParser, args: Sequence[str], positional: str) -> argparse.Namespace:
    """Options may come between the words (`rein fix it -p`); everything after `--` is words, even
    `-p` (Python 3.11's intermixed parsing mishandles `--`, so it is split off here). Raises
    `UsageError`."""
    cut = args.index("--") if "--" in args else len(args)
    values = parser.parse_intermixed_args(list(args[:cut]))
    setattr(values, positional, [*getattr(values, positional), *args[cut + 1 :]])
    return values
