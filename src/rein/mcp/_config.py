"""One MCP server's configuration, as every source spells it: checked, `${VAR}` expanded, one value.

The shapes are Claude Code's (`.mcp.json`, `~/.claude.json`), which rein's own `[mcp.servers.<name>]`
tables repeat: `command`, `args`, `env` for a server rein starts (stdio); `type = "http"` (or
`"streamable-http"`), `url`, `headers` for one it reaches over streamable HTTP. `${VAR}` and
`${VAR:-default}` are replaced from the environment in every string of those keys, as Claude Code does;
a variable that is not set and has no default is a problem, not an empty string (a token header
silently empty would fail later, further from its cause).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

Transport = Literal["stdio", "http"]
START_TIMEOUT = 30.0
"""Seconds a server has to start and list its tools (Claude Code's `MCP_TIMEOUT` default)."""
PREFIX = "mcp__"
"""Every MCP tool's name starts so (Claude Code's naming)."""
_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")


def tool_name(server: str, tool: str) -> str:
    """`mcp__<server>__<tool>`, each part with characters a provider refuses in a name made `_`."""
    return f"{PREFIX}{_UNSAFE.sub('_', server)}__{_UNSAFE.sub('_', tool)}"


@dataclass(frozen=True, slots=True, kw_only=True)
class ServerConfig:
    """A server to start (stdio) or reach (http). `source` says where it was configured, as `rein mcp
    list` shows it (`.mcp.json`, `~/.claude.json`, `.rein/settings.toml`, `the editor`)."""

    name: str
    transport: Transport
    source: str
    command: str = ""
    args: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    url: str = ""
    headers: Mapping[str, str] = field(default_factory=dict)

    @property
    def target(self) -> str:
        """What is started or reached: the command line, or the URL."""
        return " ".join([self.command, *self.args]) if self.transport == "stdio" else self.url


class ConfigProblem(ValueError):
    """A server entry that cannot be used; the message says what is wrong (the caller adds where)."""


def parse_server(name: str, raw: object, *, source: str, environ: Mapping[str, str]) -> ServerConfig:
    """The entry `raw` of server `name`. Raises `ConfigProblem` naming the key and what it must be."""
    if not isinstance(raw, Mapping):
        raise ConfigProblem(f"server {name!r} must be a table/object, not {type(raw).__name__}")
    kind = raw.get("type")
    if kind == "sse":
        raise ConfigProblem(
            f'server {name!r}: type "sse" is not supported (the old HTTP+SSE transport); use a'
            ' streamable HTTP endpoint with type "http"'
        )
    if kind in ("http", "streamable-http") or (kind is None and "url" in raw and "command" not in raw):
        url = _expand(_string(raw, "url", name), environ, name)
        if not url.startswith(("http://", "https://")):
            raise ConfigProblem(f"server {name!r}: url must start with http:// or https://, not {url!r}")
        headers = _table(raw, "headers", name, environ)
        return ServerConfig(name=name, transport="http", source=source, url=url, headers=headers)
    if kind not in (None, "stdio"):
        raise ConfigProblem(f"server {name!r}: type {kind!r} is not one of stdio, http, streamable-http")
    command = _expand(_string(raw, "command", name), environ, name)
    args = raw.get("args", [])
    if not isinstance(args, list) or not all(isinstance(arg, str) for arg in args):
        raise ConfigProblem(f"server {name!r}: args must be a list of strings")
    return ServerConfig(
        name=name,
        transport="stdio",
        source=source,
        command=command,
        args=tuple(_expand(arg, environ, name) for arg in args),
        env=_table(raw, "env", name, environ),
    )


def _string(raw: Mapping[str, object], key: str, name: str) -> str:
    value = raw.get(key)
    if not isinstance(value, str) or not value.strip():
        raise ConfigProblem(f"server {name!r}: {key} must be a non-empty string")
    return value


def _table(raw: Mapping[str, object], key: str, name: str, environ: Mapping[str, str]) -> dict[str, str]:
    value = raw.get(key, {})
    if not isinstance(value, Mapping) or not all(isinstance(v, str) for v in value.values()):
        raise ConfigProblem(f"server {name!r}: {key} must be a table of strings")
    return {str(k): _expand(v, environ, name) for k, v in value.items()}


def _expand(text: str, environ: Mapping[str, str], name: str) -> str:
    missing: list[str] = []

    def value(match: re.Match[str]) -> str:
        found = environ.get(match[1])
        if found is not None:
            return found
        if match[2] is not None:
            return match[2]
        missing.append(match[1])
        return ""

    expanded = _VAR.sub(value, text)
    if missing:
        raise ConfigProblem(f"server {name!r}: ${{{missing[0]}}} is not set (and has no :-default)")
    return expanded
