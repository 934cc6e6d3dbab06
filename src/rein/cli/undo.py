"""`rein undo [N]`: put back the files of the last N turns of this directory's latest session, as
`/undo` does inside it.

Exit codes (the table every `rein` command follows, see docs/cli.md):

    0  undone (each file printed), or nothing to undo (said on stderr)
    1  git failed while restoring (its words are printed)
    2  usage or input error: a bad N, no session here, a session file that cannot be written
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from rein.builtins import UndoResult, undo_turns
from rein.checkpoints import CheckpointError, ShadowRepo
from rein.cli._typer import command, plain_app, run_app
from rein.session import Session, SessionError, find_latest_session

app = plain_app("Put back the files of the last turns of this directory's latest session.")


def run(args: list[str], prog: str) -> int:
    """Entry point used by `rein` (see `rein.cli.COMMANDS`)."""
    return run_app(app, args, prog)


@command(app)
def undo(
    turns: Annotated[
        int, typer.Argument(metavar="N", help="How many turns that changed files to undo.", min=1)
    ] = 1,
    cwd: Annotated[
        Path | None,
        typer.Option("--cwd", metavar="<dir>", help="The directory whose session to use (default: here)."),
    ] = None,
) -> None:
    """Put back the files of the last N turns (1 by default) of this directory's latest session that
    changed files: modified files get their old content, created ones are deleted, deleted ones come
    back. Each file is printed. A file changed by someone after the turn is restored all the same, and
    said so; the state it had is kept in rein's shadow repository (~/.rein/checkpoints/).

    Exit status: 0 undone (or nothing to undo), 1 git failed, 2 usage or input error.
    """
    home = Path.home()
    where = (cwd or Path.cwd()).resolve()
    found = find_latest_session(home, where)
    if found is None:
        typer.echo(f"rein undo: no session of {where} (rein sessions lists them)", err=True)
        raise typer.Exit(2)
    try:
        store = Session.open(found)
        store.require_writable()
    except (SessionError, OSError) as error:
        typer.echo(f"rein undo: {found}: {error}", err=True)
        raise typer.Exit(2) from None
    try:
        result = undo_turns(store, ShadowRepo(where, home), turns)
    except CheckpointError as error:
        typer.echo(f"rein undo: {error}", err=True)
        raise typer.Exit(1) from None
    if isinstance(result, str):
        typer.echo(f"rein undo: {found.name}: {result}", err=True)
        return
    tell_model(store, result)
    store.sync()
    for line in result.lines():
        print(line)


def tell_model(store: Session, result: UndoResult) -> None:
    """The model hears of the undo with the session's next prompt, as after `/undo`."""
    if result.undone.files:
        store.append_custom_message("checkpoint_undo", result.note(), display=False)
