"""`rein export SESSION`: a session as one self-contained HTML page (the tree, tool calls folded,
stream-rule injections and steering blocks marked), as pi's `/export` writes.

SESSION is a session file (rein's or pi's), or the id, or a unique start of the id, of a session of
this directory (`rein sessions` lists them). The page goes to ~/.rein/exports/<id>.html, not into the
project, unless `-o` says where (`-o -`: stdout).

Exit codes (the table every `rein` command follows, see docs/cli.md):

    0  written
    1  the page could not be written (the output file's directory is missing, read-only, ...)
    2  usage or input error: a bad option, no such file, not a session file, an id that names no
       session or more than one
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Annotated

import typer

from rein.cli._html import render_page
from rein.cli._typer import command, plain_app, run_app
from rein.session import Session, SessionError, list_sessions, sessions_dir

app = plain_app("Write a session as a self-contained HTML page.")

PROG = "rein export"
EXPORTS_DIR = Path(".rein") / "exports"
"""Under the home directory: where pages go unless `-o` says."""


class _Bad(Exception):
    """Bad input, told as one line; exit 2."""


def run(args: list[str], prog: str) -> int:
    """Entry point used by `rein` (see `rein.cli.COMMANDS`)."""
    return run_app(app, args, prog)


@command(app)
def export(
    session: Annotated[
        str,
        typer.Argument(metavar="SESSION", help="A session file, or the id (or its start) of a session here."),
    ],
    html: Annotated[
        bool, typer.Option("--html", help="Write HTML (the one format, so the default).")
    ] = False,
    output: Annotated[
        str | None,
        typer.Option(
            "-o",
            "--output",
            metavar="<file>",
            help="Where to write the page; - for stdout (default: ~/.rein/exports/<id>.html).",
        ),
    ] = None,
    cwd: Annotated[
        Path | None,
        typer.Option(
            "--cwd", metavar="<dir>", help="Look ids up among this directory's sessions (default: here)."
        ),
    ] = None,
) -> None:
    """Write a session as a self-contained HTML page: the header, the whole tree with every branch
    and label (the active path marked), tool calls folded with their output, and stream-rule
    injections, steering blocks and timebox notices marked.

    The page loads nothing and runs no script, so it opens offline and can be mailed. It is written
    to ~/.rein/exports/<id>.html (the path is printed), or where -o says; -o - writes it to stdout.

    Exit status: 0 written, 1 the page could not be written, 2 usage or input error.
    """
    where = str((cwd or Path.cwd()).resolve())
    try:
        path = resolve(session, where)
        store = Session.open(path)
    except _Bad as error:
        typer.echo(f"{PROG}: {error}", err=True)
        raise typer.Exit(2) from None
    except SessionError as error:
        typer.echo(f"{PROG}: {error}", err=True)
        raise typer.Exit(2) from None
    except OSError as error:
        typer.echo(f"{PROG}: {session}: cannot be read: {error.strerror or error}", err=True)
        raise typer.Exit(2) from None
    for warning in store.warnings:
        typer.echo(f"{PROG}: warning: {warning}", err=True)
    page = render_page(store).encode("utf-8", errors="replace")  # a lone surrogate from JSON
    if output == "-":
        sys.stdout.buffer.write(page)
        sys.stdout.flush()
        return
    target = Path(output) if output else Path.home() / EXPORTS_DIR / f"{store.id}.html"
    try:
        if not output:
            target.parent.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        why = error.strerror or error
        typer.echo(
            f"{PROG}: cannot make the folder {target.parent}: {why} (-o <file> writes elsewhere)", err=True
        )
        raise typer.Exit(1) from None
    try:
        target.write_bytes(page)
    except OSError as error:
        typer.echo(f"{PROG}: cannot write {target}: {error.strerror or error}", err=True)
        raise typer.Exit(1) from None
    print(target)


def resolve(session: str, cwd: str) -> Path:
    """The file SESSION names: a path that exists, else a session of `cwd` whose id is SESSION or
    starts with it. Raises `_Bad` naming what was looked for."""
    given = Path(session).expanduser()
    if given.is_dir():
        raise _Bad(f"{session}: is a directory, not a session file")
    if given.exists():
        return given
    if os.sep in session or session.endswith(".jsonl") or not session:
        raise _Bad(f"{session}: no such file")
    home = Path.home()
    found = [info for info in list_sessions(home, cwd) if info.id.startswith(session)]
    exact = [info for info in found if info.id == session]
    if exact or len(found) == 1:
        return (exact or found)[0].path
    if not found:
        raise _Bad(
            f"{session}: no such file, and no session of {cwd} has an id starting so "
            f"(looked in {sessions_dir(home, cwd)}; rein sessions lists them)"
        )
    names = ", ".join(f"{info.id} ({info.modified:%Y-%m-%d %H:%M})" for info in found)
    raise _Bad(f"{session}: the start of {len(found)} session ids here: {names}; give more of it")
