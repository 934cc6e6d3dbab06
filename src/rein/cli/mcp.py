"""`rein mcp list`: the MCP servers rein's agent would start here, where each is configured, whether it
starts (and if not, why), and its tools as the model sees them.

Module imports stay light: the SDK loads only when a server is configured (`rein.mcp.ServerSet`).

Exit codes (the table every `rein` command follows, see docs/cli.md):

    0  listed: every server started (or none is configured)
    1  a server failed to start (listed with the reason)
    2  usage error: a bad option
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Annotated

import typer

from rein import mcp
from rein.cli._typer import command, plain_app, run_app

app = plain_app("List the MCP servers rein's agent uses here.", no_args_is_help=True)


def run(args: list[str], prog: str) -> int:
    """Entry point used by `rein` (see `rein.cli.COMMANDS`)."""
    return run_app(app, args, prog)


@app.callback()
def main() -> None:
    """MCP servers for rein's agent: from .mcp.json, ~/.claude.json and [mcp] in rein's settings."""


@command(app, "list")
def list_servers(
    cwd: Annotated[
        Path | None,
        typer.Option("--cwd", metavar="<dir>", help="The project directory (default: here)."),
    ] = None,
    timeout: Annotated[
        float,
        typer.Option(metavar="<seconds>", help="How long each server has to start.", min=0.1),
    ] = mcp.START_TIMEOUT,
) -> None:
    """List the configured MCP servers, their state and their tools.

    Each server is started, listed and stopped: one block per server (its name, where it is
    configured, how it is started or reached), its state (`ok: N tools`, or `failed: reason`) and its
    tools as the model sees them, `mcp__<server>__<tool>`. Servers switched off (`enabled = false`)
    are listed last; a configuration problem is one line on stderr.

    Exit status: 0 listed, 1 a server failed to start, 2 usage error.
    """
    where = (cwd or Path.cwd()).resolve()
    configured = mcp.configured_servers(where, Path.home())
    for problem in configured.problems:
        print(f"rein mcp: {problem}", file=sys.stderr)
    if not configured.servers:
        print(f"no MCP servers configured for {where} (.mcp.json, ~/.claude.json, [mcp] in settings)")
        for line in mcp.report(configured, None):
            print(line)
        return
    servers = mcp.ServerSet(configured.servers, cwd=str(where))

    async def probe() -> list[str]:
        await servers.start(timeout)
        try:
            return mcp.report(configured, servers)
        finally:
            await servers.stop()

    for line in asyncio.run(probe()):
        print(line)
    if mcp.failures(servers):
        raise typer.Exit(1)
