"""`rein explain`: every command rein extracts from a command line, its state, and what decided.

Exit codes (the table every `rein` command follows, see docs/cli.md):

    0  allowed
    1  blocked (as `rein check`)
    2  usage or input error: a bad option, no command, an unreadable steering config
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from rein.cli._explain_tool import print_tool, rules_on, tool_call, tool_json
from rein.cli._steering import Checker, command_text
from rein.cli._steering import decision as decided_as
from rein.cli._typer import command, plain_app, run_app
from rein.steering import UNKNOWN, ConfigError, RefDecision, ToolCall, Unknown, Verdict

app = plain_app("Show what rein sees in a command line.")


def _show(value: object) -> str:
    return "?" if isinstance(value, Unknown) else "-" if value is None else str(value)


def decision_json(decision: RefDecision) -> dict[str, object]:
    ref = decision.ref
    return {
        "index": ref.index,
        "argv": [word.value for word in ref.argv],
        "dynamic": [word.value for word in ref.argv if word.dynamic],
        "raw": ref.raw,
        "kind": ref.kind,
        "why": ref.why or None,
        "wrappers": list(ref.wrappers),
        "via": ref.via or None,
        "cwd": None if ref.state.cwd is UNKNOWN else ref.state.cwd,
        "branch": _show(ref.state.branch) if ref.state.branch is not None else None,
        "env": {k: _show(v) for k, v in ref.state.env.items()},
        # The variables its words were expanded with, where a prefix or a wrapper made them differ.
        "words_env": None
        if ref.state.expand_env is None
        else {k: _show(v) for k, v in ref.state.expand_env.items()},
        "code": {"language": ref.code.language, "text": ref.code.text} if ref.code else None,
        "unknown": list(ref.unknown),
        "tolerated": list(ref.tolerated),
        "origin": ref.origin or None,
        "lenient": ref.lenient,
        "background": ref.background,
        "rewritten": list(ref.rewritten),
        "after": list(ref.after),
        "rule": decision.rule,
        "source": decision.source,
        "pack": decision.pack,
        "asks": decision.ask,
        "rule_unknown": decision.unknown,
        "writes": list(ref.writes),
    }


def _table(verdict: Verdict) -> Table:
    table = Table(show_lines=False, header_style="bold")
    for column in ("#", "argv", "kind", "via", "cwd", "branch", "decided by"):
        table.add_column(column, overflow="fold")
    for decision in verdict.decisions:
        ref = decision.ref
        argv = " ".join(repr(w.value) if (" " in w.value or not w.value) else w.value for w in ref.argv)
        via = " > ".join([*ref.wrappers, *([ref.via] if ref.via else [])])
        if ref.code:
            argv += f"\n[dim]{ref.code.language} code: {escape(ref.code.text)}[/]"
        decided = f"{decision.rule}@{decision.source}" if decision.rule else "[green]allowed[/]"
        if decision.pack:
            decided += f"\n[dim]pack {decision.pack}, {'asks' if decision.ask else 'blocks'}[/]"
        if decision.unknown:
            decided += " (unknown)"
        table.add_row(
            str(ref.index),
            escape(argv),
            ref.kind,
            escape(via),
            escape(_show(ref.state.cwd)),
            escape(_show(ref.state.branch)),
            decided,
        )
    return table


def _notes(verdict: Verdict) -> list[str]:
    """Why a command was checked although not written as one, and what about it is unknown."""
    lines: list[str] = []
    for decision in verdict.decisions:
        ref = decision.ref
        if ref.why:
            lines.append(f"[dim]#{ref.index} checked because:[/] {escape(ref.why)}")
        if ref.origin:
            whose = "a file of the user's: only a definite finding blocks" if ref.lenient else "read strictly"
            lines.append(f"[dim]#{ref.index} runs from[/] {escape(ref.origin)} [dim]({whose})[/]")
        if ref.rewritten:
            lines.append(f"[dim]#{ref.index} read as:[/] {escape('; '.join(ref.rewritten))}")
        if ref.background:
            lines.append(f"[dim]#{ref.index} runs in the background[/]")
        if ref.unknown:
            lines.append(f"[yellow]#{ref.index} not known statically:[/] {escape('; '.join(ref.unknown))}")
        if ref.tolerated:
            tolerated = escape("; ".join(ref.tolerated))
            lines.append(f"[dim]#{ref.index} not known in the user's own file (no finding):[/] {tolerated}")
    return lines


@command(app)
def explain(
    words: Annotated[
        list[str] | None,
        typer.Argument(metavar="COMMAND", help="The command line, after --.", show_default=False),
    ] = None,
    cwd: Annotated[
        Path | None, typer.Option(metavar="<dir>", help="Directory the command runs in (default: here).")
    ] = None,
    branch: Annotated[
        str | None, typer.Option(metavar="<name>", help="Git branch checked out (default: read from .git).")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON for tools.")] = False,
    tool: Annotated[
        str | None,
        typer.Option(
            metavar="<name>", help="Explain a call of this tool (an MCP tool, an extension's) instead."
        ),
    ] = None,
    arg: Annotated[
        list[str] | None,
        typer.Option(metavar="<arg>", help="An argument of the --tool call, key=value (a dotted key nests)."),
    ] = None,
    args_json: Annotated[
        str | None, typer.Option("--args", metavar="<json>", help="The --tool call's arguments as JSON.")
    ] = None,
) -> None:
    """Show every command rein extracts from a command line, its state (cwd, branch, variables), and
    the rule that decided; with --tool, a call of any tool and the rules that name it.

    Exit status: 0 allowed, 1 blocked or asks the person, 2 usage or input error.
    """
    errors = Console(stderr=True, highlight=False)
    if (tool is not None and tool != "bash") or arg or args_json is not None:
        _explain_tool(tool, arg or [], args_json, words, cwd, branch, as_json=as_json)
    if not words or not command_text(words).strip():
        errors.print("rein explain: give a command after --, e.g. rein explain -- 'cd /tmp && git push -f'")
        raise typer.Exit(2)
    where = (cwd or Path.cwd()).resolve()
    checker = Checker()
    call = ToolCall(tool="bash", command=command_text(words))
    try:
        verdict = checker.engine(where).evaluate(call, checker.context(where, branch))
    except ConfigError as error:
        errors.print(f"rein explain: {escape(str(error))}")
        raise typer.Exit(2) from None
    problems = list(verdict.analysis.problems) if verdict.analysis else []
    if as_json:
        out = {
            "command": call.command,
            "decision": decided_as(verdict),
            "reason": verdict.reason,
            "pack": verdict.pack,
            "override": (
                {"rule": verdict.override.rule, "why": verdict.override.why} if verdict.override else None
            ),
            "problems": problems,
            "commands": [decision_json(d) for d in verdict.decisions],
        }
        print(json.dumps(out, indent=2))
        raise typer.Exit(0 if verdict.allow else 1)
    console = Console(highlight=False)
    console.print(f"[bold]{escape(call.command)}[/]  (cwd {escape(str(where))})")
    console.print(_table(verdict))
    for line in _notes(verdict):
        console.print(line)
    for problem in problems:
        console.print(f"[yellow]not understood:[/] {escape(problem)}")
    if verdict.override is not None:
        override = verdict.override
        console.print(f"[bold green]allow[/] (override of {escape(override.rule)}: {escape(override.why)})")
    elif verdict.allow:
        console.print("[bold green]allow[/]")
    elif verdict.ask:
        console.print(f"[bold yellow]ask[/] {escape(verdict.reason)}")
    else:
        console.print(f"[bold red]block[/] {escape(verdict.reason)}")
    raise typer.Exit(0 if verdict.allow else 1)


def _explain_tool(
    tool: str | None,
    pairs: list[str],
    args_json: str | None,
    words: list[str] | None,
    cwd: Path | None,
    branch: str | None,
    *,
    as_json: bool,
) -> None:
    """`--tool NAME --arg key=value`: a call of any tool, the rules that name it, and what decided."""
    errors = Console(stderr=True, highlight=False)
    if tool is None or tool == "bash" or words:
        errors.print(
            "rein explain: --arg and --args go with --tool <name> and no command, e.g. rein explain"
            " --tool mcp__postgres__query --arg sql='DELETE FROM users'"
        )
        raise typer.Exit(2)
    try:
        call = tool_call(tool, pairs, args_json)
    except ValueError as error:
        errors.print(f"rein explain: {escape(str(error))}")
        raise typer.Exit(2) from None
    where = (cwd or Path.cwd()).resolve()
    checker = Checker()
    try:
        engine = checker.engine(where)
    except ConfigError as error:
        errors.print(f"rein explain: {escape(str(error))}")
        raise typer.Exit(2) from None
    verdict = engine.evaluate(call, checker.context(where, branch))
    rules = rules_on(engine, tool)
    if as_json:
        print(json.dumps(tool_json(call, verdict, rules, decided_as(verdict)), indent=2))
    else:
        print_tool(Console(highlight=False), call, verdict, rules, str(where))
    raise typer.Exit(0 if verdict.allow else 1)


def run(args: list[str], prog: str) -> int:
    return run_app(app, args, prog)
