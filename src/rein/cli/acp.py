"""`rein acp`: rein's agent for editors (Zed, JetBrains IDEs, Neovim plugins), over the Agent Client
Protocol on stdio. The editor starts it; stdout carries the protocol, rein's warnings go to stderr.

Exit codes (the table every `rein` command follows, see docs/cli.md):

    0  the editor closed the connection
    2  usage or input error: a bad option, stdin or stdout a file (not a pipe), the `acp` extra
       not installed
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Annotated

import typer

from rein.cli._agent_app import APPROVE, AgentOptions
from rein.cli._typer import command, plain_app, run_app
from rein.cli.agent import StartError, session_for
from rein.extensions import UI
from rein.session import AgentSession

try:  # the `acp` extra: without it, `rein acp` says how to install it
    from rein.acp import StartFailed, serve, stdio_problem
except ImportError as error:
    if error.name != "acp":
        raise
    MISSING: str | None = "rein acp needs the acp extra: pip install 'rein[acp]' (agent-client-protocol)"
else:
    MISSING = None

app = plain_app("rein's agent for editors, over the Agent Client Protocol (ACP) on stdio.")


@command(app)
def acp(
    provider: Annotated[
        str | None,
        typer.Option(
            metavar="<name>", help="anthropic, openai, openai-responses, local or faux (as `rein`)."
        ),
    ] = None,
    model: Annotated[
        str | None, typer.Option(metavar="<id>", help="Model id (default: the provider's).")
    ] = None,
    base_url: Annotated[
        str | None, typer.Option(metavar="<url>", help="An OpenAI- or Anthropic-compatible server.")
    ] = None,
    approve: Annotated[
        str | None,
        typer.Option(
            metavar="<ask|auto|deny>",
            help="bash, write, edit and MCP tool calls: ask the editor first, run them, or refuse them"
            " (default: the settings' [rein] approve, else ask).",
        ),
    ] = None,
    no_extensions: Annotated[bool, typer.Option(help="Do not load user extensions.")] = False,
) -> None:
    """Serve rein's agent to an editor over ACP on stdin/stdout until the editor closes stdin.
    Sessions are rein's own session files (`rein sessions` lists them). Provider keys come from
    this process's environment.

    Exit status: 0 the editor closed the connection, 2 usage or input error.
    """
    if MISSING is not None:
        typer.echo(f"rein acp: {MISSING}", err=True)
        raise typer.Exit(2)
    problem = stdio_problem()
    if problem is not None:
        typer.echo(f"rein acp: {problem}", err=True)
        raise typer.Exit(2)
    mode = next((choice for choice in APPROVE if choice == approve), None)
    if approve is not None and mode is None:
        typer.echo(f"rein acp: --approve {approve!r} is not one of {', '.join(APPROVE)}", err=True)
        raise typer.Exit(2)
    base = AgentOptions(
        provider=provider, model=model, base_url=base_url, approve=mode, no_extensions=no_extensions
    )

    def factory(cwd: Path, session_file: Path | None, ui: UI) -> AgentSession:
        try:
            resume = str(session_file) if session_file is not None else None
            return session_for(dataclasses.replace(base, cwd=cwd, resume=resume), ui)
        except StartError as error:
            raise StartFailed(str(error)) from None

    raise typer.Exit(serve(factory))


def run(args: list[str], prog: str) -> int:
    return run_app(app, args, prog)
