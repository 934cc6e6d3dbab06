"""Codex's hook trust: Codex 0.169 runs a hook from a `hooks.json` only once the user trusted that exact
handler, and says nothing about the ones it skips.

The record, in Codex's user `config.toml` (`$CODEX_HOME`, else `~/.codex`), as Codex's own app-server
`hooks/list` reports it (`key`, `currentHash`, `trustStatus`: untrusted, trusted, modified):

    [hooks.state."<hooks.json>:<event_in_snake_case>:<group index>:<handler index>"]
    trusted_hash = "sha256:<hex of SHA-256 over the handler's canonical JSON>"

The canonical JSON is `{event_name, matcher?, hooks: [{async, command, timeout, type, statusMessage?}]}`
with sorted keys, no spaces and UTF-8 text: `async` defaults to false, `timeout` to 600, and the
matcher is left out when the group has none or the event takes none (UserPromptSubmit, Stop). The
path is the real one for the user file (Codex resolves `CODEX_HOME`), the project's as given for a
project file, which Codex loads only from a project trusted in the same config.toml:

    [projects."<project>"]
    trust_level = "trusted"

A handler whose command changed (rein moved) keeps its old hash and Codex skips it as modified.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import cast

import tomlkit
from tomlkit.exceptions import TOMLKitError
from tomlkit.items import InlineTable, Table
from tomlkit.toml_document import TOMLDocument

from rein.hooks._install import Change, Scope, is_rein
from rein.hooks._trust import Trust
from rein.hooks.errors import InstallError

__all__ = ["handler_hash", "rein_handlers", "status", "trust"]

_NO_MATCHER = frozenset({"UserPromptSubmit", "Stop"})
"""Events whose matcher Codex ignores, and leaves out of the hash."""
_DEFAULT_TIMEOUT = 600
_FIX = "run `rein hook install codex{flag} --trust`"


@dataclass(frozen=True, slots=True, kw_only=True)
class Handler:
    """One of rein's handlers in a hooks.json, as Codex keys and hashes it."""

    key: str
    hash: str


