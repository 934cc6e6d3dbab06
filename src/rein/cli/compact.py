"""`rein compact SESSION`: compact a session file's active branch now, as `/compact` does in a session.

Exit codes (the table every `rein` command follows, see docs/cli.md):

    0  compacted, or nothing to compact (said on stderr)
    1  the summarizer failed (its provider's error is printed)
    2  usage or input error: a bad option, a session file that cannot be read or continued, no model
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from rein.cli._agent_app import AgentOptions
from rein.cli._render import TerminalUI
from rein.cli._typer import command, plain_app, run_app
from rein.cli.agent import StartError, session_for
from rein.session.compaction import NothingToCompact, SummaryError, SummaryOverflow

app = plain_app("Compact a session file: summarize the older turns of its active branch.")


@command(app)
def compact(
    session: Annotated[Path, typer.Argument(metavar="SESSION", help="The session file (.jsonl).")],
    instructions: Annotated[
        list[str] | None,
        typer.Argument(
            metavar="[INSTRUCTIONS]...", help="What the summary should focus on.", show_default=False
        ),
    ] = None,
    provider: Annotated[str | None, typer.Option(metavar="<name>", help="The summarizing provider.")] = None,
    model: Annotated[str | None, typer.Option(metavar="<id>", help="The summarizing model.")] = None,
    base_url: Annotated[str | None, typer.Option(metavar="<url>", help="A compatible server.")] = None,
) -> None:
    """Compact SESSION's active branch now: its older turns become a summary (with the files changed,
    the last command, open failures and TODOs extracted by rein), the recent turns are kept. Nothing is
    removed from the file: one compaction entry is appended.

    Exit status: 0 compacted (or nothing to compact), 1 the summarizer failed, 2 usage or input error.
    """
    errors = Console(stderr=True, highlight=False, soft_wrap=True)
    options = AgentOptions(
        print_mode=True,
        provider=provider,
        model=model,
        base_url=base_url,
        resume=str(session),
        no_extensions=True,
    )
    try:
        agent = session_for(options, TerminalUI(errors))
    except StartError as error:
        errors.print(f"rein compact: {error}", markup=False)
        raise typer.Exit(error.code) from None
    text = " ".join(instructions or ()).strip() or None
    try:
        result = asyncio.run(agent.compact(text))
    except NothingToCompact as error:
        errors.print(f"rein compact: {agent.store.path}: {error}", markup=False)
        raise typer.Exit(0) from None
    except (SummaryError, SummaryOverflow) as error:
        errors.print(f"rein compact: {agent.store.path}: the summary failed: {error}", markup=False)
        raise typer.Exit(1) from None
    agent.store.sync()
    print(f"{agent.store.path}: {result.describe()}")


def run(args: list[str], prog: str) -> int:
    return run_app(app, args, prog)
