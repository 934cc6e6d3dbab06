"""`rein explain --tool NAME --arg key=value`: a call of any tool (an MCP server's, an extension's, a
file tool), the rules that name that tool, and which decided."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from rein.cli._tool_args import tool_args
from rein.steering import TOOLS, Rule, Steering, ToolCall, Verdict, tool_matches


def tool_call(tool: str, pairs: Sequence[str], args_json: str | None) -> ToolCall:
    """The call `--tool`, `--args` (a JSON object) and `--arg key=value` (a dotted key reaches into an
    object; the value is a string) describe. Raises ValueError naming what is wrong."""
    args = tool_args(pairs, args_json)
    if tool not in TOOLS:  # its arguments are only data (an MCP tool's own `command` is no shell line)
        return ToolCall(tool=tool, args=args)

    def text(key: str) -> str | None:
        found = args.get(key)
        return found if isinstance(found, str) else None

    content = text("content") if tool == "write" else text("new_string") or text("content")
    return ToolCall(tool=tool, command=text("command") or "", path=text("path"), content=content, args=args)


def rules_on(engine: Steering, tool: str) -> list[Rule]:
    """The rules that may apply to calls of `tool`, in the order they are tried."""
    return [rule for rule in engine.policy.rules if tool_matches(rule.tool, tool)]


def _matcher(rule: Rule) -> str:
    matcher = rule.matcher
    parts = [f"/{matcher.pattern.pattern}/"] if matcher.pattern is not None else []
    if matcher.sql:
        parts.append(f"sql {', '.join(sorted(matcher.sql))}")
    return " ".join(parts) or "the tool itself"


def rule_json(rule: Rule, verdict: Verdict) -> dict[str, object]:
    return {
        "name": rule.name,
        "source": rule.source,
        "tool": rule.tool,
        "field": rule.field or None,
        "matches": _matcher(rule),
        "verdict": rule.verdict,
        "origin": rule.origin or None,
        "decided": verdict.rule == rule.name and verdict.source == rule.source,
    }


def tool_json(call: ToolCall, verdict: Verdict, rules: Sequence[Rule], decision: str) -> dict[str, object]:
    return {
        "tool": call.tool,
        "args": dict(call.args),
        "decision": decision,
        "reason": verdict.reason,
        "rule": verdict.rule,
        "source": verdict.source,
        "rules": [rule_json(rule, verdict) for rule in rules],
    }


def print_tool(console: Console, call: ToolCall, verdict: Verdict, rules: Sequence[Rule], where: str) -> None:
    shown: Mapping[str, object] = call.args
    console.print(f"[bold]{escape(call.tool)}[/] {escape(json.dumps(dict(shown)))}  (cwd {escape(where)})")
    if not rules:
        console.print("[dim]no rule names this tool[/]")
    else:
        table = Table(show_lines=False, header_style="bold")
        for column in ("rule", "tool", "field", "matches", "verdict", "defined at"):
            table.add_column(column, overflow="fold")
        for rule in rules:
            row = rule_json(rule, verdict)
            name = f"{rule.name}@{rule.source}" + (" [bold](decided)[/]" if row["decided"] else "")
            field = rule.field or ("all arguments" if call.tool not in TOOLS else "")
            table.add_row(
                name, escape(rule.tool), escape(field), escape(_matcher(rule)), rule.verdict,
                escape(rule.origin),
            )  # fmt: skip
        console.print(table)
    if verdict.allow:
        console.print("[bold green]allow[/]")
    elif verdict.ask:
        console.print(f"[bold yellow]ask[/] {escape(verdict.reason)}")
    else:
        console.print(f"[bold red]block[/] {escape(verdict.reason)}")
