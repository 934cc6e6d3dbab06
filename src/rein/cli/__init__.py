"""The `rein` command. Each subcommand lives in its own module, imported only when it runs.

A hook process starts once per tool call, so `rein check` must not pay for modules that `rein rules`
or the agent runtime need: the table below names each subcommand's module, loaded on demand. Any
other first word is the agent's prompt (`rein fix the tests`).

Each command module has `run(args, prog) -> int` and either a typer `app` (its help and subcommands
come from there) or `SUBCOMMANDS`, the names of its hand-parsed subcommands: the help test walks both,
so no command or subcommand goes without `--help`. Every command follows one exit-code table (0
success or allowed, 1 blocked or the run failed, 2 usage or input error; docs/cli.md).
"""

from __future__ import annotations

import importlib
import os
import sys

COMMANDS: dict[str, tuple[str, str]] = {
    "check": ("rein.cli.check", "Decide whether a command (or file write) may run, with the reason."),
    "explain": ("rein.cli.explain", "Show every command rein extracts from a command line and its state."),
    "rules": ("rein.cli.rules", "List and test stream rules (TTSR)."),
    "packs": ("rein.cli.packs", "List the packs of rules for destructive operations and their verdicts."),
    "sessions": ("rein.cli.sessions", "List this directory's sessions: date, id, size, model, first prompt."),
    "export": ("rein.cli.export", "Write a session as a self-contained HTML page."),
    "undo": ("rein.cli.undo", "Put back the files of the last turns of this directory's latest session."),
    "hook": ("rein.cli.hook", "Run as a hook of Claude Code, Codex, Gemini CLI or Cursor; install hooks."),
    "compact": (
        "rein.cli.compact",
        "Compact a session file: summarize the older turns of its active branch.",
    ),
    "proxy": ("rein.cli.proxy", "Stream rules for any OpenAI or Anthropic client, as a proxy."),
    "serve": ("rein.cli.serve", "Serve sessions over HTTP: the session tree and the model calls live here."),
    "acp": ("rein.cli.acp", "Serve rein's agent to an editor (Zed, JetBrains, Neovim) over ACP on stdio."),
    "mcp": ("rein.cli.mcp", "List the MCP servers rein's agent uses here: their state and their tools."),
    "demo": (
        "rein.cli.demo",
        "A session on the embedded local model: a stream rule cuts a reply, a command is blocked.",
    ),
}


HOOK_CALL = "rein.cli._hookcall"
"""`rein hook HOST EVENT`, once per tool call: answered before anything else loads."""
HOOK_WORDS = ("install", "uninstall", "doctor", "daemon", "help")
AGENT = "rein.cli.agent"
"""`rein` with no command, or with a prompt or options first, is the agent itself."""
SUGGEST = "rein.cli._suggest"
"""A first word that looks like a mistyped command, with no sentence after it, is refused."""
AGENT_OPTIONS = "rein.cli._agent_app"
"""The agent's command line, parsed before its runtime loads (`rein --help` needs only this)."""


def main(argv: list[str] | None = None) -> int:
    """Run `rein`. Returns the process exit code: 0 success or allowed, 1 blocked or the run failed,
    2 usage or input error (the table in docs/cli.md)."""
    args = sys.argv[1:] if argv is None else argv
    if args in (["help"], ["--agent-help"]):  # the old spellings of `rein --help`
        args = ["--help"]
    if not args or args[0] not in COMMANDS:  # `rein`, `rein -p ...`, `rein fix the tests`, `rein -- check`
        suggest = importlib.import_module(SUGGEST)
        if (command := suggest.mistyped(args, list(COMMANDS))) is not None:
            return int(suggest.refuse(args[0], command))
        options = importlib.import_module(AGENT_OPTIONS).parse(args, prog="rein")
        if isinstance(options, int):
            return options
        return int(importlib.import_module(AGENT).start(options))
    if len(args) == 3 and args[0] == "hook" and args[1] not in HOOK_WORDS and not args[1].startswith("-"):
        return int(importlib.import_module(HOOK_CALL).run(args[1], args[2]))
    module, _ = COMMANDS[args[0]]
    return int(importlib.import_module(module).run(args[1:], prog=f"rein {args[0]}"))


def entrypoint() -> None:
    """The console script. A closed stdout (`rein ... | head -1`) ends quietly with exit 1, as click
    and Python's own advice do: stdout is pointed at /dev/null so the flush at exit cannot fail again,
    and no traceback or "Exception ignored" is printed."""
    try:
        code = main()
        sys.stdout.flush()
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        code = 1
    sys.exit(code)
