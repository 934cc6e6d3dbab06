"""Steering in the stream: each tool call the proxy held whole is checked with rein's steering before
the client receives it.

A shell tool call (a name in `SHELL_TOOLS`, its command line under one of the keys listed there) is
checked as rein's hooks check a `bash` call: the same `.rein/steering.toml` layers, packs, rules and
verdicts, found from the session's working directory (the header `x-rein-cwd`, else the directory the
proxy started in). Any other tool call (an MCP tool `mcp__<server>__<tool>`, a function the client
defined) goes through the rules on any tool, with the JSON arguments the model sent. A rule that asks
blocks: a proxy has nobody to ask.

Session entries (what `on_fire` hooks and override audits write, what `when.happened` reads) live in
memory per `x-rein-session`. Policies are built once per set of config files and rebuilt when one of
them changes.
"""

from __future__ import annotations

import json
import shlex
import threading
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, get_args

from rein.diskio import signature
from rein.gitio import host_context
from rein.steering import Built, ConfigError, MemoryEntries, Steering, ToolCall, Verdict, load_policy
from rein.steering.config import config_files

SteeringMode = Literal["retry", "error", "off"]
"""What the proxy does with a tool call steering refuses: cut and ask again with the reason injected
(`retry`), end the reply with the reason as the format's error (`error`), or check nothing (`off`)."""
STEERING_MODES: tuple[SteeringMode, ...] = get_args(SteeringMode)

SHELL_TOOLS: Mapping[str, tuple[str, ...]] = {
    "bash": ("command", "cmd"),  # Claude Code's `Bash`, most agents' `bash`
    "shell": ("command", "cmd"),  # Codex's `shell`: an argv list
    "exec_command": ("cmd", "command"),  # Codex's unified exec
    "local_shell": ("command",),
    "shell_command": ("command",),
    "run_shell_command": ("command",),  # Gemini CLI
    "terminal": ("command",),
    "run_terminal_cmd": ("command",),  # Cursor
    "execute_command": ("command",),  # Cline, Roo Code
}
"""Shell tools by name (compared in lower case), with the argument keys that may hold the command, the
first present wins. A string is the command line; a list of strings is an argv, joined as a shell
would read it (`["bash", "-lc", "git push"]`: rein reads the line `bash -lc` runs)."""
FILE_TOOLS: Mapping[str, tuple[str, tuple[str, ...], tuple[str, ...]]] = {
    "write": ("write", ("file_path", "path"), ("content",)),  # Claude Code's `Write`, rein's `write`
    "write_file": ("write", ("file_path", "path"), ("content",)),  # Gemini CLI
    "edit": ("edit", ("file_path", "path"), ("new_string",)),
    "multiedit": ("edit", ("file_path", "path"), ("edits",)),  # Claude Code: `edits[].new_string`
    "replace": ("edit", ("file_path", "path"), ("new_string",)),  # Gemini CLI
    "read": ("read", ("file_path", "path"), ()),
    "read_file": ("read", ("file_path", "absolute_path", "path"), ()),
}
"""File tools by name (in lower case): rein's tool, the keys of the path, the keys of what it writes
(a list of edits: their `new_string`s), each the first present. Checked by rein's file rules."""
WORKDIR_KEYS = ("workdir", "cwd", "directory")
"""Arguments that name where a shell tool runs its command (Codex's `workdir`, Gemini CLI's
`directory`); a relative one is taken from the session's working directory."""

MAX_SESSIONS = 10_000
CACHED_POLICIES = 64
ASKED = (
    "It needs a person's approval, and nobody can give it through this proxy: do not run it; if it is"
    " needed, tell the user to run it themselves."
)


@dataclass(frozen=True, slots=True, kw_only=True)
class Blocked:
    """A tool call steering refused: its tool and what it would have run, and the verdict."""

    tool: str
    command: str
    path: str | None = None
    verdict: Verdict
    lane: int = 0

    @property
    def rule(self) -> str:
        return self.verdict.rule or "error"

    def shown(self) -> str:
        """The call in a few words: its command line, else the tool and its file, else the tool."""
        return self.command or (f"{self.tool} {self.path}" if self.path else self.tool)

    def injection(self) -> str:
        """The hidden message of a retry: what was not run and why."""
        what = f"`{self.shown()}`"
        asked = f" {ASKED}" if self.verdict.ask else ""
        return f"Your tool call {what} was not run: {self.verdict.reason}{asked}"

    def message(self) -> str:
        """The reason the client gets in `error` mode."""
        what = self.shown()
        asked = " (a person must run it)" if self.verdict.ask else ""
        return f"rein steering refused the tool call {what!r}{asked}: {self.verdict.reason}"


def shell_command(tool: str, args: Mapping[str, object]) -> str | None:
    """The command line a shell tool call runs, or None when `tool` is no shell tool or carries none."""
    keys = SHELL_TOOLS.get(tool.lower())
    for key in keys or ():
        value = args.get(key)
        if isinstance(value, str) and value.strip():
            return value
        if isinstance(value, list) and value and all(isinstance(part, str) for part in value):
            return shlex.join(value)
    return None


def workdir(args: Mapping[str, object], cwd: str) -> str:
    """Where a shell call runs: its own working directory argument, else `cwd`."""
    for key in WORKDIR_KEYS:
        value = args.get(key)
        if isinstance(value, str) and value.strip():
            return str(Path(cwd, value).resolve())
    return cwd


