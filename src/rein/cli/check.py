"""`rein check`: the verdict on a command (or a file tool call), or on many read as JSON lines.

Exit codes: 0 allowed, 1 blocked, 2 usage or config error.

This is the command a hook or script runs once per tool call, so it parses its arguments with argparse
and prints plain text: typer and rich together take longer to import than the whole 150 ms budget.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from rein.cli._steering import Checker, command_text
from rein.steering import TOOLS, ConfigError, ToolCall, Verdict


def verdict_json(verdict: Verdict, call: ToolCall, cwd: Path) -> dict[str, object]:
    return {
        "decision": "allow" if verdict.allow else "block",
        "reason": verdict.reason,
        "rule": verdict.rule,
        "source": verdict.source,
        "override": verdict.override.rule if verdict.override else None,
        "tool": call.tool,
        "command": call.command if call.tool == "bash" else None,
        "path": call.path,
        "cwd": str(cwd),
    }


def _describe(verdict: Verdict) -> str:
    if not verdict.allow:
        return f"block {verdict.reason}"
    if verdict.override:
        return f"allow (override of {verdict.override.rule}: {verdict.override.why})"
    return "allow"


def _jsonl(checker: Checker, default_cwd: Path) -> int:
    """One verdict per line. A line rein cannot read gets a verdict too: an error that blocks, since a
    caller that only reads `decision` must not take a malformed line for an allowed one."""
    worst = 0
    for number, line in enumerate(sys.stdin, start=1):
        if not line.strip():
            continue
        try:
            call, cwd, branch = _item(line, default_cwd)
            verdict = checker.engine(cwd).evaluate(call, checker.context(cwd, branch))
            out = verdict_json(verdict, call, cwd)
            worst = max(worst, 0 if verdict.allow else 1)
        except (ValueError, TypeError, ConfigError) as error:
            out = {
                "line": number,
                "decision": "block",
                "rule": "error",
                "source": "rein",
                "error": str(error),
            }
            out["reason"] = (
                f"[steering:error@rein] line {number}: {error}; it is not checked, so it is blocked"
            )
            worst = 2
        print(json.dumps(out), flush=True)
    return worst


def _item(line: str, default_cwd: Path) -> tuple[ToolCall, Path, str | None]:
    """A JSON line as a tool call; ValueError naming what is wrong with it."""
    item = json.loads(line)
    if not isinstance(item, dict):
        raise ValueError("each line must be a JSON object")
    tool = item.get("tool", "bash")
    if tool not in TOOLS:
        raise ValueError(f"unknown tool {tool!r} (one of {', '.join(TOOLS)})")
    command = item.get("command")
    if tool == "bash" and not isinstance(command, str):
        raise ValueError("a bash line needs a string 'command'")
    path = item.get("path")
    if tool != "bash" and not isinstance(path, str):
        raise ValueError(f"a {tool} line needs a string 'path'")
    for key in ("cwd", "branch", "content"):
        if item.get(key) is not None and not isinstance(item[key], str):
            raise ValueError(f"'{key}' must be a string")
    cwd = Path(item.get("cwd") or default_cwd).resolve()
    call = ToolCall(tool=tool, command=command or "", path=path, content=item.get("content"))
    return call, cwd, item.get("branch")


def parser(prog: str) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=prog,
        description="Decide whether a command (or file write) may run. Exit 0 allow, 1 block, 2 error.",
    )
    parser.add_argument("command", nargs="*", help="the command line, after --")
    parser.add_argument("--cwd", type=Path, help="directory the command runs in (default: here)")
    parser.add_argument("--branch", help="git branch checked out (default: read from .git)")
    parser.add_argument("--tool", default="bash", choices=TOOLS, help="the tool being called")
    parser.add_argument("--path", help="file path, for write, edit and read")
    parser.add_argument("--content", help="file content, for write and edit")
    parser.add_argument("--json", action="store_true", help="print the verdict as JSON")
    parser.add_argument("--jsonl", action="store_true", help="read JSON lines from stdin, one verdict each")
    return parser


def run(args: list[str], prog: str) -> int:
    if not args:
        parser(prog).print_usage(sys.stderr)
        return 2
    options = parser(prog).parse_args(args)
    checker = Checker()
    where = (options.cwd or Path.cwd()).resolve()
    try:
        if options.jsonl:
            return _jsonl(checker, where)
        if options.tool == "bash" and not options.command:
            print(f"{prog}: give a command after --, e.g. {prog} -- git push --force", file=sys.stderr)
            return 2
        if options.tool != "bash" and options.path is None:
            print(f"{prog}: --tool {options.tool} needs --path", file=sys.stderr)
            return 2
        call = ToolCall(
            tool=options.tool,
            command=command_text(options.command),
            path=options.path,
            content=options.content,
        )
        verdict = checker.engine(where).evaluate(call, checker.context(where, options.branch))
    except ConfigError as error:
        print(f"{prog}: {error}", file=sys.stderr)
        return 2
    for warning in checker.warnings:
        print(f"{prog}: warning: {warning}", file=sys.stderr)
    print(json.dumps(verdict_json(verdict, call, where)) if options.json else _describe(verdict))
    return 0 if verdict.allow else 1
