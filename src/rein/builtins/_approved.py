"""The calls a person allowed for good in one project: `.rein/approved.toml` in the session's directory,
written when they answer "Always allow in this project", read before approval asks.

    # added by rein on 2025-06-01 14:03 UTC (session 0193ab12) when you allowed: npm test
    [[allow]]
    tool = "bash"
    command = "npm test"

An entry allows exactly the command it names (`command`: its words, however the model quotes or spaces
them), or every command whose words start with it (`prefix`, which only a person writes); `tool =
"write"` or `"edit"` allows that tool on files inside the project; `tool = "mcp__github__create_issue"`
allows that MCP tool (whatever its arguments). A bash line runs without asking
when every command it would run (inner ones included: `sudo rm x` is `sudo rm x` and `rm x`) is
allowed. Only approval reads the file: steering still decides every call first.

rein writes exact commands, not programs: the file outlives the session and nobody reviews it again,
so one yes to `rm build/x.o` must not become `rm` anything forever. A person widens an entry by
renaming `command` to `prefix`, and removes one by deleting its lines (or the file).
"""

from __future__ import annotations

import shlex
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from rein.mcp import PREFIX as MCP_PREFIX
from rein.steering import analyze

FILE = Path(".rein") / "approved.toml"
"""Where, below the session's directory."""

HEADER = """\
# Calls rein runs in this project without asking you (with approve = "ask"). rein adds an entry when
# you answer "Always allow in this project"; delete an entry, or this file, to be asked again.
# `command` allows exactly that command; rename it to `prefix` to allow every command that starts
# with those words. `tool = "write"` (or "edit") allows that tool on files inside this project.
# Steering rules still apply to every call. See docs/steering.md#always-allow-in-this-project.
"""

_FILE_TOOLS = frozenset({"write", "edit"})

