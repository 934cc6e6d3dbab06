"""`rein hook`: answer a coding agent's hook call, or install rein's hooks into its settings.

    rein hook <host> <event>                   the host's JSON on stdin, its protocol's answer out
    rein hook install <host> [--user | --project] [--dry-run]
    rein hook uninstall <host> [--user | --project] [--dry-run]
    rein hook doctor <host> [--user | --project]
    rein hook daemon start|stop|status|run

Hosts: claude, codex, gemini, cursor. A hook is a fresh process for every tool call, so argv is parsed
by hand (no argparse) and only the one host's adapter is loaded, through `rein.hooks.HOSTS`. The help
pages are rendered by `rein.cli._help`, in the layout of every other command.

Exit codes (the table every `rein` command follows, see docs/cli.md):

    0  a hook answered (every host's protocol: 0 with its JSON answer on stdout; see the adapter);
       install or uninstall done (`--dry-run` prints the change as a unified diff and writes nothing)
    2  usage or input error: an unknown host, event or option, a settings file that cannot be used
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Mapping
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, cast

from rein.cli._help import HelpPage, render, usage_error, wants_help
from rein.hooks import HOSTS

if TYPE_CHECKING:
    from rein.hooks import Answer, Event

ACTIONS = ("install", "uninstall")
SUBCOMMANDS = (*ACTIONS, "doctor", "daemon")
"""`rein hook install`, `uninstall`, `doctor` and `daemon` (the help test walks every command's
subcommands)."""
SUGGEST = "rein.cli._suggest"

FLAGS = (
    ("--user", "Edit the host's settings in your home directory (the default)."),
    ("--project", "Edit the host's settings in the current directory."),
    ("--dry-run", "Print the change as a unified diff; write nothing."),
    ("--trust", "Also trust the hooks where the host asks for it (Codex's hook trust, Gemini's folders)."),
)
HOST_ROW = ("HOST", f"The coding agent: {', '.join(HOSTS)}.")
SUMMARY = {
    "install": "Add rein's hooks to a coding agent's settings.",
    "uninstall": "Remove rein's hooks from a coding agent's settings.",
    "doctor": "Check rein's hooks in a coding agent: installed, trusted, current; time an allow and a deny.",
    "daemon": "Start, stop or look at the hook daemon that keeps hook calls fast.",
}
DAEMON = {
    "start": "Start the daemon unless one runs, and wait until it answers.",
    "stop": "Stop the daemon.",
    "status": "Say whether the daemon runs: its process, socket, age and calls served.",
    "run": "Run the daemon in the foreground (a hook call starts it in the background).",
}


def page(prog: str, action: str | None = None) -> HelpPage:
    """`rein hook`'s help, or its `install` or `uninstall` subcommand's."""
    if action == "doctor":
        return HelpPage(
            usage=(f"{prog} doctor [--user | --project] HOST",),
            summary=SUMMARY["doctor"],
            details="Shows which of rein's hooks the host's settings hold, whether the host will run them"
            " (trust), whether they start this rein, and runs the installed pre-tool hook the way the"
            " host does, with `ls` (allowed) and a force push (blocked), printing each call's time."
            "\n\nExit status: 0 all good, 1 a problem (named on its line), 2 usage error.",
            arguments=(HOST_ROW,),
            options=FLAGS[:2],
        )
    if action == "daemon":
        return HelpPage(
            usage=(f"{prog} daemon start|stop|status|run",),
            summary=SUMMARY["daemon"],
            details="Hook calls start the daemon by themselves and fall back to answering in their own"
            " process whenever it is absent, slow or fails: it saves time, it never decides differently."
            " REIN_HOOK_DAEMON=off turns it off."
            "\n\nExit status: 0 done, 1 the daemon could not start, 2 usage error.",
            commands=tuple(DAEMON.items()),
        )
    if action is not None:
        return HelpPage(
            usage=(f"{prog} {action} [OPTIONS] HOST",),
            summary=SUMMARY[action],
            details="Only rein's own entries are touched; running it twice changes nothing the second time."
            "\n\nExit status: 0 done, 2 usage or input error (a settings file that cannot be used).",
            arguments=(HOST_ROW,),
            options=FLAGS if action == "install" else FLAGS[:-1],
        )
    events = "; ".join(
        f"{host}: {', '.join(cast('Mapping[str, Event]', importlib.import_module(module).EVENTS))}"
        for host, module in HOSTS.items()
    )
    return HelpPage(
        usage=(f"{prog} [OPTIONS] HOST EVENT", f"{prog} COMMAND [ARGS]..."),
        summary="Run as a hook of Claude Code, Codex, Gemini CLI or Cursor; install hooks.",
        details="The host runs `rein hook HOST EVENT` around each tool call with its JSON on stdin, and"
        " reads rein's answer, in its own protocol, on stdout. `rein hook install HOST` writes those"
        " hooks into the host's settings."
        "\n\nExit status: a hook exits as its host's protocol says (0, with the answer as JSON);"
        " 2 usage or input error.",
        arguments=(HOST_ROW, ("EVENT", f"The hook event ({events}).")),
        commands=tuple(SUMMARY.items()),
    )


def call(host: str, name: str, stdin: str, prog: str) -> int:
    """Answer one hook call in this process (the hook daemon's client found no daemon to ask)."""
    if host not in HOSTS:
        suggest = importlib.import_module(SUGGEST)  # only on this error path: hooks stay light
        if (verb := suggest.mistyped([host], SUBCOMMANDS)) is not None:  # `rein hook instal claude`
            return usage_error(prog, f"unknown command {host!r}; did you mean {verb!r}?")
        near = suggest.mistyped([host], list(HOSTS))
        hint = f" (did you mean {near!r}?)" if near else ""
        return usage_error(prog, f"unknown host {host!r}{hint}; known: {', '.join(HOSTS)}")
    events = cast("Mapping[str, Event]", importlib.import_module(HOSTS[host]).EVENTS)
    event = events.get(name)
    if event is None:
        return usage_error(prog, f"unknown {host} event {name!r}; known: {', '.join(events)}")
    run: ModuleType = importlib.import_module("rein.hooks._run")
    answer = cast("Answer", run.handle(host, event, stdin, home=Path.home()))
    sys.stdout.write(answer.stdout)
    sys.stderr.write(answer.stderr)
    return answer.code


def _settings(action: str, rest: list[str], prog: str) -> int:
    if wants_help(rest):
        print(render(page(prog, action)), end="")
        return 0
    where = f"{prog} {action}"
    flags = [arg for arg in rest if arg.startswith("-")]
    hosts = [arg for arg in rest if not arg.startswith("-")]
    allowed = dict(FLAGS if action == "install" else FLAGS[:-1])
    unknown = [flag for flag in flags if flag not in allowed]
    if unknown or len(hosts) != 1:
        return usage_error(where, f"no such option: {unknown[0]}" if unknown else "name one host")
    host = hosts[0]
    if host not in HOSTS:
        return usage_error(where, f"unknown host {host!r}; known: {', '.join(HOSTS)}")
    if "--user" in flags and "--project" in flags:
        return usage_error(where, "choose --user or --project, not both")
    return int(
        importlib.import_module("rein.cli._hook_install").settings(
            action,
            host,
            scope="project" if "--project" in flags else "user",
            dry_run="--dry-run" in flags,
            trust="--trust" in flags,
            where=where,
        )
    )


def _doctor(rest: list[str], prog: str) -> int:
    where = f"{prog} doctor"
    flags = [arg for arg in rest if arg.startswith("-")]
    hosts = [arg for arg in rest if not arg.startswith("-")]
    unknown = [flag for flag in flags if flag not in ("--user", "--project")]
    if unknown or len(hosts) != 1 or hosts[0] not in HOSTS:
        problem = f"no such option: {unknown[0]}" if unknown else f"name one host ({', '.join(HOSTS)})"
        return usage_error(where, problem)
    if len(flags) == 2:
        return usage_error(where, "choose --user or --project, not both")
    scope = "project" if "--project" in flags else "user"
    return int(importlib.import_module("rein.cli._hook_doctor").run(hosts[0], scope))


def _daemon(rest: list[str], prog: str) -> int:
    where = f"{prog} daemon"
    if len(rest) != 1 or rest[0] not in DAEMON:
        return usage_error(where, f"give one of {', '.join(DAEMON)}")
    return int(importlib.import_module("rein.cli._hook_daemon").run(rest[0], where))


def run(args: list[str], prog: str) -> int:
    if args and args[0] in ACTIONS:
        return _settings(args[0], args[1:], prog)
    if args and args[0] in ("doctor", "daemon"):
        if wants_help(args[1:]):
            print(render(page(prog, args[0])), end="")
            return 0
        return (_doctor if args[0] == "doctor" else _daemon)(args[1:], prog)
    if not args or args[0] == "help" or wants_help(args):
        print(render(page(prog)), end="", file=sys.stdout if args else sys.stderr)
        return 0 if args else 2
    if args[0] not in HOSTS:
        known = ", ".join(HOSTS)
        return usage_error(prog, f"unknown host {args[0]!r}; known: {known} (or install, uninstall)")
    if len(args) != 2:
        return usage_error(prog, f"give one {args[0]} event, e.g. {prog} {args[0]} pre-tool-use")
    return int(importlib.import_module("rein.cli._hookcall").run(args[0], args[1]))
