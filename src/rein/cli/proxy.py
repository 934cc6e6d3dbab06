"""`rein proxy`: stream rules for any OpenAI or Anthropic client (see docs/proxy.md).

Exit codes (the table every `rein` command follows, see docs/cli.md):

    0  stopped by SIGTERM or SIGINT
    2  usage or input error: a bad option or upstream URL, a rules folder or settings file that cannot
       be used, a port that cannot be opened
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer

from rein.cli._typer import command, plain_app, run_app
from rein.proxy import (
    LATE_POLICIES,
    MAX_HOLD,
    SHUTDOWN_TIMEOUT,
    STEERING_MODES,
    ProxyConfig,
    ProxyConfigError,
    budget_config,
    check_upstream,
    load_routes,
    load_rules,
    serve,
)
from rein.settings import SettingsFileError, load_settings
from rein.ttsr import SettingsError, TtsrSettings

app = plain_app("Stream rules for any OpenAI or Anthropic client: a proxy in front of the provider.")


@command(app)
def proxy(
    upstream: Annotated[
        str,
        typer.Option(metavar="<url>", help="The API's base URL, as an SDK takes it (with or without /v1)."),
    ],
    port: Annotated[
        int, typer.Option(metavar="<n>", help="Port (0: any free one).", min=0, max=65535)
    ] = 8787,
    host: Annotated[str, typer.Option(metavar="<addr>", help="Address to bind.")] = "127.0.0.1",
    rules: Annotated[
        Path | None,
        typer.Option(metavar="<dir>", help="A folder of rule files (default: rein's discovery from here)."),
    ] = None,
    max_hold: Annotated[
        int, typer.Option(metavar="<chars>", help="Most characters held back per stream.", min=1, max=4096)
    ] = MAX_HOLD,
    late_policy: Annotated[
        str,
        typer.Option(metavar="<policy>", help="On a match in text already sent: " + ", ".join(LATE_POLICIES)),
    ] = "append-correction",
    max_retries: Annotated[
        int, typer.Option(metavar="<n>", help="Retries per request before the reply ends.", min=0, max=20)
    ] = 3,
    steering: Annotated[
        str | None,
        typer.Option(
            metavar="<mode>",
            help="Tool calls rein's steering refuses: " + ", ".join(STEERING_MODES) + " (default: retry).",
        ),
    ] = None,
    route: Annotated[
        list[str] | None,
        typer.Option(
            metavar="<route>",
            help="GLOB=URL: send the models GLOB matches to URL (repeatable; before [[proxy.route]]"
            " settings).",
        ),
    ] = None,
    budget: Annotated[
        list[str] | None,
        typer.Option(
            metavar="<budget>",
            help="A budget, e.g. session.tokens=100000, key.spend_usd=5 (repeatable; names: tokens, requests,"
            " spend_usd, minutes; over [proxy.budget]).",
        ),
    ] = None,
    state: Annotated[
        Path | None,
        typer.Option(
            metavar="<file>", help="The SQLite file budgets are kept in (~/.rein/proxy/budgets.sqlite3)."
        ),
    ] = None,
    prices: Annotated[
        Path | None,
        typer.Option(
            metavar="<file>",
            help="A TOML file of model prices, USD per million tokens (over [proxy.prices]).",
        ),
    ] = None,
    workers: Annotated[
        int, typer.Option(metavar="<n>", help="Processes serving the port (counters shared).", min=1, max=256)
    ] = 1,
    shutdown_timeout: Annotated[
        int,
        typer.Option(
            metavar="<seconds>", help="On SIGTERM or SIGINT, how long open streams have to finish.", min=0
        ),
    ] = SHUTDOWN_TIMEOUT,
) -> None:
    """Serve /v1/chat/completions, /v1/responses and /v1/messages with rein's stream rules, forwarding
    everything else unchanged. Point a client's base URL at http://HOST:PORT/v1 (Anthropic SDK:
    http://HOST:PORT); its API key passes through. Counters: GET /rein/status, GET /metrics (Prometheus).

    Exit status: 0 stopped by a signal, 2 usage or input error.
    """
    cwd, home = Path.cwd(), Path.home()
    try:
        policy = next((p for p in LATE_POLICIES if p == late_policy), None)
        if policy is None:
            raise ProxyConfigError(f"--late-policy {late_policy!r}: use one of {', '.join(LATE_POLICIES)}")
        found = load_rules(cwd, home, rules)
        loaded = load_settings(cwd, home)
        settings = TtsrSettings.from_mapping(loaded.get("ttsr", {}))
        chosen = steering or loaded.get("proxy", {}).get("steering", "retry")
        mode = next((m for m in STEERING_MODES if m == chosen), None)
        if mode is None:
            raise ProxyConfigError(f"--steering {chosen!r}: use one of {', '.join(STEERING_MODES)}")
        config = ProxyConfig(
            upstream=check_upstream(upstream),
            rules=found.rules,
            issues=found.issues,
            settings=settings,
            root=str(cwd),
            max_hold=max_hold,
            late_policy=policy,
            max_retries=max_retries,
            steering=mode,
            routes=load_routes(route or [], loaded.get("proxy", {}).get("route"), os.environ),
            budget=budget_config(
                loaded.get("proxy", {}), flags=budget or [], state=state, prices=prices, home=home
            ),
        )
    except (ProxyConfigError, SettingsFileError, SettingsError) as error:
        typer.echo(f"rein proxy: {error}", err=True)
        raise typer.Exit(2) from None
    raise typer.Exit(serve(config, host, port, workers=workers, shutdown_timeout=shutdown_timeout))


def run(args: list[str], prog: str) -> int:
    return run_app(app, args, prog)
