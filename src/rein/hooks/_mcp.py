"""MCP tool calls as the hosts name them, in rein's one form: `mcp__<server>__<tool>` (Claude Code's and
Codex's own naming), with the call's JSON arguments, so one steering rule works in every host.

  Claude Code, Codex   `mcp__<server>__<tool>` already; `tool_input` is the arguments object
  Gemini CLI           `mcp_<server>_<tool>` (0.34 on; `mcp_context` {server_name, tool_name} carries
                       the unmangled names), or `mcp__<server>__<tool>` as its hooks reference says
  Cursor               the bare tool name, `tool_input` as a JSON string; the server is named by
                       `MCP:<server>:<tool>`, a `server_name` field, or found in `mcp.json` by the
                       payload's `url` or `command` (see `cursor_server`)
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import cast

from rein.hooks.errors import PayloadError

PREFIX = "mcp__"
UNKNOWN_SERVER = "unknown"
"""The server part of a Cursor MCP call whose server rein cannot name: `mcp__*` rules still see it."""


def qualified(server: str, tool: str) -> str:
    return f"{PREFIX}{server}__{tool}"


def arguments(value: object, where: str = "tool_input") -> Mapping[str, object]:
    """A call's arguments: a JSON object, or a JSON string that holds one (Cursor); none is `{}`."""
    if value is None or value == "":
        return {}
    if isinstance(value, str):
        try:
            value = json.loads(sent := value)
        except ValueError:
            raise PayloadError(f"`{where}` is a string that is not JSON: {sent[:60]!r}") from None
    if not isinstance(value, dict):
        raise PayloadError(f"`{where}` must be a JSON object of arguments, not {type(value).__name__}")
    return cast(dict[str, object], value)


def gemini_name(name: str, context: object) -> str | None:
    """rein's name for a Gemini CLI tool, or None when it is not an MCP tool. `mcp_context` names the
    server and the tool as configured; without it, `mcp_<server>_<tool>` is split at the first `_`
    after the prefix, as Gemini CLI's own `parseMcpToolName` does."""
    if isinstance(context, dict):
        server, tool = context.get("server_name"), context.get("tool_name")
        if isinstance(server, str) and server and isinstance(tool, str) and tool:
            return qualified(server, tool)
    if name.startswith(PREFIX):
        return name
    if name.startswith("mcp_"):
        server, _, tool = name.removeprefix("mcp_").partition("_")
        if server and tool:
            return qualified(server, tool)
    return None


def _servers(path: Path) -> Mapping[str, object]:
    """The `mcpServers` object of an `mcp.json`; an absent or unreadable file names none."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    servers = data.get("mcpServers") if isinstance(data, dict) else None
    return cast(dict[str, object], servers) if isinstance(servers, dict) else {}


def _command_lines(entry: Mapping[str, object]) -> set[str]:
    """A stdio server's `command` and `args` as one line, as Cursor may send them (quoted or not)."""
    program, args = entry.get("command"), entry.get("args", [])
    if not isinstance(program, str) or not isinstance(args, list):
        return set()
    words = [program, *(str(arg) for arg in args)]
    return {" ".join(words), shlex.join(words)}


def cursor_server(roots: Iterable[str], home: Path, *, url: str | None, command: str | None) -> str | None:
    """The name of the server in the workspaces' `.cursor/mcp.json` or `~/.cursor/mcp.json` (project
    first, as Cursor reads them) whose `url` or command line is the call's; a bare program (`npx`)
    names a server only when no other server runs it. None if none is."""
    if not url and not command:
        return None
    files = [Path(root) / ".cursor" / "mcp.json" for root in roots] + [home / ".cursor" / "mcp.json"]
    entries = [
        (name, cast(dict[str, object], entry))
        for path in files
        for name, entry in _servers(path).items()
        if isinstance(entry, dict)
    ]
    line = command.strip() if command else None
    for name, entry in entries:
        if (url and entry.get("url") == url) or (line and line in _command_lines(entry)):
            return name
    runs = {name for name, entry in entries if line and entry.get("command") == line}
    return runs.pop() if len(runs) == 1 else None


def cursor_name(payload: Mapping[str, object], roots: Iterable[str], home: Path) -> str:
    """rein's name for the MCP tool of a Cursor `beforeMCPExecution`/`afterMCPExecution` payload."""
    name = payload.get("tool_name")
    if not isinstance(name, str) or not name:
        raise PayloadError("`tool_name` must be a non-empty string")
    if name.startswith(PREFIX):
        return name
    if name.startswith("MCP:") and name.count(":") >= 2:
        _, server, tool = name.split(":", 2)
        return qualified(server, tool)
    for key in ("server_name", "serverName", "server"):
        named = payload.get(key)
        if isinstance(named, str) and named:
            return qualified(named, name)
    url, command = payload.get("url"), payload.get("command")
    found = cursor_server(
        roots,
        home,
        url=url if isinstance(url, str) else None,
        command=command if isinstance(command, str) else None,
    )
    return qualified(found or UNKNOWN_SERVER, name)