def call_of(tool: str, arguments: str, *, json_arguments: bool = True) -> ToolCall:
    """The steering call of a tool call as the model streamed it: a shell tool as `bash`, a file tool as
    `write`, `edit` or `read`, any other by its own name with its JSON arguments (free-form input, or
    arguments that are no JSON object, as `{"input": text}`)."""
    args: Mapping[str, object] = {"input": arguments}
    if json_arguments:
        try:
            parsed: object = json.loads(arguments) if arguments.strip() else {}
        except ValueError:
            parsed = None
        if isinstance(parsed, dict):
            args = parsed
    command = shell_command(tool, args)
    if command is not None:
        return ToolCall(tool="bash", command=command, args=args)
    return file_call(tool, args) or ToolCall(tool=tool, args=args)


def file_call(tool: str, args: Mapping[str, object]) -> ToolCall | None:
    """The call of a file tool (`FILE_TOOLS`), or None when `tool` is none or names no path."""
    found = FILE_TOOLS.get(tool.lower())
    if found is None:
        return None
    kind, path_keys, content_keys = found
    path = next((v for k in path_keys if isinstance(v := args.get(k), str) and v), None)
    if path is None:
        return None
    content = next((_text(args[k]) for k in content_keys if k in args), None)
    return ToolCall(tool=kind, path=path, content=content if kind != "read" else None, args=args)


def _text(value: object) -> str:
    """What a file tool writes: a string, or the `new_string`s of a list of edits."""
    if isinstance(value, str):
        return value
    edits = value if isinstance(value, list) else []
    return "\n".join(
        e["new_string"] for e in edits if isinstance(e, dict) and isinstance(e.get("new_string"), str)
    )


class StreamSteering:
    """The steering engine of one running proxy. `check` does I/O (config files, `.git/HEAD`, the files
    a command runs, git for some rules): call it off the event loop."""

    def __init__(self, mode: SteeringMode, cwd: str, home: str) -> None:
        self.mode = mode
        self.cwd = cwd
        self.home = home
        self._policies: OrderedDict[tuple[object, ...], Built] = OrderedDict()
        self._entries: OrderedDict[str, MemoryEntries] = OrderedDict()
        self._lock = threading.Lock()
        """Checks run in worker threads; the two caches are shared."""

    @classmethod
    def of(cls, mode: SteeringMode, root: str | None, home: str | None) -> StreamSteering:
        """The proxy's steering: sessions without `x-rein-cwd` are at `root` (None: the process's
        working directory); `home` None is the user's."""
        return cls(mode, root or str(Path.cwd()), home or str(Path.home()))

    def check(
        self, calls: Sequence[tuple[str, str, bool, int]], *, cwd: str | None, session: str | None
    ) -> Blocked | None:
        """The first of `calls` (tool name, arguments, arguments are JSON, lane) steering refuses, or
        None. Never raises: rein failing to decide blocks the call, as the hooks do."""
        where = cwd if cwd and Path(cwd).is_absolute() else self.cwd
        blocked: Blocked | None = None
        for tool, arguments, json_arguments, lane in calls:
            call = call_of(tool, arguments, json_arguments=json_arguments)
            verdict = self._evaluate(call, where, session)
            if not verdict.allow:
                found = Blocked(tool=tool, command=call.command, path=call.path, verdict=verdict, lane=lane)
                if not verdict.ask:
                    return found  # a block wins over an ask
                blocked = blocked or found
        return blocked

    def describe(self) -> list[str]:
        """The lines printed at start. Builds the policy of the proxy's own directory now, so a broken
        `steering.toml` (which blocks every call until it is fixed) is reported at once."""
        if self.mode == "off":
            return ["steering: off"]
        lines = [f"steering: {self.mode} (each tool call checked by the steering policy at {self.cwd})"]
        try:
            built = self._policy(Path(self.cwd))
        except ConfigError as error:
            return [*lines, f"steering error, every tool call is blocked until it is fixed: {error}"]
        return lines + [f"steering warning: {warning}" for warning in built.warnings]

    def _evaluate(self, call: ToolCall, cwd: str, session: str | None) -> Verdict:
        try:
            engine = Steering(self._policy(Path(cwd)).policy)
            run_in = workdir(call.args, cwd) if call.tool == "bash" else cwd
            context = host_context(run_in, self.home, entries=self._session(session))
            return engine.evaluate(call, context)
        except ConfigError as error:
            problem = str(error)
        except OSError as error:
            problem = f"{type(error).__name__}: {error}"
        except Exception as error:  # the one catch-all, at the edge: fail closed, never crash a stream
            problem = f"internal error ({type(error).__name__}: {error}); please report it"
        reason = (
            f"[steering:proxy-error@rein] rein could not check this, so it is blocked: {problem}."
            " Retrying will not help: ask the user to look at rein's steering configuration."
        )
        return Verdict(allow=False, reason=reason, rule="proxy-error", source="rein")

    def _policy(self, cwd: Path) -> Built:
        home = Path(self.home)
        key = tuple(signature(path) for path in config_files(cwd, home))
        with self._lock:
            built = self._policies.get(key)
            if built is None:
                built = self._policies[key] = load_policy(cwd, home)
                if len(self._policies) > CACHED_POLICIES:
                    self._policies.popitem(last=False)
            self._policies.move_to_end(key)
            return built

    def _session(self, session: str | None) -> MemoryEntries:
        if session is None:
            return MemoryEntries()
        with self._lock:
            entries = self._entries.get(session)
            if entries is None:
                entries = self._entries[session] = MemoryEntries()
                if len(self._entries) > MAX_SESSIONS:
                    self._entries.popitem(last=False)
            self._entries.move_to_end(session)
            return entries
