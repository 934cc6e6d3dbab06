"""`rein hook install|uninstall <host>`: merge rein's hooks into a host's settings file, or take them out.

Only rein's own handlers are touched, recognized by the command they run (`<rein> hook <host> ...`);
every other key, event and handler stays as it was (the file is re-indented as JSON). Installing
twice changes nothing; uninstalling removes rein's handlers, and the groups, event lists and `hooks`
object that held nothing else. A file rein cannot read as a
JSON object is an `InstallError`, never overwritten. Writes are atomic (a temporary file renamed over
the target, through a symlink to its real file).
"""

from __future__ import annotations

import difflib
import json
import os
import shlex
import shutil
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, cast

from rein.hooks.errors import InstallError

Scope = Literal["user", "project"]


@dataclass(frozen=True, slots=True)
class Hook:
    event: str
    """The host's event key in its settings, e.g. `PreToolUse`."""
    command: str
    """rein's CLI event, e.g. `pre-tool-use`."""
    matcher: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Settings:
    """Where a host keeps its hooks and in which shape."""

    title: str
    file: str
    """Relative to the home directory (user scope) or the project directory (project scope)."""
    hooks: tuple[Hook, ...]
    grouped: bool = True
    """Claude, Codex, Gemini: event -> [{matcher, hooks: [handler]}]; Cursor: event -> [handler]."""
    handler: Mapping[str, object] = field(default_factory=lambda: {"type": "command", "timeout": TIMEOUT})
    defaults: Mapping[str, object] = field(default_factory=dict)
    """Top-level keys the file needs, set only when absent (Cursor's `version`)."""
    home_env: str | None = None
    """An environment variable that, when set, names the directory of the user-scope file instead of
    the home directory's (Codex's `CODEX_HOME`, default `~/.codex`)."""


TIMEOUT = 30
"""Seconds a host waits for one hook call (its own default is 60 s or more): a warm hook answers in
milliseconds, a cold one in well under a second, so this only bounds a hook that hangs."""
_CLAUDE_TOOLS = "Bash|Write|Edit|MultiEdit|Read|mcp__.*"
_CODEX_TOOLS = "Bash|apply_patch|mcp__.*"
_GEMINI_TOOLS = "run_shell_command|write_file|replace|read_file|mcp_.*"
"""MCP tools: `mcp__<server>__<tool>` in Claude Code and Codex, `mcp_<server>_<tool>` in Gemini CLI."""
SETTINGS: dict[str, Settings] = {
    "claude": Settings(
        title="Claude Code",
        file=".claude/settings.json",
        hooks=(
            Hook("PreToolUse", "pre-tool-use", _CLAUDE_TOOLS),
            Hook("PostToolUse", "post-tool-use", _CLAUDE_TOOLS),
            Hook("PostToolUseFailure", "post-tool-use-failure", _CLAUDE_TOOLS),
            Hook("SessionStart", "session-start"),
            Hook("UserPromptSubmit", "user-prompt-submit"),
            Hook("Stop", "stop"),
        ),
    ),
    "codex": Settings(
        title="Codex",
        file=".codex/hooks.json",
        hooks=(
            Hook("PreToolUse", "pre-tool-use", _CODEX_TOOLS),
            Hook("PostToolUse", "post-tool-use", _CODEX_TOOLS),
            Hook("SessionStart", "session-start"),
            Hook("UserPromptSubmit", "user-prompt-submit"),
            Hook("Stop", "stop"),
        ),
        home_env="CODEX_HOME",
    ),
    "gemini": Settings(
        title="Gemini CLI",
        file=".gemini/settings.json",
        hooks=(
            Hook("BeforeTool", "before-tool", _GEMINI_TOOLS),
            Hook("AfterTool", "after-tool", _GEMINI_TOOLS),
            Hook("BeforeAgent", "before-agent"),
            Hook("SessionStart", "session-start"),
        ),
        handler={"name": "rein", "type": "command", "timeout": TIMEOUT * 1000},  # milliseconds
    ),
    "cursor": Settings(
        title="Cursor",
        file=".cursor/hooks.json",
        hooks=(
            Hook("beforeShellExecution", "before-shell-execution"),
            Hook("afterShellExecution", "after-shell-execution"),
            Hook("beforeMCPExecution", "before-mcp-execution"),
            Hook("afterMCPExecution", "after-mcp-execution"),
            Hook("beforeReadFile", "before-read-file"),
            Hook("afterFileEdit", "after-file-edit"),
            Hook("beforeSubmitPrompt", "before-submit-prompt"),
        ),
        grouped=False,
        handler={},
        defaults={"version": 1},
    ),
}


