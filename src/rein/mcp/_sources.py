"""Where MCP servers are configured, read in order; a later source's server replaces an earlier one of
the same name:

1. `~/.claude.json`, its top-level `mcpServers` (Claude Code's user scope);
2. `~/.rein/settings.toml`, `[mcp.servers.<name>]`;
3. `.mcp.json` at the git root, when the session's directory is below it;
4. `.mcp.json` in the session's directory;
5. `.rein/settings.toml` in the session's directory, `[mcp.servers.<name>]`;
6. the servers an editor passes over ACP (`extra`).

In rein's settings, `enabled = false` switches a server off, wherever it is configured. A file that
cannot be read or parsed, or an entry that is wrong, is one line naming the file and the problem; the
other servers still count.
"""

from __future__ import annotations

import json
import os
import tomllib
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from rein.mcp._config import ConfigProblem, ServerConfig, parse_server
from rein.settings import settings_files, shown_path

MCP_JSON = ".mcp.json"


@dataclass(frozen=True, slots=True, kw_only=True)
class Configured:
    """The servers to start, by name in the order first configured."""

    servers: tuple[ServerConfig, ...] = ()
    disabled: tuple[str, ...] = ()
    """Names switched off with `enabled = false` (not in `servers`)."""
    problems: tuple[str, ...] = ()
    """One line each: `<file>: <problem>`."""


def configured_servers(
    cwd: Path, home: Path, *, environ: Mapping[str, str] | None = None, extra: Sequence[ServerConfig] = ()
) -> Configured:
    """Every source, merged by server name (later wins), less the servers switched off. Never raises."""
    env = os.environ if environ is None else environ
    found: dict[str, ServerConfig] = {}
    disabled: set[str] = set()
    problems: list[str] = []
    for path, entries, is_settings in _sources(cwd, home, problems):
        source = shown_path(str(path), cwd, home)
        for name, entry in entries.items():
            raw = entry
            if is_settings and isinstance(entry, Mapping) and "enabled" in entry:
                raw = {key: value for key, value in entry.items() if key != "enabled"}
                enabled = entry["enabled"]
                if not isinstance(enabled, bool):
                    problems.append(f"{path}: [mcp.servers.{name}] enabled must be true or false")
                    continue
                if not enabled:
                    disabled.add(name)
                    continue
                if not raw:
                    continue  # `enabled = true` alone: the server as another source has it
            try:
                found[name] = parse_server(name, raw, source=source, environ=env)
            except ConfigProblem as problem:
                problems.append(f"{path}: {problem}")
    for server in extra:
        found[server.name] = server
    return Configured(
        servers=tuple(server for name, server in found.items() if name not in disabled),
        disabled=tuple(sorted(disabled)),
        problems=tuple(problems),
    )


def _sources(cwd: Path, home: Path, problems: list[str]) -> Iterator[tuple[Path, Mapping[str, object], bool]]:
    user_settings, project_settings = settings_files(cwd, home)
    root = git_root(cwd)
    candidates: list[tuple[Path, bool]] = [(home / ".claude.json", False), (user_settings, True)]
    if root is not None and root != cwd:
        candidates.append((root / MCP_JSON, False))
    candidates += [(cwd / MCP_JSON, False), (project_settings, True)]
    for path, is_settings in candidates:
        entries = _read(path, is_settings, problems)
        if entries:
            yield path, entries, is_settings


def _read(path: Path, is_settings: bool, problems: list[str]) -> Mapping[str, object]:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError) as error:
        problems.append(f"{path}: cannot be read ({error})")
        return {}
    try:
        data = tomllib.loads(text) if is_settings else json.loads(text)
    except (tomllib.TOMLDecodeError, json.JSONDecodeError) as error:
        problems.append(f"{path}: not valid {'TOML' if is_settings else 'JSON'} ({error})")
        return {}
    if is_settings:
        group = data.get("mcp", {})
        servers = group.get("servers", {}) if isinstance(group, Mapping) else {}
        where = "[mcp.servers]"
    else:
        servers = data.get("mcpServers", {}) if isinstance(data, Mapping) else {}
        where = "mcpServers"
    if not isinstance(servers, Mapping):
        problems.append(f"{path}: {where} must be a table of servers by name")
        return {}
    return servers


def git_root(cwd: Path) -> Path | None:
    """The nearest directory at or above `cwd` holding `.git` (a folder, or a worktree's file)."""
    for folder in (cwd, *cwd.parents):
        if (folder / ".git").exists():
            return folder
    return None