Argv = tuple[str, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class Approved:
    """The entries of one project's file."""

    commands: frozenset[Argv] = frozenset()
    prefixes: tuple[Argv, ...] = ()
    tools: frozenset[str] = frozenset()
    problems: tuple[str, ...] = ()
    """Entries skipped, each naming the file and what is wrong (the others still count)."""

    def allows(self, argv: Argv) -> bool:
        return argv in self.commands or any(argv[: len(p)] == p for p in self.prefixes)


def command_argvs(command: str, *, cwd: str, home: str) -> tuple[Argv, ...] | None:
    """The words of every command `command` would run, inner ones included; None when any of them is
    only known at run time (an expansion, a parse problem): such a line is never saved."""
    analysis = analyze(command, cwd=cwd, home=home)
    if not analysis.understood or not analysis.refs:
        return None
    if any(not ref.argv or any(word.dynamic for word in ref.argv) for ref in analysis.refs):
        return None
    return tuple(dict.fromkeys(tuple(word.value for word in ref.argv) for ref in analysis.refs))


def inside(cwd: str, path: object) -> bool:
    """Whether a write or edit call's `path` is a file inside the project."""
    if not isinstance(path, str) or not path:
        return False
    root = Path(cwd).resolve()
    return (root / path).resolve().is_relative_to(root)


def names_config(tool: str, args: Mapping[str, object], *, cwd: str, home: str) -> bool:
    """Whether a call may change rein's own settings, rules or approvals (a `.rein/` folder of the
    project or the home). Such a call is asked about every time, and never saved: an answer given
    for other calls must not let the agent widen what it may do. For bash the test is the text (any
    mention of `.rein`): it asks more often, never less."""
    if tool == "bash":
        command = args.get("command")
        return isinstance(command, str) and ".rein" in command
    path = args.get("path")
    if not isinstance(path, str) or not path:
        return False
    target = (Path(cwd) / Path(path).expanduser()).resolve()
    return any(target.is_relative_to((Path(base) / ".rein").resolve()) for base in (cwd, home))


def load(cwd: str) -> Approved:
    """The project's entries; none when there is no file. Never raises: a file that cannot be read
    or parsed allows nothing and says why in `problems` (approval then asks as before)."""
    path = Path(cwd) / FILE
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return Approved()
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
        return Approved(problems=(f"{path}: {error}; nothing in it is allowed",))
    entries = data.get("allow", [])
    if not isinstance(entries, list):
        return Approved(problems=(f"{path}: `allow` must be a list of [[allow]] tables",))
    commands: set[Argv] = set()
    prefixes: list[Argv] = []
    tools: set[str] = set()
    problems: list[str] = []
    for number, entry in enumerate(entries, 1):
        parsed = _entry(entry)
        if isinstance(parsed, str):
            problems.append(f"{path}: [[allow]] number {number} skipped: {parsed}")
        elif parsed[0] == "command":
            commands.add(parsed[1])
        elif parsed[0] == "prefix":
            prefixes.append(parsed[1])
        else:
            tools.add(parsed[0])
    return Approved(
        commands=frozenset(commands),
        prefixes=tuple(prefixes),
        tools=frozenset(tools),
        problems=tuple(problems),
    )


def _entry(entry: object) -> tuple[str, Argv] | str:
    """("command" or "prefix", its words), or (the file tool, ()); else what is wrong with it."""
    if not isinstance(entry, Mapping):
        return "not a table"
    tool = entry.get("tool")
    if isinstance(tool, str) and (tool in _FILE_TOOLS or tool.startswith(MCP_PREFIX)):
        extra = set(entry) - {"tool"}
        return f"a {tool} entry takes only `tool` (not {', '.join(sorted(extra))})" if extra else (tool, ())
    if tool != "bash":
        return f"tool = {tool!r} is not one of bash, write, edit, mcp__<server>__<tool>"
    keys = set(entry) - {"tool"}
    if len(keys) != 1 or not keys <= {"command", "prefix"}:
        return "a bash entry has one of `command` or `prefix`, and nothing else"
    (key,) = keys
    words = entry[key]
    if not isinstance(words, str):
        return f"`{key}` must be a string"
    try:
        split = tuple(shlex.split(words))
    except ValueError as error:
        return f"`{key}` {words!r}: {error}"
    return (key, split) if split else f"`{key}` is empty"


def save(
    cwd: str, tool: str, argvs: Sequence[Argv], *, said: str, session: str, now: datetime | None = None
) -> Path:
    """Append entries for a call the person allowed for good: one per command of a bash line, or the
    tool. Creates the file (with a header saying how to remove entries). Raises OSError, or
    ValueError when the file as it is cannot be parsed (a person's edit): then nothing is written."""
    path = Path(cwd) / FILE
    when = (now or datetime.now(UTC)).strftime("%Y-%m-%d %H:%M UTC")
    shown = " ".join(said.split())
    shown = shown if len(shown) <= 160 else shown[:157] + "..."
    lines = [f"\n# added by rein on {when} (session {session[:8]}) when you allowed: {shown}"]
    if tool == "bash":
        for argv in argvs:
            lines += ["[[allow]]", 'tool = "bash"', f"command = {_string(shlex.join(argv))}", ""]
    else:
        lines += ["[[allow]]", f"tool = {_string(tool)}", ""]
    path.parent.mkdir(parents=True, exist_ok=True)
    before = path.read_text(encoding="utf-8") if path.exists() else HEADER
    text = before + ("" if before.endswith("\n") else "\n") + "\n".join(lines)
    tomllib.loads(text)  # never write a file the next session could not read
    path.write_text(text, encoding="utf-8")
    return path


def _string(text: str) -> str:
    """A TOML basic string: quotes, backslashes and control characters escaped."""
    out = []
    for char in text:
        if char in '"\\':
            out.append("\\" + char)
        elif ord(char) < 0x20 or ord(char) == 0x7F:
            out.append(f"\\u{ord(char):04x}")
        else:
            out.append(char)
    return '"' + "".join(out) + '"'
