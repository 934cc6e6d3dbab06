"""`rein check`: the verdict on a command (or a call of a file tool or any other tool, such as an MCP
tool), or on many read as JSON lines.

Exit codes (the table every `rein` command follows, see docs/cli.md):

    0  allowed; with --jsonl, every line allowed
    1  blocked, or a pack rule asks the person (`ask <reason>`); with --jsonl, any line blocked,
       asking or of the wrong shape (it gets an error verdict that blocks), or stdout closed before
       every verdict was written
    2  usage or input error: a bad option, no command, options that do not fit the tool, --args that
       is not a JSON object, a steering config that cannot be used

This is the command a hook or script runs once per tool call, so it parses its arguments with argparse
and prints plain text: typer and rich together take longer to import than the whole 150 ms budget. Its
help is rendered by `rein.cli._help`, in the layout of every other command.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from rein.cli._argparse import Option, UsageError, build, parse
from rein.cli._calls import KEYS, CallError, parse_line, tool_call
from rein.cli._help import HelpPage, render, usage_error, wants_help
from rein.cli._steering import Checker, command_text, decision
from rein.cli._tool_args import tool_args
from rein.steering import TOOLS, ConfigError, ToolCall, Verdict

SUBCOMMANDS: tuple[str, ...] = ()
"""None: `rein check` is one command (the help test walks every command's subcommands)."""

OPTIONS = (
    Option(("--cwd",), "<dir>", "Directory the command runs in (default: here)."),
    Option(("--branch",), "<name>", "Git branch checked out (default: read from .git)."),
    Option(
        ("--tool",),
        "<name>",
        f"The tool being called: {', '.join(TOOLS)} or any other, such as an MCP tool"
        " (mcp__<server>__<tool>) (default: bash).",
    ),
    Option(("--path",), "<file>", "File path, for --tool write, edit and read."),
    Option(("--content",), "<text>", "File content, for --tool write and edit."),
    Option(("--args",), "<json>", "The arguments of a call of any other tool, as a JSON object."),
    Option(("--json",), None, "Print the verdict as JSON."),
    Option(("--jsonl",), None, "Read tool calls as JSON lines on stdin; print one JSON verdict per line."),
)
ARG = Option(("--arg",), "<arg>", "An argument of that call, key=value (repeatable; a dotted key nests).")
"""Repeatable, so added to the parser apart from OPTIONS (which take one value each)."""


def page(prog: str) -> HelpPage:
    return HelpPage(
        usage=(f"{prog} [OPTIONS] [COMMAND]...", f"{prog} --jsonl [--cwd <dir>] < calls.jsonl"),
        summary="Decide whether a command (or a file write) may run, with the reason.",
        details=(
            "Prints `allow` or `block <reason>` (JSON with --json). With --jsonl each line of stdin is"
            ' a JSON object such as {"command": "git push -f", "cwd": "/repo"}, {"tool": "write",'
            ' "path": "a.py", "content": "..."} or {"tool": "mcp__pg__query", "args": {"sql": "..."}}'
            " (keys: " + ", ".join(KEYS) + "); a line of any other shape gets an error verdict that"
            " blocks."
            "\n\nExit status: 0 allowed, 1 blocked or asks the person (with --jsonl: any line"
            " blocked, asking or malformed),"
            " 2 usage or input error."
        ),
        arguments=(("COMMAND...", "The command line, after --."),),
        options=(*(option.row for option in OPTIONS[:6]), ARG.row, *(o.row for o in OPTIONS[6:])),
    )


def verdict_json(verdict: Verdict, call: ToolCall, cwd: Path) -> dict[str, object]:
    return {
        "decision": decision(verdict),
        "reason": verdict.reason,
        "rule": verdict.rule,
        "source": verdict.source,
        "pack": verdict.pack,
        "override": verdict.override.rule if verdict.override else None,
        "tool": call.tool,
        "command": call.command if call.tool == "bash" else None,
        "path": call.path,
        "args": None if call.tool in TOOLS else dict(call.args),
        "cwd": str(cwd),
    }


def error_json(number: int, problem: str) -> dict[str, object]:
    """The verdict on a line rein could not check: it blocks, and says why."""
    return {
        "line": number,
        "decision": "block",
        "reason": (
            f"[steering:error@rein] line {number}: {problem}; it is not checked, so it is blocked."
            " Fix the line."
        ),
        "rule": "error",
        "source": "rein",
        "error": problem,
    }


def _describe(verdict: Verdict) -> str:
    if not verdict.allow:
        return f"{decision(verdict)} {verdict.reason}"
    if verdict.override:
        return f"allow (override of {verdict.override.rule}: {verdict.override.why})"
    return "allow"


def _jsonl(checker: Checker, default_cwd: Path) -> int:
    """One verdict per line, in order; 1 if any line blocked or was malformed, 2 if a steering config
    could not be used, else 0."""
    worst = 0
    for number, text in enumerate(sys.stdin, start=1):
        if not text.strip():
            continue
        try:
            line = parse_line(text, default_cwd)
            engine = checker.engine(line.cwd)
            verdict = engine.evaluate(line.call, checker.context(line.cwd, line.branch))
        except CallError as error:
            out, worst = error_json(number, str(error)), max(worst, 1)
        except ConfigError as error:
            out, worst = error_json(number, str(error)), 2
        else:
            out, worst = verdict_json(verdict, line.call, line.cwd), max(worst, 0 if verdict.allow else 1)
        print(json.dumps(out), flush=True)
    return worst


def _single(options: argparse.Namespace) -> ToolCall:
    """The call the options describe; `CallError` if they do not fit its tool."""
    tool: str = options.tool or "bash"
    if tool not in TOOLS or options.arg or options.args is not None:
        if tool in TOOLS:
            raise CallError(
                f"--arg and --args are for a tool other than {', '.join(TOOLS)}, e.g. --tool mcp__pg__query"
            )
        if options.command:
            raise CallError(
                f"--tool {tool} takes its arguments as --arg key=value or --args JSON, not a command"
            )
        try:
            args = tool_args(options.arg or [], options.args)
        except ValueError as error:
            raise CallError(str(error)) from None
        return tool_call(tool, None, options.path, options.content, args)
    if tool == "bash" and not options.command and options.path is None:
        raise CallError("give a command after --, e.g. rein check -- git push --force")
    command = command_text(options.command) if options.command else None
    if tool != "bash" and options.path is None and command is None:
        raise CallError(f"--tool {tool} needs --path")
    return tool_call(tool, command, options.path, options.content)


def run(args: list[str], prog: str) -> int:
    if not args or wants_help(args):
        print(render(page(prog)), end="", file=sys.stdout if args else sys.stderr)
        return 0 if args else 2
    parser = build(prog, OPTIONS, "command")
    parser.add_argument(*ARG.flags, action="append", metavar=ARG.placeholder, dest="arg")
    try:
        options = parse(parser, args, "command")
    except UsageError as error:
        return usage_error(prog, str(error))
    checker = Checker()
    where = Path(options.cwd or Path.cwd()).resolve()
    if options.jsonl:
        per_line = ("tool", "path", "content", "args", "arg", "branch")
        extra = [f"--{name}" for name in per_line if getattr(options, name)]
        if options.command or extra:
            given = " and ".join(extra + (["the command words"] if options.command else []))
            return usage_error(prog, f"--jsonl reads every call from stdin; drop {given}")
        code = _jsonl(checker, where)
        _warn(prog, checker)
        return code
    try:
        call = _single(options)
        verdict = checker.engine(where).evaluate(call, checker.context(where, options.branch))
    except CallError as error:
        return usage_error(prog, str(error))
    except ConfigError as error:
        print(f"{prog}: {error}", file=sys.stderr)
        return 2
    _warn(prog, checker)
    print(json.dumps(verdict_json(verdict, call, where)) if options.json else _describe(verdict))
    return 0 if verdict.allow else 1


def _warn(prog: str, checker: Checker) -> None:
    for warning in checker.warnings:
        print(f"{prog}: warning: {warning}", file=sys.stderr)
