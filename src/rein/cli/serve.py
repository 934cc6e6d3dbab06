"""`rein serve`: the session server (see docs/server.md).

Exit codes (the table every `rein` command follows, see docs/cli.md):

    0  stopped by SIGTERM or SIGINT
    2  usage or input error: a bad option, a non-loopback --host without a token, a store or port
       that cannot be opened
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer

from rein.cli._typer import command, plain_app, run_app
from rein.server import ConfigError, load_config
from rein.server import serve as run_server

app = plain_app("Serve sessions over HTTP: the session tree and the model calls live on this machine.")


@command(app)
def serve(
    host: Annotated[
        str, typer.Option(metavar="<addr>", help="Address to bind (not loopback: needs a token).")
    ] = "127.0.0.1",
    port: Annotated[
        int, typer.Option(metavar="<n>", help="Port (0: any free one).", min=0, max=65535)
    ] = 4217,
    db: Annotated[
        str | None,
        typer.Option(
            metavar="<url>",
            help="A SQLite file, sqlite:///path or postgresql://... (default: REIN_SERVER_DB,"
            " else ~/.rein/server/sessions.db).",
        ),
    ] = None,
    tokens_file: Annotated[
        str | None,
        typer.Option(metavar="<file>", help="`USER TOKEN` lines: one token per user, sessions kept apart."),
    ] = None,
    provider: Annotated[
        str, typer.Option(metavar="<name>", help="The provider of server-side runs.")
    ] = "faux",
    model: Annotated[
        str | None, typer.Option(metavar="<id>", help="Its model (default: the provider's).")
    ] = None,
    models: Annotated[
        str | None,
        typer.Option(
            metavar="<globs>",
            help='Models a client may name, e.g. "gpt-4.1*,o3" (default: [server] models, else any).',
        ),
    ] = None,
    base_url: Annotated[str | None, typer.Option(metavar="<url>", help="A compatible model server.")] = None,
    allow_client_keys: Annotated[bool, typer.Option(help="Honour a request's options.apiKey.")] = False,
    max_request_kb: Annotated[
        int, typer.Option(metavar="<kb>", help="Largest body; larger ones go in chunks.", min=1)
    ] = 512,
    rate_per_minute: Annotated[
        int, typer.Option(metavar="<n>", help="Requests a minute per user (0: no limit).", min=0)
    ] = 600,
    max_pending_chunks_mb: Annotated[
        int, typer.Option(metavar="<mb>", help="Chunks of unfinished uploads, all users.", min=1)
    ] = 256,
    max_pending_chunks_mb_per_user: Annotated[
        int, typer.Option(metavar="<mb>", help="The same, per user (0: only the total).", min=0)
    ] = 64,
    header_timeout: Annotated[
        int,
        typer.Option(
            metavar="<s>", help="Close a connection that sends no full request head (0: never).", min=0
        ),
    ] = 10,
    body_timeout: Annotated[
        int, typer.Option(metavar="<s>", help="408 for a request body idle this long (0: never).", min=0)
    ] = 30,
    max_connections_per_client: Annotated[
        int,
        typer.Option(
            metavar="<n>",
            help="Open connections per client address; behind a proxy, raise it (0: no limit).",
            min=0,
        ),
    ] = 128,
    timebox: Annotated[
        str | None,
        typer.Option(metavar="<budget>", help='Every session\'s budget, e.g. "30m turns:20 tokens:2M".'),
    ] = None,
    approve: Annotated[
        str | None,
        typer.Option(
            metavar="<mode>",
            help="The web page's runs: ask (the page asks), auto or deny bash, write and edit calls"
            " (default: the session directory's [rein] approve, else ask).",
        ),
    ] = None,
    drain_seconds: Annotated[
        int,
        typer.Option(
            metavar="<s>",
            help="On SIGTERM, answer /ready 503 and keep serving this long before stopping.",
            min=0,
        ),
    ] = 5,
    run_lease_seconds: Annotated[
        int,
        typer.Option(
            metavar="<s>",
            help="A run's lease: when its process dies, the run is marked interrupted this long after.",
            min=1,
        ),
    ] = 10,
    upload_dir: Annotated[
        str | None,
        typer.Option(
            metavar="<dir>",
            help="Where clients' `send` uploads land, a folder per user (default: REIN_SERVER_UPLOAD_DIR,"
            " else ~/.rein/server/uploads).",
        ),
    ] = None,
) -> None:
    """Serve sessions over HTTP on HOST:PORT (127.0.0.1:4217 by default) until stopped. Any address
    but loopback needs REIN_SERVER_TOKEN (bearer auth) or --tokens-file. Provider keys come from this
    process's environment, never from a client unless --allow-client-keys.

    Exit status: 0 stopped by a signal, 2 usage or input error.
    """
    options: dict[str, object] = {
        "host": host, "port": port, "db": db, "tokens_file": tokens_file, "provider": provider,
        "model": model, "models": models, "base_url": base_url, "allow_client_keys": allow_client_keys,
        "max_request_kb": max_request_kb, "rate_per_minute": rate_per_minute, "cwd": str(Path.cwd()),
        "timebox": timebox, "approve": approve, "drain_seconds": drain_seconds,
        "max_pending_chunks_mb": max_pending_chunks_mb,
        "max_pending_chunks_mb_per_user": max_pending_chunks_mb_per_user, "header_timeout": header_timeout,
        "body_timeout": body_timeout, "max_connections_per_client": max_connections_per_client,
        "run_lease_seconds": run_lease_seconds, "upload_dir": upload_dir,
    }  # fmt: skip
    try:
        config = load_config(options, os.environ)
    except ConfigError as error:
        typer.echo(f"rein serve: {error}", err=True)
        raise typer.Exit(2) from None
    raise typer.Exit(run_server(config))


def run(args: list[str], prog: str) -> int:
    return run_app(app, args, prog)
