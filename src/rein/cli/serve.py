"""`rein serve`: the session server (see docs/server.md).

Exit codes (the table every `rein` command follows, see docs/cli.md):

    0  stopped by SIGTERM or SIGINT
    2  usage or input error: a bad option, a non-loopback --host without a token, a store or port
       that cannot be opened
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated

import typer

from rein.ai.providers.local_files import INSTALL_HINT
from rein.cli._provider import NoProvider, choose_provider
from rein.cli._typer import command, plain_app, run_app
from rein.server import ConfigError, load_config
from rein.server import serve as run_server
from rein.settings import SettingsFileError, load_settings

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
        str | None,
        typer.Option(
            metavar="<name>",
            help="The provider of server-side runs (default: as `rein` chooses: [rein] provider, an API"
            " key, the local model).",
        ),
    ] = None,
    model: Annotated[
        str | None,
        typer.Option(metavar="<id>", help="Its model (default: [rein] model, else the provider's)."),
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
            help="The web page's runs: ask (the page asks), auto or deny bash, write, edit and MCP tool calls"
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
    cwd: Annotated[
        str | None,
        typer.Option(
            metavar="<dir>",
            help="The directory of sessions started from the web page, and of the server's settings"
            " (default: this one).",
        ),
    ] = None,
) -> None:
    """Serve sessions over HTTP on HOST:PORT (127.0.0.1:4217 by default) until stopped. Any address
    but loopback needs REIN_SERVER_TOKEN (bearer auth) or --tokens-file. Provider keys come from this
    process's environment, never from a client unless --allow-client-keys.

    Exit status: 0 stopped by a signal, 2 usage or input error.
    """
    where = Path(cwd).expanduser().resolve() if cwd else Path.cwd()
    if not where.is_dir():
        typer.echo(f"rein serve: --cwd {where}: not a directory", err=True)
        raise typer.Exit(2)
    if upload_dir is None:
        upload_dir = os.environ.get("REIN_SERVER_UPLOAD_DIR") or None
    if upload_dir is not None:  # relative to where `rein serve` starts, not to --cwd
        upload_dir = str(Path(upload_dir).expanduser().absolute())
    try:
        chosen, notice = choose(provider, model, base_url, where, os.environ)
    except SettingsFileError as error:
        typer.echo(f"rein serve: {error}", err=True)
        raise typer.Exit(2) from None
    options: dict[str, object] = {
        "host": host, "port": port, "db": db, "tokens_file": tokens_file, **chosen, "models": models,
        "allow_client_keys": allow_client_keys,
        "max_request_kb": max_request_kb, "rate_per_minute": rate_per_minute, "cwd": str(where),
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
    raise typer.Exit(run_server(config, notice))


def choose(
    provider: str | None, model: str | None, base_url: str | None, cwd: Path, env: Mapping[str, str]
) -> tuple[dict[str, object], str]:
    """The provider, model and base URL of server-side runs, as `rein` in `cwd` chooses them (the
    options, else `[rein]` in the settings, an API key, the local model), and a notice for stderr
    ("": none). With no model to be had, the scripted echo provider serves and the notice says why.
    Raises SettingsFileError."""
    home = Path(env["HOME"]) if env.get("HOME") else Path.home()
    general = load_settings(cwd, home, warn=lambda _message: None).get("rein", {})  # warned by load_config
    notice = ""
    try:
        name = choose_provider(provider, general, env)
    except NoProvider:
        name = "faux"
        notice = (
            "rein serve: no API key is set and the local model is not installed, so runs get the scripted"
            ' echo provider (it answers "You said: ..."); set ANTHROPIC_API_KEY or OPENAI_API_KEY, or'
            f" install the local model: {INSTALL_HINT}"
        )
    if name == "local" and not provider and "provider" not in general:
        notice = (
            "rein serve: no API key is set, so the embedded local model answers (small, for trying rein"
            " out); set ANTHROPIC_API_KEY or OPENAI_API_KEY for real work"
        )
    configured_model, configured_url = general.get("model"), general.get("base_url")
    return {
        "provider": name,
        "model": model or (str(configured_model) if configured_model else None),
        "base_url": base_url or (str(configured_url) if configured_url else None),
    }, notice


def run(args: list[str], prog: str) -> int:
    return run_app(app, args, prog)
