"""rein's settings files: user then project, merged per group, every key checked against the schema."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
import typing
from pathlib import Path

import pytest

from rein._settings_schema import GROUPS, PROVIDERS, Group, Key, show
from rein.ai import provider_names
from rein.settings import SettingsFileError, SettingsKeyError, load_settings, settings_files
from rein.ttsr import SettingsError, TtsrSettings
from tests.plugins.installed import write_dist_info

DOCS = Path(__file__).resolve().parents[1] / "docs" / "settings.md"
ALL_KEYS = [(group, key) for group in GROUPS for key in group.keys]

# A value of the wrong type for each kind; a new kind fails here until it has one.
WRONG_TYPE: dict[str, object] = {
    "bool": "yes",
    "string": 5,
    "url": 5,
    "count": "ten",
    "names": 5,
    "choice": 5,
    "tables": 5,
    "entries": 5,
}
# A value of the right type but not allowed, for the kinds that have such values.
WRONG_VALUE: dict[str, object] = {
    "string": "  ",
    "url": "localhost:11434",
    "count": -1,
    "names": ["ok", 3],
    "choice": "sometimes",
}


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def toml(value: object) -> str:
    return show(value)  # JSON's scalars and arrays are TOML's


def key_id(item: tuple[Group, Key]) -> str:
    return f"{item[0].name}.{item[1].name}"


class Warnings(list[str]):
    def __call__(self, message: str) -> None:
        self.append(message)


def test_no_files_is_empty(tmp_path: Path) -> None:
    assert load_settings(tmp_path / "proj", tmp_path / "home") == {}


def test_project_wins_per_key_groups_merge(tmp_path: Path) -> None:
    cwd, home = tmp_path / "proj", tmp_path / "home"
    write(
        home / ".rein/settings.toml",
        '[ttsr]\nrepeat_mode = "after-gap"\nrepeat_gap = 4\n[rein]\nmodel = "m1"\n',
    )
    write(cwd / ".rein/settings.toml", '[ttsr]\nrepeat_gap = 2\n[rein]\nprovider = "faux"\n')
    assert load_settings(cwd, home) == {
        "ttsr": {"repeat_mode": "after-gap", "repeat_gap": 2},
        "rein": {"model": "m1", "provider": "faux"},
    }
    assert settings_files(cwd, home) == (home / ".rein/settings.toml", cwd / ".rein/settings.toml")


def test_camel_case_keys_come_back_in_snake_case_and_merge_as_one(tmp_path: Path) -> None:
    cwd, home = tmp_path / "proj", tmp_path / "home"
    write(home / ".rein/settings.toml", '[ttsr]\ncontextMode = "keep"\n[rein]\nbaseUrl = "http://h:1/v1"\n')
    write(cwd / ".rein/settings.toml", '[ttsr]\ncontext_mode = "discard"\n')
    assert load_settings(cwd, home) == {
        "ttsr": {"context_mode": "discard"},
        "rein": {"base_url": "http://h:1/v1"},
    }


def test_bad_toml_names_file_line_and_column(tmp_path: Path) -> None:
    path = tmp_path / "proj/.rein/settings.toml"
    write(path, "[ttsr]\nenabled = \n")
    with pytest.raises(SettingsFileError, match="line 2, column") as caught:
        load_settings(tmp_path / "proj", tmp_path / "home")
    assert caught.value.path == path
    assert str(caught.value).startswith(f"{path}: invalid TOML")


def test_a_group_must_be_a_table(tmp_path: Path) -> None:
    write(tmp_path / "home/.rein/settings.toml", "ttsr = 1\n")
    with pytest.raises(SettingsFileError, match=r"'ttsr' must be a \[ttsr\] table"):
        load_settings(tmp_path / "proj", tmp_path / "home")


def test_a_key_outside_its_group_says_which_group(tmp_path: Path) -> None:
    path = tmp_path / "home/.rein/settings.toml"
    write(path, 'provider = "faux"\n')
    with pytest.raises(SettingsFileError) as caught:
        load_settings(tmp_path / "proj", tmp_path / "home")
    assert str(caught.value) == f"{path}: 'provider' must be inside a group: write it under [rein]"


def test_unreadable_file(tmp_path: Path) -> None:
    path = tmp_path / "home/.rein/settings.toml"
    path.parent.mkdir(parents=True)
    path.write_bytes(b"\xff\xfe")
    with pytest.raises(SettingsFileError, match="cannot read") as caught:
        load_settings(tmp_path / "proj", tmp_path / "home")
    assert str(caught.value).startswith(f"{path}: ")


def test_a_settings_file_that_is_a_directory_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "proj/.rein/settings.toml"
    path.mkdir(parents=True)
    with pytest.raises(SettingsFileError) as caught:
        load_settings(tmp_path / "proj", tmp_path / "home")
    assert str(caught.value) == f"{path}: is a directory, not a settings file"


def test_a_dangling_settings_link_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "proj/.rein/settings.toml"
    path.parent.mkdir(parents=True)
    path.symlink_to(tmp_path / "gone.toml")
    with pytest.raises(SettingsFileError) as caught:
        load_settings(tmp_path / "proj", tmp_path / "home")
    assert str(caught.value) == f"{path}: is a link to {tmp_path / 'gone.toml'}, which does not exist"


@pytest.mark.parametrize(("group", "key"), ALL_KEYS, ids=list(map(key_id, ALL_KEYS)))
def test_every_key_rejects_a_wrong_type_naming_file_key_and_what_is_allowed(
    tmp_path: Path, group: Group, key: Key
) -> None:
    path = tmp_path / "proj/.rein/settings.toml"
    bad = WRONG_TYPE[key.kind]
    write(path, f"[{group.name}]\n{key.name} = {toml(bad)}\n")
    with pytest.raises(SettingsKeyError) as caught:
        load_settings(tmp_path / "proj", tmp_path / "home")
    assert str(caught.value) == f"{path}: [{group.name}] {key.name} must be {key.allowed}, not {toml(bad)}"
    assert (caught.value.path, caught.value.group, caught.value.key) == (path, group.name, key.name)
    assert "\n" not in str(caught.value)


WRONG_VALUES = [(g, k) for g, k in ALL_KEYS if k.kind in WRONG_VALUE]


@pytest.mark.parametrize(("group", "key"), WRONG_VALUES, ids=list(map(key_id, WRONG_VALUES)))
def test_every_key_rejects_a_value_it_does_not_allow(tmp_path: Path, group: Group, key: Key) -> None:
    path = tmp_path / "home/.rein/settings.toml"
    bad = WRONG_VALUE[key.kind]
    write(path, f"[{group.name}]\n{key.name} = {toml(bad)}\n")
    with pytest.raises(SettingsKeyError) as caught:
        load_settings(tmp_path / "proj", tmp_path / "home")
    assert str(caught.value) == f"{path}: [{group.name}] {key.name} must be {key.allowed}, not {toml(bad)}"


def test_every_enum_lists_its_choices() -> None:
    for _, key in ALL_KEYS:
        assert (key.kind == "choice") == bool(key.choices), key.name
        for choice in key.choices:
            assert choice in key.allowed.removeprefix("one of ").split(", ")


@pytest.mark.parametrize(("group", "key"), ALL_KEYS, ids=list(map(key_id, ALL_KEYS)))
def test_every_key_accepts_its_default_and_choices(tmp_path: Path, group: Group, key: Key) -> None:
    values = [*key.choices, *([key.default] if key.default not in (None, ()) else [])]
    sample: dict[str, object] = {
        "url": "http://127.0.0.1:8080/v1",
        "count": 8192,
        "tables": {},
        "entries": [],
    }
    for value in values or [sample.get(key.kind, "text")]:
        write(tmp_path / "proj/.rein/settings.toml", f"[{group.name}]\n{key.name} = {toml(value)}\n")
        assert load_settings(tmp_path / "proj", tmp_path / "home") == {group.name: {key.name: value}}


def test_the_message_of_the_issue_examples(tmp_path: Path) -> None:
    path = tmp_path / "proj/.rein/settings.toml"
    cases = {
        '[ttsr]\nenabled = "yes"\n': '[ttsr] enabled must be true or false, not "yes"',
        '[ttsr]\ncontext_mode = "sometimes"\n': (
            '[ttsr] context_mode must be one of discard, keep, not "sometimes"'
        ),
        "[rein]\nprovider = 5\n": (
            "[rein] provider must be one of anthropic, faux, local, openai, openai-responses, not 5"
        ),
    }
    for text, message in cases.items():
        write(path, text)
        with pytest.raises(SettingsKeyError) as caught:
            load_settings(tmp_path / "proj", tmp_path / "home")
        assert str(caught.value) == f"{path}: {message}"


def test_every_bad_value_of_a_file_is_reported_at_once_on_one_line(tmp_path: Path) -> None:
    path = tmp_path / "proj/.rein/settings.toml"
    write(path, '[ttsr]\nenabled = "yes"\nrepeat_gap = -1\n[rein]\nprovider = 5\n')
    with pytest.raises(SettingsKeyError) as caught:
        load_settings(tmp_path / "proj", tmp_path / "home")
    assert str(caught.value) == (
        f'{path}: [ttsr] enabled must be true or false, not "yes"; also [ttsr] repeat_gap must be a whole'
        " number, 0 or more, not -1; also [rein] provider must be one of anthropic, faux, local, openai,"
        " openai-responses, not 5"
    )
    assert (caught.value.group, caught.value.key) == ("ttsr", "enabled")


def test_unknown_keys_are_reported_with_the_closest_and_left_out(tmp_path: Path) -> None:
    path = tmp_path / "proj/.rein/settings.toml"
    write(path, '[ttsr]\nenabeld = false\nrepeat_gap = 3\n[rein]\nfancy = 1\nmodel = "m"\n')
    warnings = Warnings()
    assert load_settings(tmp_path / "proj", tmp_path / "home", warn=warnings) == {
        "ttsr": {"repeat_gap": 3},
        "rein": {"model": "m"},
    }
    ttsr_keys = ", ".join(sorted(key.name for key in GROUPS[1].keys))
    assert warnings == [
        f"{path}: [ttsr] unknown key 'enabeld' is ignored (did you mean 'enabled'? known keys: {ttsr_keys})",
        f"{path}: [rein] unknown key 'fancy' is ignored (known keys: approve, base_url, context_window,"
        " max_repeated_calls, model, provider, validation_hints)",
    ]


def test_unknown_groups_are_reported_and_left_out(tmp_path: Path) -> None:
    path = tmp_path / "home/.rein/settings.toml"
    write(path, "[tsr]\nenabled = true\n[gateway]\nkeep = 3\n")
    warnings = Warnings()
    assert load_settings(tmp_path / "proj", tmp_path / "home", warn=warnings) == {}
    known = "compaction, mcp, proxy, rein, server, steering, timebox, ttsr"
    assert warnings == [
        f"{path}: unknown group [tsr] is ignored (did you mean 'ttsr'? known groups: {known})",
        f"{path}: unknown group [gateway] is ignored (known groups: {known})",
    ]


def test_a_group_without_keys_says_where_its_settings_live(tmp_path: Path) -> None:
    path = tmp_path / "proj/.rein/settings.toml"
    write(path, "[steering]\ndisabled_rules = []\n")
    warnings = Warnings()
    assert load_settings(tmp_path / "proj", tmp_path / "home", warn=warnings) == {"steering": {}}
    assert warnings == [
        f"{path}: [steering] unknown key 'disabled_rules' is ignored ([steering] has no keys: steering is"
        " configured in .rein/steering.toml)"
    ]


def test_warnings_go_to_stderr_by_default(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "proj/.rein/settings.toml"
    write(path, "[rein]\nmodle = 1\n")
    load_settings(tmp_path / "proj", tmp_path / "home")
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith(f"rein: warning: {path}: [rein] unknown key 'modle' is ignored (did you")
    assert captured.err.count("\n") == 1


def test_the_ttsr_group_is_the_engines_settings() -> None:
    ttsr = next(group for group in GROUPS if group.name == "ttsr")
    fields = {field.name: field for field in dataclasses.fields(TtsrSettings)}
    assert [key.name for key in ttsr.keys] == list(fields)
    hints = typing.get_type_hints(TtsrSettings)
    defaults = TtsrSettings()
    for key in ttsr.keys:
        assert key.default == getattr(defaults, key.name), key.name
        if key.kind == "choice":
            assert key.choices == typing.get_args(hints[key.name]), key.name


@pytest.mark.parametrize("key", [k for g, k in ALL_KEYS if g.name == "ttsr"], ids=lambda k: k.name)
def test_what_the_schema_rejects_the_engine_rejects_too(key: Key) -> None:
    for bad in (WRONG_TYPE[key.kind], WRONG_VALUE.get(key.kind, WRONG_TYPE[key.kind])):
        with pytest.raises(SettingsError, match=key.name):
            TtsrSettings.from_mapping({key.name: bad})


def test_providers_are_the_registry() -> None:
    assert provider_names() == PROVIDERS


def documented_default(key: Key) -> str:
    if key.default is None:
        return "unset"
    return f"`{show(list(key.default) if isinstance(key.default, tuple) else key.default)}`"


def test_the_docs_describe_every_group_and_key() -> None:
    text = DOCS.read_text(encoding="utf-8")
    rows = {line.split("|")[1].strip(): line for line in text.splitlines() if line.startswith("| `")}
    for group in GROUPS:
        assert f"## `[{group.name}]`" in text or f"`[{group.name}]`" in text, group.name
        for key in group.keys:
            row = rows.get(f"`{key.name}`")
            assert row is not None, f"docs/settings.md has no row for [{group.name}] {key.name}"
            cells = [cell.strip() for cell in row.split("|")[1:-1]]
            assert cells[1:3] == [key.allowed, documented_default(key)], row


def test_a_provider_an_installed_package_adds_is_accepted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    site = tmp_path / "site"
    write_dist_info(
        site, "rein-example", {"rein.providers": {"shout": "rein_example.provider:ShoutProvider"}}
    )
    monkeypatch.syspath_prepend(str(site))
    path = tmp_path / "proj/.rein/settings.toml"
    write(path, '[rein]\nprovider = "shout"\n')
    assert load_settings(tmp_path / "proj", tmp_path / "home") == {"rein": {"provider": "shout"}}
    write(path, '[rein]\nprovider = "whisper"\n')
    with pytest.raises(SettingsKeyError) as caught:
        load_settings(tmp_path / "proj", tmp_path / "home")
    assert str(caught.value) == (
        f"{path}: [rein] provider must be one of anthropic, faux, local, openai, openai-responses, shout, not"
        ' "whisper"'
    )


def test_a_built_in_provider_is_checked_without_reading_the_installed_packages(tmp_path: Path) -> None:
    write(tmp_path / "proj/.rein/settings.toml", '[rein]\nprovider = "faux"\n')
    code = (
        "import sys; from pathlib import Path; from rein.settings import load_settings;"
        f" print(load_settings(Path({str(tmp_path / 'proj')!r}), Path({str(tmp_path / 'home')!r})),"
        " 'importlib.metadata' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert (done.stdout, done.stderr) == ("{'rein': {'provider': 'faux'}} False\n", "")
