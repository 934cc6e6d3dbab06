"""`rein hook` as a user and a host run it: usage, install/uninstall on real files, installed commands."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.cli.helpers import run_rein


def rein(*args: str, cwd: Path, home: Path, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return run_rein("hook", *args, cwd=cwd, home=home, stdin=stdin)


@pytest.fixture
def dirs(tmp_path: Path) -> tuple[Path, Path]:
    home = tmp_path / "home"
    project = tmp_path / "project"
    home.mkdir()
    project.mkdir()
    return project, home


@pytest.mark.slow
def test_usage_and_unknown_names_exit_2(dirs: tuple[Path, Path]) -> None:
    project, home = dirs
    assert rein("--help", cwd=project, home=home).returncode == 0
    bare = rein(cwd=project, home=home)
    assert bare.returncode == 2 and "Usage:" in bare.stderr
    unknown = rein("aider", "pre-tool-use", cwd=project, home=home)
    assert unknown.returncode == 2 and "known: claude, codex, gemini, cursor" in unknown.stderr
    event = rein("claude", "PreToolUse", cwd=project, home=home)
    assert event.returncode == 2 and "known: pre-tool-use, post-tool-use" in event.stderr
    assert rein("claude", cwd=project, home=home).returncode == 2
    assert "name one host" in rein("install", cwd=project, home=home).stderr
    assert "no such option: --global" in rein("install", "claude", "--global", cwd=project, home=home).stderr
    both = rein("install", "claude", "--user", "--project", cwd=project, home=home)
    assert both.returncode == 2 and "not both" in both.stderr
    assert "unknown host 'vim'" in rein("uninstall", "vim", cwd=project, home=home).stderr


def test_dry_run_prints_a_diff_and_writes_nothing(dirs: tuple[Path, Path]) -> None:
    project, home = dirs
    done = rein("install", "claude", "--dry-run", cwd=project, home=home)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("--- /dev/null\n+++ ")
    assert "hook claude pre-tool-use" in done.stdout
    assert done.stdout.endswith("dry run: nothing written\n")
    assert not (home / ".claude").exists()


def test_a_settings_file_that_cannot_be_written_is_named_with_the_reason(dirs: tuple[Path, Path]) -> None:
    project, home = dirs
    (project / ".cursor").write_text("a file where the folder goes")  # as root, read-only is no obstacle
    done = rein("install", "cursor", "--project", cwd=project, home=home)
    assert done.returncode == 2 and "Errno" not in done.stderr, done.stderr
    assert f"{project / '.cursor' / 'hooks.json'}: cannot read it (Not a directory)" in done.stderr


@pytest.mark.slow
def test_install_user_then_project_then_uninstall(dirs: tuple[Path, Path]) -> None:
    project, home = dirs
    user = rein("install", "claude", cwd=project, home=home)
    assert user.returncode == 0 and f"in {home / '.claude' / 'settings.json'}" in user.stdout
    again = rein("install", "claude", cwd=project, home=home)
    assert "already installed" in again.stdout
    dry = rein("install", "claude", "--dry-run", cwd=project, home=home).stdout
    assert dry.endswith(": no change\ndry run: nothing written\n")
    local = rein("install", "cursor", "--project", cwd=project, home=home)
    assert local.returncode == 0 and (project / ".cursor" / "hooks.json").is_file()
    gone = rein("uninstall", "claude", cwd=project, home=home)
    assert "Removed" in gone.stdout
    assert json.loads((home / ".claude" / "settings.json").read_text()) == {}
    assert "not installed" in rein("uninstall", "claude", cwd=project, home=home).stdout


def test_a_broken_settings_file_is_reported_and_left_alone(dirs: tuple[Path, Path]) -> None:
    project, home = dirs
    settings = project / ".gemini" / "settings.json"
    settings.parent.mkdir()
    settings.write_text("{oops")
    done = rein("install", "gemini", "--project", cwd=project, home=home)
    assert done.returncode == 2 and f"{settings}: not valid JSON" in done.stderr
    assert settings.read_text() == "{oops"


def test_the_installed_command_runs_as_the_hook(dirs: tuple[Path, Path]) -> None:
    project, home = dirs
    assert rein("install", "claude", "--project", cwd=project, home=home).returncode == 0
    settings = json.loads((project / ".claude" / "settings.json").read_text())
    command = settings["hooks"]["PreToolUse"][0]["hooks"][0]["command"]
    payload = {
        "session_id": "s",
        "cwd": str(project),
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "git reset --hard"},
    }
    done = subprocess.run(
        ["/bin/sh", "-c", command],
        input=json.dumps(payload),
        cwd="/",
        env={"HOME": str(home), "PATH": "/usr/bin:/bin", "REIN_HOOK_DAEMON": "off"},  # leave no daemon
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    decision = json.loads(done.stdout)["hookSpecificOutput"]
    assert (
        decision["permissionDecision"] == "deny" and "no-reset-hard" in decision["permissionDecisionReason"]
    )
