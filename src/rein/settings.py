"""rein's settings files: `~/.rein/settings.toml`, then `<cwd>/.rein/settings.toml` (project wins).

Each file holds groups (`[rein]`, `[ttsr]`, ...). Every key is checked against the schema
(`rein._settings_schema`, documented in docs/settings.md) as the file is read:

- a wrong type or value is an error (`SettingsKeyError`) naming the file, the key and what it accepts;
- an unknown key or group is a warning naming the file and the key, with the known ones, and is left
  out. Not an error: `~/.rein/settings.toml` is shared by every rein on the machine, and a key a newer
  rein added must not stop an older one from starting.

The two files merge per group, key by key; keys may be written `snake_case` or `camelCase` and come
back in `snake_case`. Engines still validate their own group when they take it
(`TtsrSettings.from_mapping`), for callers that build settings in code.
"""

from __future__ import annotations

import difflib
import sys
import tomllib
from collections.abc import Callable, Mapping
from pathlib import Path

from rein._settings_schema import GROUPS, Group, Key, normalize, show

Warn = Callable[[str], None]
"""Told each warning as one line naming the file (`<file>: [group] unknown key ...`)."""


class SettingsFileError(Exception):
    """A settings file that cannot be used. `str()` names the file and the problem (with line, column
    for a TOML error)."""

    def __init__(self, path: Path, problem: str) -> None:
        self.path = path
        self.problem = problem
        super().__init__(f"{path}: {problem}")


class SettingsKeyError(SettingsFileError):
    """A key with a wrong type or value: `<file>: [group] key must be <what is allowed>, not <value>`;
    the file's other bad keys follow on the same line (`; also [group] key must be ...`), so one run
    shows every value to fix. `group`, `key` and `value` are the first one's."""

    def __init__(self, path: Path, group: str, key: Key, value: object, also: tuple[str, ...] = ()) -> None:
        self.group = group
        self.key = key.name
        self.value = value
        self.spec = key
        self.problem_of_key = f"[{group}] {key.name} must be {key.accepted()}, not {show(value)}"
        more = "".join(f"; also {problem}" for problem in also)
        super().__init__(path, self.problem_of_key + more)


def settings_files(cwd: Path, home: Path) -> tuple[Path, Path]:
    """The user file and the project file, in the order they are applied."""
    return home / ".rein" / "settings.toml", cwd / ".rein" / "settings.toml"


def shown_path(path: str, root: Path, home: Path) -> str:
    """A project or home file as a person reads it: relative to the project, `~/...` under home, else
    as is (rule files, settings files)."""
    for base, prefix in ((root, ""), (home, "~/")):
        try:
            return prefix + Path(path).relative_to(base).as_posix()
        except ValueError:
            continue
    return path


def load_settings(cwd: Path, home: Path, *, warn: Warn | None = None) -> dict[str, dict[str, object]]:
    """Read, check and merge both files; a missing file counts as empty.

    Raises `SettingsFileError` (unreadable, not TOML, a group that is not a table, or a
    `SettingsKeyError`). Unknown groups and keys are left out and told to `warn`; by default each is
    printed to stderr as `rein: warning: <file>: ...`.
    """
    report = warn if warn is not None else _to_stderr
    merged: dict[str, dict[str, object]] = {}
    for path in settings_files(cwd, home):
        if not path.exists() and not path.is_symlink():
            continue
        for group, values in _read(path, report).items():
            merged.setdefault(group, {}).update(values)
    return merged


def _to_stderr(message: str) -> None:
    print(f"rein: warning: {message}", file=sys.stderr)


def _read(path: Path, warn: Warn) -> dict[str, dict[str, object]]:
    if path.is_dir():
        raise SettingsFileError(path, "is a directory, not a settings file")
    if not path.exists():
        raise SettingsFileError(path, f"is a link to {path.readlink()}, which does not exist")
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as error:
        raise SettingsFileError(path, f"invalid TOML: {error}") from None
    except OSError as error:
        raise SettingsFileError(path, f"cannot read the file: {error.strerror or error}") from None
    except UnicodeDecodeError as error:
        raise SettingsFileError(path, f"cannot read the file: not UTF-8 text ({error.reason})") from None
    groups = {group.name: group for group in GROUPS}
    checked: dict[str, dict[str, object]] = {}
    bad: list[SettingsKeyError] = []
    for name, values in data.items():
        if not isinstance(values, dict):
            raise SettingsFileError(path, _not_a_table(name))
        group = groups.get(name)
        if group is None:
            hint = _closest(name, groups)
            warn(f"{path}: unknown group [{name}] is ignored ({hint}known groups: {_listed(groups)})")
            continue
        checked[name] = _check_group(path, group, values, warn, bad)
    if bad:
        first, also = bad[0], tuple(error.problem_of_key for error in bad[1:])
        raise SettingsKeyError(path, first.group, first.spec, first.value, also)
    return checked


def _check_group(
    path: Path, group: Group, values: Mapping[str, object], warn: Warn, bad: list[SettingsKeyError]
) -> dict[str, object]:
    """The group's known keys with good values; each bad value is added to `bad`."""
    keys = {normalize(key.name): key for key in group.keys}
    out: dict[str, object] = {}
    for raw, value in values.items():
        key = keys.get(normalize(raw))
        if key is None:
            where = f"{path}: [{group.name}] unknown key {raw!r} is ignored"
            if not group.keys:
                warn(f"{where} ([{group.name}] has no keys: {group.note})")
            else:
                names = {key.name: key for key in group.keys}
                warn(f"{where} ({_closest(raw, names)}known keys: {_listed(names)})")
            continue
        if not key.accepts(value):
            bad.append(SettingsKeyError(path, group.name, key, value))
            continue
        out[key.name] = value
    return out


def _not_a_table(name: str) -> str:
    owner = next((g.name for g in GROUPS for k in g.keys if normalize(k.name) == normalize(name)), None)
    if owner is not None:
        return f"{name!r} must be inside a group: write it under [{owner}]"
    return f"{name!r} must be a [{name}] table, not a single value"


def _closest(name: str, known: Mapping[str, object]) -> str:
    close = difflib.get_close_matches(name.lower(), list(known), n=1, cutoff=0.6)
    return f"did you mean {close[0]!r}? " if close else ""


def _listed(known: Mapping[str, object]) -> str:
    return ", ".join(sorted(known))
