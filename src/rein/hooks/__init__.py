"""Hook adapters: rein's steering inside Claude Code, Codex, Gemini CLI and Cursor.

Each host runs `rein hook <host> <event>` before and after its tool calls, JSON on stdin; the host's
module turns that into a `ToolCall` for `Steering.evaluate` (or a `ToolResult` for observers) and the
verdict back into the host's answer. `rein hook install <host>` writes the host's settings.

A hook is a fresh process per tool call, so this package's door imports nothing heavy: `HOSTS` names
each host's module, loaded on demand, and the other public names load their module when first used.

    HOSTS["claude"]                       -> "rein.hooks.claude"  (defines EVENTS)
    handle(host, event, stdin, home=...)  -> Answer (stdout, stderr, exit code); never raises
    SessionEntries(session_path(home, host, session_id))   the per-session EntryStore
    install(host, scope=..., cwd=..., home=...)            -> Change (path, before, after)
    start(home) / status(home) / stop(home); serve(home)   the hook daemon: control it; run it
    answer(host, event, stdin, home)                       the daemon's answer to a hook call, or None
    probe(host, command, hook, cwd), installed(...)        `rein hook doctor`'s checks
    module(host)                                           the host's trust check of installed hooks, or None
"""

from __future__ import annotations

import importlib

TYPE_CHECKING = False  # typing itself costs a hook process milliseconds; mypy reads this name

if TYPE_CHECKING:
    from rein.hooks._client import answer, enabled
    from rein.hooks._compile import compile_hook_path
    from rein.hooks._control import Status, start, status, stop
    from rein.hooks._daemon import IDLE, serve
    from rein.hooks._doctor import ALLOWED, DENIED, UNKNOWN_EXIT, installed, pre_tool, probe, stale
    from rein.hooks._install import SETTINGS, Change, Scope, install, settings_path, uninstall
    from rein.hooks._run import Answer, Event, Outcome, Request, handle
    from rein.hooks._store import SessionEntries, safe_name, session_path
    from rein.hooks._trust import Trust, module
    from rein.hooks.errors import HookError, InstallError, PayloadError

HOSTS: dict[str, str] = {
    "claude": "rein.hooks.claude",
    "codex": "rein.hooks.codex",
    "gemini": "rein.hooks.gemini",
    "cursor": "rein.hooks.cursor",
}
"""Host name -> the adapter module, which defines `EVENTS` (CLI event name -> `Event`)."""

_LAZY: dict[str, str] = {
    "Answer": "rein.hooks._run",
    "Event": "rein.hooks._run",
    "Outcome": "rein.hooks._run",
    "Request": "rein.hooks._run",
    "handle": "rein.hooks._run",
    "SessionEntries": "rein.hooks._store",
    "safe_name": "rein.hooks._store",
    "session_path": "rein.hooks._store",
    "Change": "rein.hooks._install",
    "install": "rein.hooks._install",
    "settings_path": "rein.hooks._install",
    "uninstall": "rein.hooks._install",
    "SETTINGS": "rein.hooks._install",
    "Scope": "rein.hooks._install",
    "compile_hook_path": "rein.hooks._compile",
    "Trust": "rein.hooks._trust",
    "module": "rein.hooks._trust",
    "Status": "rein.hooks._control",
    "start": "rein.hooks._control",
    "status": "rein.hooks._control",
    "stop": "rein.hooks._control",
    "IDLE": "rein.hooks._daemon",
    "serve": "rein.hooks._daemon",
    "answer": "rein.hooks._client",
    "enabled": "rein.hooks._client",
    "ALLOWED": "rein.hooks._doctor",
    "DENIED": "rein.hooks._doctor",
    "UNKNOWN_EXIT": "rein.hooks._doctor",
    "installed": "rein.hooks._doctor",
    "pre_tool": "rein.hooks._doctor",
    "probe": "rein.hooks._doctor",
    "stale": "rein.hooks._doctor",
    "HookError": "rein.hooks.errors",
    "InstallError": "rein.hooks.errors",
    "PayloadError": "rein.hooks.errors",
}

__all__ = [
    "ALLOWED",
    "DENIED",
    "HOSTS",
    "IDLE",
    "SETTINGS",
    "UNKNOWN_EXIT",
    "Answer",
    "Change",
    "Event",
    "HookError",
    "InstallError",
    "Outcome",
    "PayloadError",
    "Request",
    "Scope",
    "SessionEntries",
    "Status",
    "Trust",
    "answer",
    "compile_hook_path",
    "enabled",
    "handle",
    "install",
    "installed",
    "module",
    "pre_tool",
    "probe",
    "safe_name",
    "serve",
    "session_path",
    "settings_path",
    "stale",
    "start",
    "status",
    "stop",
    "uninstall",
]


def __getattr__(name: str) -> object:
    """Load the module behind a public name on first use (PEP 562)."""
    if name not in _LAZY:
        raise AttributeError(f"module 'rein.hooks' has no attribute {name!r}")
    return getattr(importlib.import_module(_LAZY[name]), name)
