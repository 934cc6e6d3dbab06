"""Codex's hook trust record, read and written in real files (the hashes are the ones the real Codex
0.169.0 reported through its app-server `hooks/list` for the same handlers)."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

from rein.hooks._install import install
from rein.hooks._trust_codex import handler_hash, rein_handlers, status, trust
from rein.hooks.errors import InstallError

REIN = "/opt/rein/bin/rein"


@pytest.mark.parametrize(
    ("event", "matcher", "handler", "expected"),
    [
        (
            "PreToolUse",
            "Bash|apply_patch",
            {
                "type": "command",
                "timeout": 30,
                "command": "/work/main/.venv/bin/rein hook codex pre-tool-use",
            },
            "fc26d7b7df373cea1d4c0dff229918796bcb1ad4c13abfe811b80b9dffe3c0d2",
        ),
        (
            "SessionStart",
            None,
            {
                "type": "command",
                "timeout": 30,
                "command": "/work/main/.venv/bin/rein hook codex session-start",
            },
            "343f9250dda3e2cfb875bec6d9d7e05e3fae255e064d9eea2d2b1750f76593e6",
        ),
        (  # no timeout: Codex hashes its default, 600
            "PreToolUse",
            "Bash",
            {"type": "command", "command": "echo a"},
            "e858b0fa107866bd5702cb2dffd866040cad81f83f76ff7697d1c7fad904b5e5",
        ),
        (
            "PreToolUse",
            "Bash",
            {"type": "command", "command": "echo b", "timeout": 5, "statusMessage": "hi"},
            "1d35c59c8bcbac5f95ebc095dceac028b7e7bbbacf98f4a212f6cd082bf8174d",
        ),
        (
            "PreToolUse",
            "Bash",
            {"type": "command", "command": "echo c", "async": True, "timeout": 7},
            "88fd963b3a5dc423216de2409e9df1e171f1cd70d0ac1eb663b84409dd31461a",
        ),
        (
            "PreToolUse",
            None,
            {"type": "command", "command": "echo d", "timeout": 3},
            "44f18afd354532094d8a8893018426751dc60323908cc5faa848f45c6c6ef753",
        ),
        (  # Stop and UserPromptSubmit take no matcher, and Codex leaves it out of the hash
            "Stop",
            "x",
            {"type": "command", "command": "echo e", "timeout": 3},
            "f19070129c05706c0ba708421814802121a74f239ccd8c4836ed146086f06356",
        ),
        (
            "UserPromptSubmit",
            "x",
            {"type": "command", "command": "echo f", "timeout": 3},
            "da4594174239135c1fe575f09180016314f86be16aefc9a119c96a02416b04c3",
        ),
        (
            "PostToolUse",
            "x",
            {"type": "command", "command": "echo g", "timeout": 3},
            "3f2f54093e3f047599e8d7ee466bd5ad325ef7beac33a27c0b81b5d27b988996",
        ),
        (  # UTF-8, not \\u escapes
            "SessionStart",
            "startup",
            {"type": "command", "command": "echo \u00e9", "timeout": 3},
            "adefe4a84639cefddc5f690aa515bd488fba5b8d4177d82247f768e6832cd908",
        ),
    ],
)
def test_hashes_match_what_codex_computes(
    event: str, matcher: str | None, handler: dict[str, object], expected: str
) -> None:
    assert handler_hash(event, matcher, handler) == f"sha256:{expected}"


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.delenv("CODEX_HOME", raising=False)
    (tmp_path / "project").mkdir()
    return tmp_path


def installed(home: Path, base: str = REIN, scope: str = "user") -> Path:
    cwd = home / "project"
    change = install("codex", scope="user" if scope == "user" else "project", cwd=cwd, home=home, base=[base])
    change.write()
    return change.path


def config(home: Path) -> Path:
    return home / ".codex" / "config.toml"


def test_install_then_trust_then_trusted_keeping_the_users_config(home: Path) -> None:
    hooks = installed(home)
    config(home).write_text('model = "gpt-5.5"  # mine\n\n[model_providers.mock]\nname = "mock"\n')
    before = status(hooks, scope="user", cwd=home, home=home)
    assert (before.trusted, before.stale, before.record) == (False, False, config(home))
    assert "until they are trusted" in before.detail and "rein hook install codex --trust" in before.detail
    change = trust(hooks, scope="user", cwd=home, home=home)
    assert change.path == config(home) and change.changed
    change.write()
    after = status(hooks, scope="user", cwd=home, home=home)
    assert after.trusted and "\n" not in after.detail
    text = config(home).read_text()
    assert text.startswith('model = "gpt-5.5"  # mine\n\n[model_providers.mock]\nname = "mock"\n')
    state = tomllib.loads(text)["hooks"]["state"]
    assert state == {
        handler.key: {"trusted_hash": handler.hash} for handler in rein_handlers(hooks, scope="user")
    }
    assert f"{hooks}:pre_tool_use:0:0" in state and f"{hooks}:stop:0:0" in state
    again = trust(hooks, scope="user", cwd=home, home=home)
    assert not again.changed


def test_keys_count_the_users_own_groups_and_leave_them_untrusted(home: Path) -> None:
    hooks = home / ".codex" / "hooks.json"
    hooks.parent.mkdir()
    mine = {"matcher": "Bash", "hooks": [{"type": "command", "command": "my-guard"}]}
    hooks.write_text(json.dumps({"hooks": {"PreToolUse": [mine]}}))
    installed(home)
    trust(hooks, scope="user", cwd=home, home=home).write()
    state = tomllib.loads(config(home).read_text())["hooks"]["state"]
    assert f"{hooks}:pre_tool_use:1:0" in state
    assert f"{hooks}:pre_tool_use:0:0" not in state


def test_a_moved_rein_is_stale_and_trusting_again_fixes_it(home: Path) -> None:
    hooks = installed(home, "/old/bin/rein")
    trust(hooks, scope="user", cwd=home, home=home).write()
    installed(home, "/new/bin/rein")
    moved = status(hooks, scope="user", cwd=home, home=home)
    assert (moved.trusted, moved.stale) == (False, True)
    assert "another command" in moved.detail and "--trust" in moved.detail
    trust(hooks, scope="user", cwd=home, home=home).write()
    assert status(hooks, scope="user", cwd=home, home=home).trusted
    assert "/old/" not in config(home).read_text()


def test_no_hooks_installed(home: Path) -> None:
    hooks = home / ".codex" / "hooks.json"
    found = status(hooks, scope="user", cwd=home, home=home)
    assert not found.trusted and "no rein hooks" in found.detail
    assert not trust(hooks, scope="user", cwd=home, home=home).changed
    assert not config(home).exists()


def test_project_hooks_need_the_project_trusted_too(home: Path) -> None:
    hooks = installed(home, scope="project")
    project = home / "project"
    assert hooks == project / ".codex" / "hooks.json"
    first = status(hooks, scope="project", cwd=project, home=home)
    assert not first.trusted and f"the project {project} is not trusted" in first.detail
    assert "rein hook install codex --project --trust" in first.detail
    trust(hooks, scope="project", cwd=project, home=home).write()
    written = tomllib.loads(config(home).read_text())
    assert written["projects"] == {str(project): {"trust_level": "trusted"}}
    assert f"{hooks}:pre_tool_use:0:0" in written["hooks"]["state"]
    assert status(hooks, scope="project", cwd=project, home=home).trusted


def test_a_project_the_user_marked_untrusted_stays_so(home: Path) -> None:
    hooks = installed(home, scope="project")
    project = home / "project"
    config(home).parent.mkdir(exist_ok=True)
    config(home).write_text(f'[projects."{project}"]\ntrust_level = "untrusted"\n')
    trust(hooks, scope="project", cwd=project, home=home).write()
    assert tomllib.loads(config(home).read_text())["projects"][str(project)] == {"trust_level": "untrusted"}
    found = status(hooks, scope="project", cwd=project, home=home)
    assert not found.trusted and "is marked untrusted" in found.detail


def test_codex_home_moves_the_record(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    moved = home / "elsewhere"
    monkeypatch.setenv("CODEX_HOME", str(moved))
    hooks = installed(home)
    assert hooks == moved / "hooks.json"
    change = trust(hooks, scope="user", cwd=home, home=home)
    assert change.path == moved / "config.toml"
    change.write()
    assert status(hooks, scope="user", cwd=home, home=home).trusted


def test_a_disabled_hook_is_reported(home: Path) -> None:
    hooks = installed(home)
    trust(hooks, scope="user", cwd=home, home=home).write()
    key = f"{hooks}:stop:0:0"
    text = (
        config(home)
        .read_text()
        .replace(f'[hooks.state."{key}"]\n', f'[hooks.state."{key}"]\nenabled = false\n')
    )
    config(home).write_text(text)
    found = status(hooks, scope="user", cwd=home, home=home)
    assert not found.trusted and not found.stale and "disabled" in found.detail


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("model = \n", "not valid TOML"),
        ("hooks = 3\n", "`hooks` must be a table"),
        ("[hooks]\nstate = 1\n", "`hooks.state`"),
    ],
)
def test_a_config_rein_cannot_edit_is_one_line_naming_it(home: Path, text: str, problem: str) -> None:
    hooks = installed(home)
    config(home).write_text(text)
    for action in (status, trust):
        with pytest.raises(InstallError) as error:
            action(hooks, scope="user", cwd=home, home=home)
        message = str(error.value)
        assert message.startswith(f"{config(home)}: ") and problem in message and "\n" not in message
    assert config(home).read_text() == text


def test_a_hooks_file_that_is_not_json(home: Path) -> None:
    hooks = home / ".codex" / "hooks.json"
    hooks.parent.mkdir()
    hooks.write_text("{")
    with pytest.raises(InstallError) as error:
        status(hooks, scope="user", cwd=home, home=home)
    assert str(error.value).startswith(f"{hooks}: cannot read it as JSON")
