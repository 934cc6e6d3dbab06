"""Gemini CLI's folder trust, as Gemini CLI 0.61.0 reads it (`packages/core/src/utils/trust.ts`,
`packages/cli/src/config/settings.ts`, `hookRegistry.ts`):

- `~/.gemini/trustedFolders.json` (`$GEMINI_CLI_TRUSTED_FOLDERS_PATH`; `~` is `$GEMINI_CLI_HOME` when
  set) maps a path to `TRUST_FOLDER` (it and everything below), `TRUST_PARENT` (its parent folder and
  everything below) or `DO_NOT_TRUST`; the longest matching path wins. Any other value, or a file that
  is not a JSON object, stops Gemini CLI with an error.
- In a folder that is not trusted Gemini CLI runs no hooks at all, the user's included, and never reads
  the project's `.gemini/settings.json`. Headless (`-p`) it refuses to start there unless
  `--skip-trust` or `GEMINI_CLI_TRUST_WORKSPACE=true`. `--skip-trust` takes effect only after the
  settings are read, so it runs the user's hooks but silently skips the project's; the variable, set
  before Gemini CLI starts, loads both.
- `security.folderTrust.enabled = false` in the user's settings turns all of this off (every folder
  trusted); `GEMINI_CLI_TRUST_WORKSPACE=false` or `GEMINI_RESTRICTED_MODE=true` distrusts every folder.

So a `--project` install needs the project folder trusted, and a user install needs only that the
folder Gemini CLI runs in is not marked `DO_NOT_TRUST` (a new folder is asked about, or refused
headless, which is not silent). `trust` adds `TRUST_FOLDER` for that folder, keeping every other entry.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path

from rein.hooks._install import Change, Scope, read_object
from rein.hooks._trust import Trust
from rein.hooks.errors import InstallError

LEVELS = ("TRUST_FOLDER", "TRUST_PARENT", "DO_NOT_TRUST")
_FIX = "run `rein hook install gemini{flag} --trust`, or `/permissions trust` in Gemini CLI"


def record_path(home: Path) -> Path:
    """Where Gemini CLI keeps its trusted folders."""
    moved = os.environ.get("GEMINI_CLI_TRUSTED_FOLDERS_PATH")
    return Path(moved) if moved else _gemini_dir(home) / "trustedFolders.json"


def _gemini_dir(home: Path) -> Path:
    return Path(os.environ.get("GEMINI_CLI_HOME") or home) / ".gemini"


def _read(path: Path) -> tuple[str | None, dict[str, object]]:
    """The file's text and its rules; raises `InstallError` for a file Gemini CLI would refuse."""
    text, data = read_object(path)
    for rule, level in data.items():
        if level not in LEVELS:
            raise InstallError(
                f"{path}: {rule!r} has trust level {json.dumps(level)}, expected one of {', '.join(LEVELS)}"
            )
    return text, data


def _real(path: str) -> str:
    return str(Path(path).resolve())


def decision(rules: Mapping[str, object], folder: Path) -> tuple[str, str] | None:
    """The rule deciding `folder` and its level, as Gemini CLI picks it: the longest path whose folder
    (its parent for `TRUST_PARENT`) holds `folder` or is it; None when no rule does."""
    location = _real(str(folder))
    found: tuple[str, str] | None = None
    for rule, level in rules.items():
        effective = _real(str(Path(rule).parent) if level == "TRUST_PARENT" else rule)
        inside = os.path.commonpath([effective, location]) == effective
        if inside and (found is None or len(rule) > len(found[0])):
            found = (rule, str(level))
    return found


def _folder_trust_off(home: Path) -> Path | None:
    """The user's settings file when it turns folder trust off; an unreadable one counts as on, the
    default (Gemini CLI itself stops on it)."""
    path = _gemini_dir(home) / "settings.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    security = data.get("security") if isinstance(data, dict) else None
    folder_trust = security.get("folderTrust") if isinstance(security, dict) else None
    enabled = folder_trust.get("enabled") if isinstance(folder_trust, dict) else None
    return path if enabled is False else None


