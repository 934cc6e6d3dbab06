"""The `rein` command. Each subcommand lives in its own module, imported only when it runs.

A hook process starts once per tool call, so `rein check` must not pay for modules that `rein rules`
or the agent runtime need: the table below names each subcommand's module, loaded on demand.
"""

from __future__ import annotations

import importlib
import sys

from rein import __version__

COMMANDS: dict[str, tuple[str, str]] = {
    "check": ("rein.cli.check", "Decide whether a command (or file write) may run, with the reason."),
    "explain": ("rein.cli.explain", "Show every command rein extracts from a command line and its state."),
    "rules": ("rein.cli.rules", "List and test stream rules (TTSR)."),
    "hook": ("rein.cli.hook", "Run as a hook of Claude Code, Codex, Gemini CLI or Cursor; install hooks."),
    "demo": (
        "rein.cli.demo",
        "A session on the embedded local model: a stream rule cuts a reply, a command is blocked.",
    ),
}


AGENT = "rein.cli.agent"
"""`rein` with no command, or with options first, is the agent itself."""


def _usage() -> str:
    width = max(map(len, COMMANDS))
    lines = [f"  {name:<{width}}  {summary}" for name, (_, summary) in COMMANDS.items()]
    return (
        "Usage: rein [OPTIONS] [PROMPT]   the coding agent (rein --agent-help for its options)\n"
        "       rein COMMAND [ARGS]...\n\nCommands:\n" + "\n".join(lines)
    )


def main(argv: list[str] | None = None) -> int:
    """Run `rein`. Returns the process exit code (0 ok or allow, 1 block, 2 usage or config error)."""
    args = sys.argv[1:] if argv is None else argv
    if args and args[0] in {"-h", "--help", "help"}:
        print(_usage())
        return 0
    if args and args[0] == "--agent-help":
        args = ["--help"]
    if args and args[0] == "--version":
        print(f"rein {__version__}")
        return 0
    if not args or args[0].startswith("-") or (args[0] not in COMMANDS and " " in args[0]):
        code: int = importlib.import_module(AGENT).run(args, prog="rein")
        return code
    entry = COMMANDS.get(args[0])
    if entry is None:
        print(f"rein: unknown command {args[0]!r}; known: {', '.join(COMMANDS)}", file=sys.stderr)
        return 2
    code = importlib.import_module(entry[0]).run(args[1:], prog=f"rein {args[0]}")
    return int(code)


def entrypoint() -> None:
    sys.exit(main())