@dataclass(frozen=True, slots=True, kw_only=True)
class Change:
    """A settings file before and after; nothing is written until `write`."""

    path: Path
    before: str | None
    """The file's text, None when it does not exist."""
    after: str | None
    """The text to write, None when the file stays absent."""

    @property
    def changed(self) -> bool:
        return self.before != self.after

    def diff(self) -> str:
        before = (self.before or "").splitlines(keepends=True)
        old = str(self.path) if self.before is not None else "/dev/null"
        after = (self.after or "").splitlines(keepends=True)
        return "".join(difflib.unified_diff(before, after, old, str(self.path)))

    def write(self) -> None:
        if self.after is None or not self.changed:
            return
        target = self.path.resolve() if self.path.is_symlink() else self.path
        target.parent.mkdir(parents=True, exist_ok=True)
        temporary = target.with_name(f".{target.name}.rein-{os.getpid()}")
        try:
            temporary.write_text(self.after, encoding="utf-8")
            if self.before is not None:
                temporary.chmod(target.stat().st_mode & 0o7777)
            temporary.replace(target)
        finally:
            temporary.unlink(missing_ok=True)


def rein_command() -> list[str]:
    """How a host should start rein: the running `rein` executable, else the one on PATH, else this
    Python with `-m rein.cli`. Absolute, because hosts run hooks from varying directories and PATHs."""
    argv0 = Path(sys.argv[0]) if sys.argv and sys.argv[0] else None
    if argv0 is not None and argv0.name == "rein" and argv0.is_file():
        return [str(argv0.resolve())]
    found = shutil.which("rein")
    if found:
        return [str(Path(found).resolve())]
    return [sys.executable, "-m", "rein.cli"]


def is_rein(command: object, host: str) -> bool:
    """Whether a handler's command runs `rein hook <host> ...` (as a `rein` path or `-m rein.cli`)."""
    if not isinstance(command, str):
        return False
    try:
        words = shlex.split(command)
    except ValueError:
        return False
    for index in range(len(words) - 2):
        runs_rein = Path(words[index]).name == "rein" or words[index - 1 : index + 1] == ["-m", "rein.cli"]
        if runs_rein and words[index + 1 : index + 3] == ["hook", host]:
            return True
    return False


def settings_path(host: str, scope: Scope, *, cwd: Path, home: Path) -> Path:
    """The file to edit: below the project or home directory, or in the host's own `home_env`."""
    settings = SETTINGS[host]
    if scope == "project":
        return cwd / settings.file
    moved = os.environ.get(settings.home_env) if settings.home_env else None
    if moved:
        return Path(moved) / Path(settings.file).name
    return home / settings.file


