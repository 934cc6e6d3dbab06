"""One help layout for every `rein` command, and one-line usage errors.

Every page reads the same, whichever parser is behind it (click's plain layout):

    Usage: rein check [OPTIONS] [COMMAND]...

      One line that says what the command does.

      More paragraphs, if any.

    Arguments:
      COMMAND...  What it is.

    Options:
      --cwd <dir>  What it does.
      -h, --help   Show this message and exit.

    Commands:
      name  What it does.

The hook and check paths start a process per tool call, so this module is plain stdlib: they render
their pages here, and the typer commands (`rein.cli._typer`) render theirs here too, from click's
parameters, so no page can drift into another style.
"""

from __future__ import annotations

import os
import sys
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass

HELP_ROW = ("-h, --help", "Show this message and exit.")
HELP_FLAGS = ("-h", "--help")
COL_MAX = 30  # a first column wider than this puts its help on the next line, as click does


@dataclass(frozen=True, slots=True, kw_only=True)
class HelpPage:
    """A command's help. `usage` holds each form without the `Usage: ` prefix (`rein check [OPTIONS]`);
    `summary` is one line; `details` more paragraphs separated by blank lines; the row tuples are
    (term, help) pairs. `options` gets the `-h, --help` row appended when rendered."""

    usage: tuple[str, ...]
    summary: str
    details: str = ""
    arguments: tuple[tuple[str, str], ...] = ()
    options: tuple[tuple[str, str], ...] = ()
    commands: tuple[tuple[str, str], ...] = ()


def width() -> int:
    """The text width: the terminal's (or $COLUMNS), at most 78 and at least 50 (click's rule). Not
    `shutil.get_terminal_size`: importing shutil costs the check path more than the rest of this."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        try:
            columns = os.get_terminal_size(sys.stdout.fileno()).columns
        except (AttributeError, OSError, ValueError):
            columns = 80
    return max(min(columns, 80) - 2, 50)


def render(page: HelpPage, columns: int | None = None) -> str:
    """The page as text, ending in a newline."""
    text_width = columns or width()
    first, *more = page.usage
    out = [f"Usage: {first}", *(f"       {form}" for form in more), ""]
    out.append(_paragraphs(page.summary + ("\n\n" + page.details if page.details else ""), text_width))
    has_help = any("--help" in term.split(", ") for term, _ in page.options)
    options = page.options if has_help else (*page.options, HELP_ROW)
    for title, rows in (("Arguments", page.arguments), ("Options", options), ("Commands", page.commands)):
        if rows:
            out += ["", f"{title}:", _rows(rows, text_width)]
    return "\n".join(out) + "\n"


def wants_help(args: Sequence[str]) -> bool:
    """`-h` or `--help` before a `--` (after it they are words of a command)."""
    for arg in args:
        if arg == "--":
            return False
        if arg in HELP_FLAGS:
            return True
    return False


def usage_error(prog: str, problem: str) -> int:
    """Print a usage error as one line on stderr; returns 2, the usage exit code."""
    print(f"{prog}: {problem} (see '{prog} --help')", file=sys.stderr)
    return 2


def _paragraphs(text: str, text_width: int) -> str:
    wrapper = textwrap.TextWrapper(
        text_width,
        initial_indent="  ",
        subsequent_indent="  ",
        break_long_words=False,
        break_on_hyphens=False,
    )
    paragraphs = [" ".join(p.split()) for p in text.split("\n\n") if p.strip()]
    return "\n\n".join(wrapper.fill(p) for p in paragraphs)


def _rows(rows: Sequence[tuple[str, str]], text_width: int) -> str:
    first_col = min(max(len(term) for term, _ in rows), COL_MAX) + 2
    help_width = max(text_width - first_col - 2, 10)
    lines: list[str] = []
    for term, text in rows:
        wrapped = textwrap.wrap(
            " ".join(text.split()), help_width, break_long_words=False, break_on_hyphens=False
        ) or [""]
        if len(term) <= first_col - 2:
            lines.append(f"  {term:<{first_col}}{wrapped[0]}".rstrip())
        else:
            lines += [f"  {term}", f"  {'':<{first_col}}{wrapped[0]}"]
        lines += [f"  {'':<{first_col}}{line}" for line in wrapped[1:]]
    return "\n".join(lines)
