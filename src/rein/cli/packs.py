"""`rein packs`: rein's packs of default rules for destructive operations, each rule's verdict (block,
ask or off) and where that setting came from (rein's default, or a `packs = {...}` entry, a
`disabled_rules` list or `disable_defaults` in a `.rein/steering.toml`)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from rein.cli._typer import command, plain_app, run_app
from rein.steering import ConfigError, PackState, load_policy

app = plain_app("List rein's packs, their rules, verdicts and where each setting came from.")
SUBCOMMANDS: tuple[str, ...] = ()
COLOURS = {"block": "red", "ask": "yellow", "off": "dim"}


def pack_json(state: PackState) -> dict[str, object]:
    rules = {rule.name: rule for rule in state.pack.rules}
    return {
        "name": state.pack.name,
        "summary": state.pack.summary,
        "allows": state.pack.allows,
        "verdict": state.verdict,
        "source": state.source,
        "file": state.pack.file,
        "rules": [
            {
                "name": rule.name,
                "verdict": rule.verdict,
                "source": rule.source,
                "reason": rules[rule.name].reason,
                "commands": sorted(rules[rule.name].matcher.command),
            }
            for rule in state.rules
        ],
    }


@command(app)
def packs(
    names: Annotated[
        list[str] | None, typer.Argument(metavar="[PACK]...", help="Show only these packs, rule by rule.")
    ] = None,
    cwd: Annotated[
        Path | None, typer.Option(metavar="<dir>", help="Directory whose settings apply (default: here).")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON for tools.")] = False,
) -> None:
    """List rein's packs (disk, permissions, system, database, containers, kubernetes, cloud, iac,
    hosting, publish): what each blocks or asks about, what it allows, and its verdict. Name packs to
    see each rule with its verdict and where that setting came from. Change them in
    .rein/steering.toml: packs = { database = "block", publish = "off" }.

    Exit status: 0 listed, 2 usage or input error (an unknown pack, a broken steering.toml).
    """
    errors = Console(stderr=True, highlight=False)
    where = (cwd or Path.cwd()).resolve()
    try:
        states = load_policy(where, Path.home()).policy.packs
    except ConfigError as error:
        errors.print(f"rein packs: {escape(str(error))}", soft_wrap=True)
        raise typer.Exit(2) from None
    known = [state.pack.name for state in states]
    unknown = [name for name in names or [] if name not in known]
    if unknown:
        errors.print(
            f"rein packs: no pack is named {unknown[0]!r} (packs: {', '.join(known)})", soft_wrap=True
        )
        raise typer.Exit(2)
    chosen = [state for state in states if not names or state.pack.name in names]
    if as_json:
        print(json.dumps([pack_json(state) for state in chosen], indent=2))
        return
    console = Console(highlight=False)
    console.print(_packs(chosen) if not names else _rules(chosen))


def _verdict(verdict: str) -> str:
    return f"[{COLOURS[verdict]}]{verdict}[/]"


def _packs(states: list[PackState]) -> Table:
    table = Table(header_style="bold")
    for column in ("pack", "verdict", "rules", "blocks or asks", "allows", "set by"):
        table.add_column(column, overflow="fold")
    for state in states:
        on = sum(rule.verdict != "off" for rule in state.rules)
        table.add_row(
            state.pack.name, _verdict(state.verdict), f"{on}/{len(state.rules)}", escape(state.pack.summary),
            escape(state.pack.allows), escape(state.source),
        )  # fmt: skip
    return table


def _rules(states: list[PackState]) -> Table:
    table = Table(header_style="bold")
    for column in ("pack", "rule", "verdict", "set by", "programs"):
        table.add_column(column, overflow="fold")
    for state in states:
        by_name = {rule.name: rule for rule in state.pack.rules}
        for rule in state.rules:
            programs = ", ".join(sorted(by_name[rule.name].matcher.command)) or "any"
            table.add_row(
                state.pack.name, rule.name, _verdict(rule.verdict), escape(rule.source), escape(programs)
            )
    return table


def run(args: list[str], prog: str) -> int:
    return run_app(app, args, prog)