def _folder(hooks_file: Path, scope: Scope, cwd: Path) -> Path:
    """The folder that must be trusted: the project holding `.gemini/settings.json`, or where Gemini
    CLI runs for a user install."""
    return hooks_file.parent.parent if scope == "project" else cwd


def _from_environment(record: Path) -> Trust | None:
    trust_env = os.environ.get("GEMINI_CLI_TRUST_WORKSPACE")
    if os.environ.get("GEMINI_RESTRICTED_MODE") == "true" or trust_env == "false":
        detail = "GEMINI_RESTRICTED_MODE=true or GEMINI_CLI_TRUST_WORKSPACE=false in this environment: "
        return Trust(trusted=False, record=record, detail=detail + "Gemini CLI runs no hooks")
    if trust_env == "true":
        detail = "GEMINI_CLI_TRUST_WORKSPACE=true in this environment: Gemini CLI trusts every folder"
        return Trust(trusted=True, record=record, detail=detail)
    return None


def status(hooks_file: Path, *, scope: Scope, cwd: Path, home: Path) -> Trust:
    """Whether Gemini CLI will run the hooks in `hooks_file`, and if not, how to make it. Never raises:
    a trusted-folders file Gemini CLI would refuse is reported as not trusted."""
    record = record_path(home)
    settings = _folder_trust_off(home)
    if settings is not None:
        detail = f"folder trust is off in {settings}: Gemini CLI runs hooks in every folder"
        return Trust(trusted=True, record=record, detail=detail)
    environment = _from_environment(record)
    if environment is not None:
        return environment
    try:
        _, rules = _read(record)
    except InstallError as error:
        return Trust(
            trusted=False, record=record, detail=f"{error}; Gemini CLI will not start until it is fixed"
        )
    folder = _folder(hooks_file, scope, cwd)
    found = decision(rules, folder)
    fix = _FIX.format(flag=" --project" if scope == "project" else "")
    if found is not None and found[1] == "DO_NOT_TRUST":
        detail = (
            f"{record} marks {folder} DO_NOT_TRUST ({found[0]}), so Gemini CLI runs no hooks there: {fix}"
        )
        return Trust(trusted=False, record=record, detail=detail)
    if found is not None:
        return Trust(
            trusted=True, record=record, detail=f"{folder} is trusted in {record} ({found[1]} {found[0]})"
        )
    if scope == "project":
        detail = (
            f"Gemini CLI loads {hooks_file} only in a trusted folder and {folder} is not one: {fix} "
            "(headless, --skip-trust still skips project hooks; GEMINI_CLI_TRUST_WORKSPACE=true loads them)"
        )
        return Trust(trusted=False, record=record, detail=detail)
    detail = (
        f"Gemini CLI runs these hooks in every folder it trusts; it asks about {folder} on first start "
        "(headless: --skip-trust or GEMINI_CLI_TRUST_WORKSPACE=true)"
    )
    return Trust(trusted=True, record=record, detail=detail)


def trust(hooks_file: Path, *, scope: Scope, cwd: Path, home: Path) -> Change:
    """The change to Gemini CLI's trusted folders that lets it run the hooks in `hooks_file`:
    `TRUST_FOLDER` for the project (a `--project` install), or for `cwd` when a user install's folder
    is marked `DO_NOT_TRUST`; nothing when the folder is already trusted. Raises `InstallError`, naming
    the file, for a trusted-folders file rein cannot read or Gemini CLI would refuse."""
    record = record_path(home)
    before, rules = _read(record)
    folder = _folder(hooks_file, scope, cwd)
    found = decision(rules, folder)
    trusted = found is not None and found[1] != "DO_NOT_TRUST"
    if trusted or (scope == "user" and found is None):
        return Change(path=record, before=before, after=before)
    # A folder marked DO_NOT_TRUST itself is flipped in place, so no longer spelling of it still wins.
    same = found is not None and _real(found[0]) == _real(str(folder))
    after = {**rules, (found[0] if found is not None and same else str(folder.resolve())): "TRUST_FOLDER"}
    return Change(path=record, before=before, after=json.dumps(after, indent=2, ensure_ascii=False) + "\n")