def handler_hash(event: str, matcher: object, handler: Mapping[str, object]) -> str:
    """`sha256:<hex>` of a handler as Codex 0.169 hashes it for its trust record."""
    canonical: dict[str, object] = {
        "async": handler.get("async", False),
        "command": handler.get("command"),
        "timeout": handler.get("timeout", _DEFAULT_TIMEOUT),
        "type": handler.get("type"),
    }
    if handler.get("statusMessage") is not None:
        canonical["statusMessage"] = handler["statusMessage"]
    group: dict[str, object] = {"event_name": _snake(event), "hooks": [canonical]}
    if matcher is not None and event not in _NO_MATCHER:
        group["matcher"] = matcher
    text = json.dumps(group, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()


def _snake(event: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", event).lower()


def rein_handlers(hooks_file: Path, *, scope: Scope) -> tuple[Handler, ...]:
    """rein's Codex handlers in `hooks_file` (none when it is absent). Raises `InstallError` for a file
    that is not a JSON object of the documented shape."""
    try:
        data = json.loads(hooks_file.read_text(encoding="utf-8") or "{}")
    except FileNotFoundError:
        return ()
    except (OSError, UnicodeDecodeError, ValueError) as error:
        raise InstallError(f"{hooks_file}: cannot read it as JSON ({error})") from None
    hooks = data.get("hooks") if isinstance(data, dict) else None
    if not isinstance(hooks, dict):
        return ()
    where = _key_path(hooks_file, scope)
    found: list[Handler] = []
    for event, groups in hooks.items():
        for group_index, group in enumerate(groups if isinstance(groups, list) else ()):
            handlers = group.get("hooks") if isinstance(group, dict) else None
            for index, handler in enumerate(handlers if isinstance(handlers, list) else ()):
                if isinstance(handler, dict) and is_rein(handler.get("command"), "codex"):
                    found.append(
                        Handler(
                            key=f"{where}:{_snake(event)}:{group_index}:{index}",
                            hash=handler_hash(event, group.get("matcher"), handler),
                        )
                    )
    return tuple(found)


def _key_path(hooks_file: Path, scope: Scope) -> str:
    return str(hooks_file.resolve() if scope == "user" else hooks_file.absolute())


def config_path(home: Path) -> Path:
    """Codex's user config.toml: in `$CODEX_HOME`, else `~/.codex`."""
    moved = os.environ.get("CODEX_HOME")
    return (Path(moved) if moved else home / ".codex") / "config.toml"


def _load(path: Path) -> tuple[str | None, TOMLDocument]:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None, tomlkit.document()
    except OSError as error:  # the reason, not Python's `[Errno 20] ...: 'path'` (the path is named)
        raise InstallError(f"{path}: cannot read it ({error.strerror or error})") from None
    except UnicodeDecodeError as error:
        raise InstallError(f"{path}: cannot read it (not UTF-8 text: {error.reason})") from None
    try:
        return text, tomlkit.parse(text)
    except TOMLKitError as error:
        raise InstallError(f"{path}: not valid TOML ({error}); fix it and run this again") from None


def _table(parent: Mapping[str, object], key: str, path: Path, where: str) -> Mapping[str, object]:
    value = parent.get(key, {})
    if not isinstance(value, Mapping):
        raise InstallError(f"{path}: `{where}` must be a table, found {type(value).__name__}")
    return cast(Mapping[str, object], value)


def _project(hooks_file: Path) -> str:
    """The project a `<project>/.codex/hooks.json` belongs to."""
    return str(hooks_file.absolute().parent.parent)


def status(hooks_file: Path, *, scope: Scope, cwd: Path, home: Path) -> Trust:
    """Whether Codex will run rein's handlers in `hooks_file`. Raises `InstallError` for a hooks.json
    or config.toml rein cannot read."""
    config = config_path(home)
    flag = " --project" if scope == "project" else ""
    handlers = rein_handlers(hooks_file, scope=scope)
    if not handlers:
        detail = f"no rein hooks in {hooks_file}: run `rein hook install codex{flag}`"
        return Trust(trusted=False, record=config, detail=detail)
    _, doc = _load(config)
    state = _table(_table(doc, "hooks", config, "hooks"), "state", config, "hooks.state")
    if scope == "project":
        project = _project(hooks_file)
        entry = _table(_table(doc, "projects", config, "projects"), project, config, f"projects.{project}")
        level = entry.get("trust_level")
        if level != "trusted":
            why = "is marked untrusted" if level == "untrusted" else "is not trusted"
            detail = f"Codex ignores {hooks_file}: the project {project} {why} in {config}; " + _FIX.format(
                flag=flag
            )
            return Trust(trusted=False, record=config, detail=detail)
    missing = stale = disabled = 0
    for handler in handlers:
        entry = _table(state, handler.key, config, f"hooks.state.{handler.key}")
        recorded = entry.get("trusted_hash")
        missing += recorded is None
        stale += recorded is not None and recorded != handler.hash
        disabled += entry.get("enabled") is False
    count = len(handlers)
    if disabled:
        detail = (
            f"{disabled} of rein's {count} hooks in {hooks_file} are disabled in {config} (`enabled = false`)"
        )
    elif stale:
        detail = (
            f"Codex's trust in {stale} of rein's {count} hooks in {hooks_file} is for another command "
            "(rein moved or changed), so Codex skips them; " + _FIX.format(flag=flag)
        )
    elif missing:
        detail = (
            f"Codex will not run {missing} of rein's {count} hooks in {hooks_file} until they are "
            "trusted; " + _FIX.format(flag=flag) + " (or trust them in Codex's /hooks)"
        )
    else:
        return Trust(trusted=True, record=config, detail=f"Codex trusts rein's {count} hooks in {hooks_file}")
    return Trust(trusted=False, record=config, stale=bool(stale) and not disabled, detail=detail)


def trust(hooks_file: Path, *, scope: Scope, cwd: Path, home: Path) -> Change:
    """The change to Codex's config.toml that trusts rein's handlers in `hooks_file` as they are now
    (and, for a project file, the project, unless it is explicitly marked untrusted). Every other key,
    comment and entry stays. Raises `InstallError` like `status`."""
    config = config_path(home)
    handlers = rein_handlers(hooks_file, scope=scope)
    before, doc = _load(config)
    if not handlers:
        return Change(path=config, before=before, after=before)
    state = _child(_child(doc, "hooks", config, "hooks"), "state", config, "hooks.state")
    for handler in handlers:
        entry = _child(state, handler.key, config, f"hooks.state.{handler.key}", super_table=False)
        if entry.get("trusted_hash") != handler.hash:
            entry["trusted_hash"] = handler.hash
    if scope == "project":
        project = _project(hooks_file)
        projects = _child(doc, "projects", config, "projects")
        entry = _child(projects, project, config, f"projects.{project}", super_table=False)
        if entry.get("trust_level") not in ("trusted", "untrusted"):  # as `codex --trust`: never over a no
            entry["trust_level"] = "trusted"
    return Change(path=config, before=before, after=tomlkit.dumps(doc))


def _child(
    parent: TOMLDocument | Table | InlineTable, key: str, path: Path, where: str, *, super_table: bool = True
) -> Table | InlineTable:
    """`parent[key]` as a table, created when absent (a super table writes as `[hooks.state."k"]`
    rather than an empty `[hooks]` header)."""
    value = parent.get(key)
    if value is None:
        if isinstance(parent, InlineTable):
            parent[key] = tomlkit.inline_table()
        else:
            parent[key] = tomlkit.table(is_super_table=super_table)
        value = parent[key]
    if not isinstance(value, Table | InlineTable):
        raise InstallError(f"{path}: `{where}` must be a table, found {type(value).__name__}")
    return value
