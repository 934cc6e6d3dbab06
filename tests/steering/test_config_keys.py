"""Every key of `.rein/steering.toml`, at every level, given a wrong type (and a wrong value where it
is an enum): a one-line `ConfigError` naming the file, the key and what it accepts. The key sets come
from the schema, so a key added there fails here until it has a case."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

import pytest

from rein.steering import ConfigError, load_policy, parse_layer
from rein.steering._schema import (
    HAPPENED_KEYS,
    OBSERVER_KEYS,
    ON_FIRE_KEYS,
    RULE_KEYS,
    WATCH_KEYS,
    WHEN_CORE,
)
from rein.steering.config import TOP_KEYS

FILE = "/p/.rein/steering.toml"
NAME = "a name (letters, digits"
STRINGS = "must be a string or a list of strings, not 5"
TABLE = "must be a table, not 5"


def toml(value: object) -> str:
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{key} = {toml(item)}" for key, item in value.items()) + " }"
    return json.dumps(value)


def document(
    top: Mapping[str, object], rule: Mapping[str, object] | None, observer: Mapping[str, object] | None
) -> str:
    lines = [f"{key} = {toml(value)}" for key, value in top.items()]
    for header, table in (("rule", rule), ("observer", observer)):
        if table is not None:
            lines += [f"[[{header}]]", *(f"{key} = {toml(value)}" for key, value in table.items())]
    return "\n".join(lines) + "\n"


RULE: dict[str, object] = {"name": "r", "reason": "why", "command": "npm"}
OBSERVER: dict[str, object] = {"name": "o", "writes": ["done"], "watch": {"tool": "bash"}}

# (level, key, wrong value, what the message must say); the levels are the schema's key sets.
CASES: list[tuple[str, str, object, str]] = [
    ("top", "rule", 5, "`rule` and `observer` must be arrays of tables"),
    ("top", "observer", 5, "`rule` and `observer` must be arrays of tables"),
    ("top", "plugins", 5, f"plugins {STRINGS}"),
    ("top", "disabled_rules", 5, f"disabled_rules {STRINGS}"),
    ("top", "enable_rules", 5, f"enable_rules {STRINGS}"),
    ("top", "allow_override", 5, f"allow_override {STRINGS}"),
    ("top", "disable_defaults", "yes", 'disable_defaults must be true or false, not "yes"'),
    ("top", "on_parse_error", 5, "on_parse_error must be one of block, allow, not 5"),
    ("top", "on_parse_error", "maybe", 'on_parse_error must be one of block, allow, not "maybe"'),
    ("top", "packs", 5, f"packs {TABLE}"),
    ("top", "packs", {"database": "maybe"}, 'packs.database must be one of block, ask, off, not "maybe"'),
    ("rule", "name", 5, "invalid rule name 5"),
    ("rule", "reason", 5, "reason must be a string, not 5"),
    ("rule", "tool", 5, "tool must be one of bash, write, edit, read, not 5"),
    ("rule", "tool", "shell", 'tool must be one of bash, write, edit, read, not "shell"'),
    ("rule", "field", 5, "field must be one of command, path, content, not 5"),
    ("rule", "field", "body", 'field must be one of command, path, content, not "body"'),
    ("rule", "pattern", 5, "pattern must be a string, not 5"),
    ("rule", "command", 5, f"command {STRINGS}"),
    ("rule", "subcommand", 5, f"subcommand {STRINGS}"),
    ("rule", "flags", 5, f"flags {STRINGS}"),
    ("rule", "not_flags", 5, f"not_flags {STRINGS}"),
    ("rule", "args", 5, f"args {STRINGS}"),
    ("rule", "requires", 5, "requires must be a string, not 5"),
    ("rule", "unless", 5, "unless must be a string, not 5"),
    ("rule", "when", 5, f"when {TABLE}"),
    ("rule", "allow_override", "yes", 'allow_override must be true or false, not "yes"'),
    ("rule", "no_override", "yes", 'no_override must be true or false, not "yes"'),
    ("rule", "on_unknown", 5, "on_unknown must be one of block, allow, not 5"),
    ("rule", "on_unknown", "maybe", 'on_unknown must be one of block, allow, not "maybe"'),
    ("rule", "on_fire", 5, f"on_fire {TABLE}"),
    ("rule", "verdict", "warn", 'verdict must be one of block, ask, not "warn"'),
    ("rule", "writes", 5, f"writes {STRINGS}"),
    ("rule", "writes", "[", "writes is not a valid regex"),
    ("rule", "sql", 5, f"sql {STRINGS}"),
    ("rule", "sql", "select", 'sql kinds are drop, truncate, delete-all, update-all, not "select"'),
    ("rule", "code", 5, f"code {STRINGS}"),
    ("rule", "test", 5, "test must be a string, not 5"),
    ("rule", "test", "nope", "test must be one of default-branch-delete, disk-device, fork-bomb"),
    ("when", "cwd", 5, f"when: cwd {STRINGS}"),
    ("when", "branch", 5, f"when: branch {STRINGS}"),
    ("when", "happened", 5, f"happened {TABLE}"),
    ("when", "not", 5, f"not {TABLE}"),
    ("happened", "event", 5, "event must be a string, not 5"),
    ("happened", "in", 5, "in must be one of agent_loop, session, tool_call, not 5"),
    ("happened", "in", "week", 'in must be one of agent_loop, session, tool_call, not "week"'),
    ("happened", "since", 5, "since must be a string, not 5"),
    ("on_fire", "write", 5, f"on_fire: write {STRINGS}"),
    ("observer", "name", 5, "invalid observer name 5"),
    ("observer", "writes", 5, f"writes {STRINGS}"),
    ("observer", "watch", 5, f"watch {TABLE}"),
    ("watch", "tool", 5, "tool must be one of bash, write, edit, read, not 5"),
    ("watch", "tool", "sh ell", 'tool must be one of bash, write, edit, read, not "sh ell"'),
    ("watch", "field", "base", "field and pattern read another tool's arguments; a bash watch has command"),
    ("watch", "pattern", "^main$", "field and pattern read another tool's arguments; a bash watch has"),
    ("watch", "command", 5, "command must be a string, not 5"),
    ("watch", "path", 5, f"path {STRINGS}"),
    ("watch", "exit_code", "0", 'exit_code must be an integer, not "0"'),
    ("watch", "exit_code", True, "exit_code must be an integer, not true"),
]

LEVELS = {
    "top": TOP_KEYS,
    "rule": RULE_KEYS,
    "when": WHEN_CORE,
    "happened": HAPPENED_KEYS,
    "on_fire": ON_FIRE_KEYS,
    "observer": OBSERVER_KEYS,
    "watch": WATCH_KEYS,
}


def config_with(level: str, key: str, value: object) -> str:
    rule: dict[str, object] | None = None
    observer: dict[str, object] | None = None
    top: dict[str, object] = {}
    if level == "top":
        top = {key: value}
    elif level == "rule":
        rule = {**RULE, key: value}
    elif level == "when":
        rule = {**RULE, "when": {key: value}}
    elif level == "happened":
        rule = {**RULE, "when": {"happened": {"event": "e", key: value}}}
    elif level == "on_fire":
        rule = {**RULE, "on_fire": {key: value}}
    elif level == "observer":
        observer = {**OBSERVER, key: value}
    else:
        observer = {**OBSERVER, "watch": {key: value}}
    return document(top, rule, observer)


def test_every_key_of_the_schema_has_a_case() -> None:
    covered = {(level, key) for level, key, _, _ in CASES}
    expected = {(level, key) for level, keys in LEVELS.items() for key in keys}
    assert covered == expected


@pytest.mark.parametrize(("level", "key", "value", "message"), CASES, ids=[f"{c[0]}.{c[1]}" for c in CASES])
def test_a_wrong_value_is_one_line_naming_file_key_and_what_is_allowed(
    level: str, key: str, value: object, message: str
) -> None:
    with pytest.raises(ConfigError) as raised:
        parse_layer(config_with(level, key, value), FILE)
    text = str(raised.value)
    assert text.startswith(f"{FILE}:") and "\n" not in text
    assert message in text


def test_the_valid_base_config_loads() -> None:
    layer = parse_layer(document({}, RULE, OBSERVER), FILE)
    assert [rule.name for rule in layer.rules] == ["r"] and [o.name for o in layer.observers] == ["o"]


def project(tmp_path: Path) -> tuple[Path, Path]:
    home = tmp_path / "home"
    cwd = home / "proj"
    (cwd / ".rein").mkdir(parents=True)
    return home, cwd


def test_a_steering_toml_that_is_a_directory_is_an_error(tmp_path: Path) -> None:
    home, cwd = project(tmp_path)
    (cwd / ".rein/steering.toml").mkdir()
    with pytest.raises(ConfigError) as raised:
        load_policy(cwd, home)
    assert str(raised.value) == f"{cwd / '.rein/steering.toml'}: is a directory, not a file"


def test_a_dangling_steering_toml_link_is_an_error(tmp_path: Path) -> None:
    home, cwd = project(tmp_path)
    (home / ".rein").mkdir()
    (home / ".rein/steering.toml").symlink_to(tmp_path / "nowhere.toml")
    with pytest.raises(ConfigError) as raised:
        load_policy(cwd, home)
    path = home / ".rein/steering.toml"
    assert str(raised.value) == f"{path}: is a link to {tmp_path / 'nowhere.toml'}, which does not exist"


@pytest.mark.parametrize("kind", ["directory", "dangling link", "missing"])
def test_a_plugin_path_that_is_not_a_file_is_an_error(tmp_path: Path, kind: str) -> None:
    home, cwd = project(tmp_path)
    config = cwd / ".rein/steering.toml"
    config.write_text('plugins = ["team.py"]\n')
    plugin = cwd / ".rein/team.py"
    expected = {"directory": "is a directory, not a file", "missing": "does not exist"}
    if kind == "directory":
        plugin.mkdir()
    elif kind == "dangling link":
        plugin.symlink_to(tmp_path / "gone.py")
        expected[kind] = f"is a link to {tmp_path / 'gone.py'}, which does not exist"
    with pytest.raises(ConfigError) as raised:
        load_policy(cwd, home)
    assert str(raised.value) == f"{config}: plugin 'team.py': {plugin} {expected[kind]}"


def test_a_typo_in_disabled_rules_is_a_warning_with_the_closest_names(tmp_path: Path) -> None:
    home, cwd = project(tmp_path)
    config = cwd / ".rein/steering.toml"
    config.write_text('disabled_rules = ["no-force-psuh", "no-reset-hard", "zzzz"]\n')
    built = load_policy(cwd, home)
    names = [rule.name for rule in built.policy.rules]
    assert "no-reset-hard" not in names and "no-force-push" in names
    assert built.warnings == (
        f"{config}: disabled_rules: no rule is named 'no-force-psuh' (did you mean 'no-force-push'?)",
        f"{config}: disabled_rules: no rule is named 'zzzz' (no rule has a similar name)",
    )


def test_disabled_rules_may_name_rules_of_any_layer_or_plugin(tmp_path: Path) -> None:
    home, cwd = project(tmp_path)
    (home / ".rein").mkdir()
    (home / ".rein/steering.toml").write_text('disabled_rules = ["mine", "no-main-commit"]\n')
    (cwd / ".rein/steering.toml").write_text(document({}, {**RULE, "name": "mine"}, None))
    built = load_policy(cwd, home)
    assert built.warnings == ()
    assert "mine" not in [rule.name for rule in built.policy.rules]
