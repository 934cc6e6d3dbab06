"""`rein hook doctor HOST`: what is installed where, whether the host will run it, and a live probe.

The probe runs the installed pre-tool command exactly as the host does (`sh -c COMMAND`, the host's
JSON on stdin, the current directory as the payload's cwd) once with `ls`, which every policy allows,
and once with a force push, which rein's defaults block, and reads the answer in the host's protocol.
"""

from __future__ import annotations

import json
import shlex
import subprocess
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import cast

from rein.hooks._install import SETTINGS, Scope, is_rein, rein_command, settings_path

ALLOWED = "ls"
DENIED = "git push --force origin main"
PROBE_TIMEOUT = 30.0
UNKNOWN_EXIT = {
    "codex": "Codex sends a shell command's output without its exit code; rein reads it from the"
    " session's rollout file, so only under `codex exec --ephemeral` (no rollout) do observers that"
    " need an exit code not fire",
    "cursor": "Cursor sends no exit code after a shell command: observers that require one do not fire",
}
"""Hosts whose payloads lose the exit code of a shell command, and what that means for observers."""

_PROBES: dict[str, tuple[str, str, str]] = {
    "claude": ("pre-tool-use", "PreToolUse", "Bash"),
    "codex": ("pre-tool-use", "PreToolUse", "Bash"),
    "gemini": ("before-tool", "BeforeTool", "run_shell_command"),
    "cursor": ("before-shell-execution", "beforeShellExecution", ""),
}
"""Host -> (rein's event, the host's event name, the host's shell tool)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Probe:
    command: str
    denied: bool
    reason: str
    """The deny reason, or what went wrong (the hook's exit code and stderr)."""
    ms: float
    ok: bool
    """The hook answered in the host's protocol."""


def payload(host: str, command: str, cwd: Path) -> str:
    _, event, tool = _PROBES[host]
    if host == "cursor":
        body: dict[str, object] = {
            "conversation_id": "rein-doctor",
            "hook_event_name": event,
            "workspace_roots": [str(cwd)],
            "command": command,
            "cwd": str(cwd),
        }
    else:
        body = {
            "session_id": "rein-doctor",
            "cwd": str(cwd),
            "hook_event_name": event,
            "tool_name": tool,
            "tool_input": {"command": command},
        }
        if host != "gemini":
            body["tool_use_id"] = "rein-doctor"
    return json.dumps(body)


def verdict(host: str, stdout: str) -> tuple[bool, str] | None:
    """(denied, reason) read from a pre-tool answer in `host`'s protocol; None if it is not one."""
    try:
        data = json.loads(stdout) if stdout.strip() else {}
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    answer = cast(dict[str, object], data)
    if host in ("claude", "codex"):
        inner = answer.get("hookSpecificOutput")
        decision = cast(Mapping[str, object], inner) if isinstance(inner, dict) else {}
        reason = decision.get("permissionDecisionReason")
        return decision.get("permissionDecision") == "deny", str(reason or "")
    if host == "gemini":
        return answer.get("decision") == "deny", str(answer.get("reason") or "")
    return answer.get("permission") == "deny", str(answer.get("agent_message") or "")


def probe(host: str, command: str, hook: str, cwd: Path) -> Probe:
    """Run the installed `hook` command the way the host does, with a call of `command`."""
    start = time.perf_counter()
    try:
        done = subprocess.run(
            ["sh", "-c", hook],
            input=payload(host, command, cwd),
            capture_output=True,
            text=True,
            cwd=cwd,
            timeout=PROBE_TIMEOUT,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return Probe(
            command=command, denied=False, reason="no answer in 30 s", ms=PROBE_TIMEOUT * 1e3, ok=False
        )
    ms = (time.perf_counter() - start) * 1000
    read = verdict(host, done.stdout) if done.returncode == 0 else None
    if read is None:
        problem = f"exit code {done.returncode}: {(done.stderr or done.stdout).strip()[:200]}"
        return Probe(command=command, denied=False, reason=problem, ms=ms, ok=False)
    return Probe(command=command, denied=read[0], reason=read[1], ms=ms, ok=True)


def installed(host: str, scope: Scope, cwd: Path, home: Path) -> tuple[Path, dict[str, str]]:
    """The settings file and rein's command in it for each of the host's events (empty if none)."""
    path = settings_path(host, scope, cwd=cwd, home=home)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return path, {}
    hooks = data.get("hooks") if isinstance(data, dict) else None
    found: dict[str, str] = {}
    for event, entries in hooks.items() if isinstance(hooks, dict) else ():
        for entry in entries if isinstance(entries, list) else ():
            handlers = entry.get("hooks", [entry]) if isinstance(entry, dict) else []
            for handler in handlers if isinstance(handlers, list) else []:
                command = handler.get("command") if isinstance(handler, dict) else None
                if isinstance(command, str) and is_rein(command, host):
                    found[event] = command
    return path, found


def stale(command: str) -> str | None:
    """Why an installed command cannot start this rein: its program is gone, or is another rein."""
    program = shlex.split(command)[0]
    if not Path(program).is_file():
        return f"{program} does not exist (rein moved?): run `rein hook install` again"
    current = rein_command()[0]
    if Path(program).resolve() != Path(current).resolve():
        return f"it runs {program}, not this rein ({current}): run `rein hook install` again to switch"
    return None


def pre_tool(host: str) -> str:
    """The host's event key that carries rein's pre-tool hook."""
    event = _PROBES[host][1]
    return next(hook.event for hook in SETTINGS[host].hooks if hook.event == event)
