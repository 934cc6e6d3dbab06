"""Merging rein's hooks into real settings files: nothing else moves, twice is once, out is exact."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rein.hooks import InstallError, install, settings_path, uninstall
from rein.hooks._install import SETTINGS, is_rein
from rein.hooks.claude import EVENTS as CLAUDE
from rein.hooks.codex import EVENTS as CODEX
from rein.hooks.cursor import EVENTS as CURSOR
from rein.hooks.gemini import EVENTS as GEMINI

BASE = ["/opt/rein/bin/rein"]
EXISTING = {
    "model": "opus",
    "permissions": {"allow": ["Bash(ls:*)"]},
    "hooks": {
        "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "./guard.sh"}]}],
        "Notification": [{"hooks": [{"type": "command", "command": "notify-send hi"}]}],
    },
}


def write(path: Path, data: object) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(data, indent=4) + "\n"
    path.write_text(text)
    return text


def commands(data: dict[str, object], event: str) -> list[str]:
    hooks = data["hooks"]
    assert isinstance(hooks, dict)
    found: list[str] = []
    for group in hooks.get(event, []):
        found.extend(handler["command"] for handler in group.get("hooks", [group]))
    return found


def test_every_installed_event_is_one_the_adapter_answers() -> None:
    adapters = {"claude": CLAUDE, "codex": CODEX, "gemini": GEMINI, "cursor": CURSOR}
    for host, settings in SETTINGS.items():
        for hook in settings.hooks:
            assert adapters[host][hook.command].name == hook.event


def test_install_keeps_unrelated_keys_and_hooks(tmp_path: Path) -> None:
    path = tmp_path / ".claude" / "settings.json"
    write(path, EXISTING)
    change = install("claude", scope="project", cwd=tmp_path, home=tmp_path / "home", base=BASE)
    assert change.path == path and change.changed
    assert path.read_text() == change.before  # nothing written yet
    change.write()
    data = json.loads(path.read_text())
    assert data["model"] == "opus" and data["permissions"] == EXISTING["permissions"]
    assert data["hooks"]["Notification"] == EXISTING["hooks"]["Notification"]  # type: ignore[index]
    assert commands(data, "PreToolUse") == ["./guard.sh", "/opt/rein/bin/rein hook claude pre-tool-use"]
    assert data["hooks"]["PreToolUse"][1]["matcher"] == "Bash|Write|Edit|MultiEdit|Read|mcp__.*"
    assert "matcher" not in data["hooks"]["UserPromptSubmit"][0]
    assert set(data["hooks"]) == {
        "PreToolUse",
        "PostToolUse",
        "PostToolUseFailure",
        "Notification",
        "SessionStart",
        "UserPromptSubmit",
        "Stop",
    }


def test_install_twice_changes_nothing_and_updates_a_moved_rein(tmp_path: Path) -> None:
    path = tmp_path / ".claude" / "settings.json"
    write(path, EXISTING)
    install("claude", scope="project", cwd=tmp_path, home=tmp_path, base=BASE).write()
    first = path.read_text()
    again = install("claude", scope="project", cwd=tmp_path, home=tmp_path, base=BASE)
    assert not again.changed and again.diff() == ""
    moved = install("claude", scope="project", cwd=tmp_path, home=tmp_path, base=["/new/rein"])
    moved.write()
    data = json.loads(path.read_text())
    assert commands(data, "PreToolUse") == ["./guard.sh", "/new/rein hook claude pre-tool-use"]
    assert path.read_text() != first


def test_uninstall_removes_exactly_what_install_added(tmp_path: Path) -> None:
    path = tmp_path / ".claude" / "settings.json"
    original = write(path, EXISTING)
    install("claude", scope="project", cwd=tmp_path, home=tmp_path, base=BASE).write()
    removal = uninstall("claude", scope="project", cwd=tmp_path, home=tmp_path)
    removal.write()
    assert json.loads(path.read_text()) == json.loads(original)
    assert not uninstall("claude", scope="project", cwd=tmp_path, home=tmp_path).changed


def test_a_handler_sharing_a_group_with_rein_stays(tmp_path: Path) -> None:
    path = tmp_path / ".claude" / "settings.json"
    mine = {"type": "command", "command": "/usr/bin/rein hook claude pre-tool-use"}
    other = {"type": "command", "command": "./audit.sh"}
    foreign = {"type": "command", "command": "python -m rein.cli hook codex pre-tool-use"}
    write(path, {"hooks": {"PreToolUse": [{"matcher": "*", "hooks": [mine, other, foreign]}]}})
    uninstall("claude", scope="project", cwd=tmp_path, home=tmp_path).write()
    assert json.loads(path.read_text()) == {
        "hooks": {"PreToolUse": [{"matcher": "*", "hooks": [other, foreign]}]}
    }


def test_uninstall_of_a_file_that_does_not_exist_changes_nothing(tmp_path: Path) -> None:
    change = uninstall("gemini", scope="user", cwd=tmp_path, home=tmp_path)
    assert not change.changed
    change.write()
    assert not (tmp_path / ".gemini").exists()


def test_a_new_file_is_created_and_a_fresh_round_trip_leaves_an_empty_object(tmp_path: Path) -> None:
    change = install("codex", scope="user", cwd=tmp_path, home=tmp_path, base=BASE)
    assert change.before is None and change.diff().startswith("--- /dev/null")
    change.write()
    data = json.loads((tmp_path / ".codex" / "hooks.json").read_text())
    assert data["hooks"]["PreToolUse"] == [
        {
            "matcher": "Bash|apply_patch|mcp__.*",
            "hooks": [{"type": "command", "timeout": 30, "command": f"{BASE[0]} hook codex pre-tool-use"}],
        }
    ]
    uninstall("codex", scope="user", cwd=tmp_path, home=tmp_path).write()
    assert json.loads((tmp_path / ".codex" / "hooks.json").read_text()) == {}


def test_cursor_gets_version_1_and_flat_handlers(tmp_path: Path) -> None:
    path = tmp_path / ".cursor" / "hooks.json"
    write(path, {"hooks": {"afterFileEdit": [{"command": "prettier --write"}]}})
    install("cursor", scope="project", cwd=tmp_path, home=tmp_path, base=BASE).write()
    data = json.loads(path.read_text())
    assert next(iter(data)) == "version" and data["version"] == 1
    assert data["hooks"]["afterFileEdit"] == [
        {"command": "prettier --write"},
        {"command": f"{BASE[0]} hook cursor after-file-edit"},
    ]
    assert data["hooks"]["beforeReadFile"] == [{"command": f"{BASE[0]} hook cursor before-read-file"}]


def test_gemini_handlers_are_named_and_keep_other_settings(tmp_path: Path) -> None:
    path = tmp_path / ".gemini" / "settings.json"
    lint = {"matcher": "write_file", "hooks": [{"type": "command", "command": "./lint.sh"}]}
    write(path, {"theme": "Dracula", "hooks": {"BeforeTool": [lint]}})
    install("gemini", scope="user", cwd=tmp_path / "elsewhere", home=tmp_path, base=BASE).write()
    data = json.loads(path.read_text())
    assert data["theme"] == "Dracula"
    [_, group] = data["hooks"]["BeforeTool"]
    assert group["matcher"] == "run_shell_command|write_file|replace|read_file|mcp_.*"
    assert group["hooks"] == [
        {"name": "rein", "type": "command", "timeout": 30000, "command": f"{BASE[0]} hook gemini before-tool"}
    ]
    uninstall("gemini", scope="user", cwd=tmp_path, home=tmp_path).write()
    assert json.loads(path.read_text()) == {"theme": "Dracula", "hooks": {"BeforeTool": [lint]}}


def test_codex_user_files_follow_codex_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex"))
    assert settings_path("codex", "user", cwd=tmp_path, home=tmp_path) == tmp_path / "codex" / "hooks.json"
    assert (
        settings_path("codex", "project", cwd=tmp_path, home=tmp_path) == tmp_path / ".codex" / "hooks.json"
    )
    # CODEX_HOME is Codex's alone.
    assert (
        settings_path("claude", "user", cwd=tmp_path, home=tmp_path) == tmp_path / ".claude" / "settings.json"
    )
    monkeypatch.setenv("CODEX_HOME", "")
    assert settings_path("codex", "user", cwd=tmp_path, home=tmp_path) == tmp_path / ".codex" / "hooks.json"


def test_an_install_that_changes_no_value_keeps_the_files_formatting(tmp_path: Path) -> None:
    path = tmp_path / ".claude" / "settings.json"
    write(path, EXISTING)
    install("claude", scope="project", cwd=tmp_path, home=tmp_path, base=BASE).write()
    # The user re-indents the file and moves rein's events first: the same values.
    data = json.loads(path.read_text())
    text = write(path, {"hooks": data.pop("hooks"), **data})
    again = install("claude", scope="project", cwd=tmp_path, home=tmp_path, base=BASE)
    assert not again.changed and again.after == text
    again.write()
    assert path.read_text() == text


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("{not json", "not valid JSON"),
        ("[1]", "expected a JSON object"),
        ('{"hooks": []}', "`hooks` must be a JSON object"),
        ('{"hooks": {"PreToolUse": {}}}', "`hooks.PreToolUse` must be a list"),
    ],
)
def test_a_file_rein_cannot_read_is_refused_untouched(tmp_path: Path, text: str, problem: str) -> None:
    path = tmp_path / ".claude" / "settings.json"
    path.parent.mkdir()
    path.write_text(text)
    with pytest.raises(InstallError, match=problem) as raised:
        install("claude", scope="project", cwd=tmp_path, home=tmp_path, base=BASE)
    assert str(path) in str(raised.value)
    assert path.read_text() == text


def test_a_symlinked_settings_file_stays_a_symlink(tmp_path: Path) -> None:
    real = tmp_path / "dotfiles" / "settings.json"
    write(real, {"model": "opus"})
    link = tmp_path / ".claude" / "settings.json"
    link.parent.mkdir()
    link.symlink_to(real)
    real.chmod(0o640)
    install("claude", scope="project", cwd=tmp_path, home=tmp_path, base=BASE).write()
    assert link.is_symlink() and "hooks" in json.loads(real.read_text())
    assert real.stat().st_mode & 0o777 == 0o640
    assert sorted(p.name for p in real.parent.iterdir()) == ["settings.json"]


@pytest.mark.parametrize(
    ("command", "host", "ours"),
    [
        ("/home/me/.venv/bin/rein hook claude pre-tool-use", "claude", True),
        ("'/path with space/rein' hook claude stop", "claude", True),
        ("/usr/bin/python3 -m rein.cli hook gemini before-tool", "gemini", True),
        ("/usr/bin/rein hook claude pre-tool-use", "codex", False),
        ("rein check -- ls", "claude", False),
        ("./my-rein-wrapper hook claude", "claude", False),
        ("echo 'unbalanced", "claude", False),
    ],
)
def test_rein_handlers_are_recognized_by_the_command_they_run(command: str, host: str, ours: bool) -> None:
    assert is_rein(command, host) is ours