def read_object(path: Path) -> tuple[str | None, dict[str, object]]:
    """A JSON settings file's text (None: absent) and its object; `InstallError` for anything else."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None, {}
    except OSError as error:  # the reason, not Python's `[Errno 20] ...: 'path'` (the path is named)
        raise InstallError(f"{path}: cannot read it ({error.strerror or error})") from None
    except UnicodeDecodeError as error:
        raise InstallError(f"{path}: cannot read it (not UTF-8 text: {error.reason})") from None
    try:
        data = json.loads(text) if text.strip() else {}
    except ValueError as error:
        raise InstallError(f"{path}: not valid JSON ({error}); fix it and run this again") from None
    if not isinstance(data, dict):
        raise InstallError(f"{path}: expected a JSON object at the top, found {type(data).__name__}")
    return text, cast(dict[str, object], data)


def _hooks(data: Mapping[str, object], path: Path) -> dict[str, object]:
    hooks = data.get("hooks", {})
    if not isinstance(hooks, dict):
        raise InstallError(f"{path}: `hooks` must be a JSON object, found {type(hooks).__name__}")
    return cast(dict[str, object], hooks)


def _ours(handler: object, host: str) -> bool:
    return isinstance(handler, dict) and is_rein(handler.get("command"), host)


def _without_rein(entries: list[object], host: str, grouped: bool) -> list[object]:
    if not grouped:
        return [entry for entry in entries if not _ours(entry, host)]
    kept: list[object] = []
    for group in entries:
        handlers = group.get("hooks") if isinstance(group, dict) else None
        if isinstance(group, dict) and isinstance(handlers, list) and any(_ours(h, host) for h in handlers):
            others = [handler for handler in handlers if not _ours(handler, host)]
            if not others:
                continue  # a group that only ran rein goes with it
            kept.append({**group, "hooks": others})
        else:
            kept.append(group)
    return kept


def unmerged(data: Mapping[str, object], host: str, path: Path) -> dict[str, object]:
    """`data` without rein's handlers for `host`. An event list, or `hooks` itself, that held only
    rein's handlers is dropped; one that was already empty is kept."""
    hooks = _hooks(data, path)
    out = dict(data)
    if "hooks" not in data:
        return out
    result: dict[str, object] = {}
    for event, entries in hooks.items():
        if not isinstance(entries, list):
            result[event] = entries
            continue
        kept = _without_rein(entries, host, SETTINGS[host].grouped)
        if kept or not entries:
            result[event] = kept
    if result or not hooks:
        out["hooks"] = result
    else:
        del out["hooks"]
    return out


def merged(data: Mapping[str, object], host: str, path: Path, base: list[str]) -> dict[str, object]:
    """`data` with exactly one set of rein's handlers for `host`, after everything already there."""
    settings = SETTINGS[host]
    out = unmerged(data, host, path)
    hooks = dict(_hooks(out, path))
    for hook in settings.hooks:
        entries = hooks.get(hook.event, [])
        if not isinstance(entries, list):
            raise InstallError(f"{path}: `hooks.{hook.event}` must be a list, found {type(entries).__name__}")
        handler = {**settings.handler, "command": shlex.join([*base, "hook", host, hook.command])}
        entry: dict[str, object] = handler
        if settings.grouped:
            entry = {"matcher": hook.matcher, "hooks": [handler]} if hook.matcher else {"hooks": [handler]}
        hooks[hook.event] = [*entries, entry]
    out["hooks"] = hooks
    missing = {key: value for key, value in settings.defaults.items() if key not in out}
    return {**missing, **out}


def _dump(data: Mapping[str, object]) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def install(host: str, *, scope: Scope, cwd: Path, home: Path, base: list[str] | None = None) -> Change:
    """The change that installs rein's hooks for `host`; `base` starts rein (default `rein_command()`).
    Raises `InstallError` for a settings file rein will not edit."""
    path = settings_path(host, scope, cwd=cwd, home=home)
    before, data = read_object(path)
    after = merged(data, host, path, base or rein_command())
    # An install that changes no value leaves the file's text (its formatting) alone.
    return Change(
        path=path, before=before, after=before if before is not None and after == data else _dump(after)
    )


def uninstall(host: str, *, scope: Scope, cwd: Path, home: Path) -> Change:
    """The change that removes rein's hooks for `host`. Raises `InstallError` like `install`."""
    path = settings_path(host, scope, cwd=cwd, home=home)
    before, data = read_object(path)
    if before is None:
        return Change(path=path, before=None, after=None)
    after = unmerged(data, host, path)
    return Change(path=path, before=before, after=before if after == data else _dump(after))
