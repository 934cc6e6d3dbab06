"""`rein hook doctor HOST`: what is installed where, whether it still starts this rein, and a live probe
of the installed command (an allowed `ls`, a blocked force push) with its time; and the bytecode
`rein hook install` compiles so that no hook process compiles rein."""

from __future__ import annotations

import importlib
import importlib.util
import json
import re
import subprocess
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import cast

import pytest

from rein.hooks import HOSTS, _client
from rein.hooks._doctor import ALLOWED, DENIED, payload, verdict
from rein.hooks._run import Event, handle
from tests.cli.helpers import rein_env
from tests.hooks._daemon_rig import Rig, rigged

REIN = Path(sys.executable).with_name("rein")
"""The venv's `rein` script, what a user runs: `install` writes its path into the host's settings."""
ALLOWED_LS = re.compile(r"^  probe 'ls': allowed in \d+ ms$", re.MULTILINE)
BLOCKED = re.compile(
    r"^  probe 'git push --force origin main': blocked in \d+ ms \(\[steering:no-force-push@defaults\] ",
    re.MULTILINE,
)


def rein(
    *args: str, home: Path, cwd: Path, env: Mapping[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(REIN), *args],
        cwd=cwd,
        env=dict(env) if env is not None else rein_env(home),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


@pytest.fixture
def where(tmp_path: Path) -> tuple[Path, Path]:
    """A home and a project below it, no rein settings in either."""
    home = tmp_path / "home"
    project = home / "project"
    project.mkdir(parents=True)
    return home, project


@pytest.mark.slow
def test_not_installed_says_how_to_install(where: tuple[Path, Path]) -> None:
    home, project = where
    done = rein("hook", "doctor", "claude", home=home, cwd=project)
    assert done.returncode == 1
    assert done.stdout == (
        f"Claude Code: rein's hooks are not installed in {home / '.claude' / 'settings.json'}\n"
        "  fix: rein hook install claude\n"
    )


@pytest.mark.slow
def test_installed_lists_events_and_probes_an_allow_and_a_deny(where: tuple[Path, Path]) -> None:
    home, project = where
    assert rein("hook", "install", "claude", home=home, cwd=project).returncode == 0
    done = rein("hook", "doctor", "claude", home=home, cwd=project)
    assert done.returncode == 0, done.stdout
    lines = done.stdout.splitlines()
    assert lines[0] == f"Claude Code: rein's hooks in {home / '.claude' / 'settings.json'}"
    for event, name in (("PreToolUse", "pre-tool-use"), ("PostToolUse", "post-tool-use")):
        assert f"  {event}: {REIN} hook claude {name}" in lines
    assert ALLOWED_LS.search(done.stdout) and BLOCKED.search(done.stdout)
    assert "  daemon: the hook daemon is turned off (REIN_HOOK_DAEMON=off)" in lines
    assert "stale" not in done.stdout and lines[-1] == "ok"


def rewrite_commands(settings: Path, old: str, new: str) -> None:
    text = settings.read_text()
    assert old in text
    settings.write_text(text.replace(old, new))


@pytest.mark.slow
def test_a_command_whose_program_is_gone_is_stale(where: tuple[Path, Path]) -> None:
    home, project = where
    assert rein("hook", "install", "claude", home=home, cwd=project).returncode == 0
    gone = home / "old-venv" / "bin" / "rein"
    rewrite_commands(home / ".claude" / "settings.json", str(REIN), str(gone))
    done = rein("hook", "doctor", "claude", home=home, cwd=project)
    assert done.returncode == 1
    assert f"  stale: {gone} does not exist (rein moved?): run `rein hook install` again" in done.stdout
    assert "probe 'ls': FAILED" in done.stdout and "blocked" not in done.stdout
    assert done.stdout.count("stale:") == 1  # one line for the one program all six events run
    assert done.stdout.splitlines()[-1] == "3 problem(s) found"  # stale, and both probes


@pytest.mark.slow
def test_a_command_that_runs_another_rein_is_stale(where: tuple[Path, Path]) -> None:
    home, project = where
    assert rein("hook", "install", "claude", home=home, cwd=project).returncode == 0
    other = home / "other" / "rein"
    other.parent.mkdir()
    other.write_text(REIN.read_text())
    other.chmod(0o755)
    rewrite_commands(home / ".claude" / "settings.json", str(REIN), str(other))
    done = rein("hook", "doctor", "claude", home=home, cwd=project)
    assert done.returncode == 1
    assert f"  stale: it runs {other}, not this rein ({REIN}): run `rein hook install` again" in done.stdout
    assert BLOCKED.search(done.stdout)  # that rein still answers; it is just not this one
    reinstalled = rein("hook", "install", "claude", home=home, cwd=project)
    assert reinstalled.returncode == 0
    assert rein("hook", "doctor", "claude", home=home, cwd=project).returncode == 0


@pytest.mark.slow
def test_a_policy_that_blocks_ls_is_a_problem(where: tuple[Path, Path]) -> None:
    home, project = where
    assert rein("hook", "install", "claude", home=home, cwd=project).returncode == 0
    (project / ".rein").mkdir()
    (project / ".rein" / "steering.toml").write_text(
        '[[rule]]\nname = "no-ls"\nreason = "No."\ncommand = "ls"\n'
    )
    done = rein("hook", "doctor", "claude", home=home, cwd=project)
    assert done.returncode == 1
    assert re.search(r"probe 'ls': blocked in \d+ ms \(\[steering:no-ls@", done.stdout)
    assert done.stdout.splitlines()[-1] == "1 problem(s) found"


@pytest.mark.slow
def test_no_pre_tool_hook_means_nothing_blocks(where: tuple[Path, Path]) -> None:
    home, project = where
    assert rein("hook", "install", "claude", home=home, cwd=project).returncode == 0
    settings = home / ".claude" / "settings.json"
    data = json.loads(settings.read_text())
    del data["hooks"]["PreToolUse"]
    settings.write_text(json.dumps(data))
    done = rein("hook", "doctor", "claude", home=home, cwd=project)
    assert done.returncode == 1
    assert "  no pre-tool hook (PreToolUse): nothing blocks tool calls" in done.stdout


@pytest.mark.slow
def test_project_scope(where: tuple[Path, Path]) -> None:
    home, project = where
    assert rein("hook", "install", "claude", "--project", home=home, cwd=project).returncode == 0
    user = rein("hook", "doctor", "claude", home=home, cwd=project)
    assert user.returncode == 1 and "not installed" in user.stdout
    done = rein("hook", "doctor", "claude", "--project", home=home, cwd=project)
    assert done.returncode == 0, done.stdout
    assert done.stdout.startswith(f"Claude Code: rein's hooks in {project / '.claude' / 'settings.json'}\n")
    assert BLOCKED.search(done.stdout)
    elsewhere = home / "elsewhere"
    elsewhere.mkdir()
    missing = rein("hook", "doctor", "claude", "--project", home=home, cwd=elsewhere)
    assert missing.returncode == 1 and "  fix: rein hook install claude --project\n" in missing.stdout


@pytest.mark.slow
def test_cursor_has_no_trust_and_says_what_its_payloads_lose(where: tuple[Path, Path]) -> None:
    home, project = where
    assert rein("hook", "install", "cursor", home=home, cwd=project).returncode == 0
    done = rein("hook", "doctor", "cursor", home=home, cwd=project)
    assert done.returncode == 0, done.stdout
    assert "  trust:" not in done.stdout
    assert "  exit codes: Cursor sends no exit code after a shell command" in done.stdout
    assert ALLOWED_LS.search(done.stdout) and BLOCKED.search(done.stdout)


@pytest.mark.parametrize(
    ("args", "problem"),
    [
        ((), "name one host"),
        (("vim",), "name one host"),
        (("claude", "codex"), "name one host"),
        (("claude", "--bogus"), "no such option: --bogus"),
        (("claude", "--user", "--project"), "choose --user or --project, not both"),
    ],
)
def test_usage_errors(where: tuple[Path, Path], args: tuple[str, ...], problem: str) -> None:
    home, project = where
    done = rein("hook", "doctor", *args, home=home, cwd=project)
    assert done.returncode == 2 and problem in done.stderr and done.stdout == ""


@pytest.fixture
def rig(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Rig]:
    yield from rigged(tmp_path, monkeypatch)


@pytest.mark.slow
def test_with_the_daemon_on_the_probes_are_answered_by_it(rig: Rig) -> None:
    assert rein("hook", "install", "claude", home=rig.home, cwd=rig.home, env=rig.env()).returncode == 0
    done = rein("hook", "doctor", "claude", home=rig.home, cwd=rig.home, env=rig.env())
    assert done.returncode == 0, done.stdout
    running = rig.running()
    assert f"  daemon: running, pid {running.pid}" in done.stdout.splitlines()
    assert running.served == 2 and BLOCKED.search(done.stdout)


def shell_event(host: str, body: str) -> Event:
    """The host's event that answers the doctor's probe payload (matched by the host's event name)."""
    events = cast(Mapping[str, Event], importlib.import_module(HOSTS[host]).EVENTS)
    name = json.loads(body)["hook_event_name"]
    [event] = [event for event in events.values() if event.name == name]
    assert event.kind == "before"
    return event


@pytest.mark.parametrize("host", list(HOSTS))
def test_the_probe_payload_is_one_the_host_adapter_reads(host: str, tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    for command, denied in ((ALLOWED, False), (DENIED, True)):
        body = payload(host, command, home)
        answer = handle(host, shell_event(host, body), body, home=home)
        assert (answer.code, answer.stderr) == (0, "")
        read = verdict(host, answer.stdout)
        assert read is not None, answer.stdout
        assert read[0] is denied, (host, command, answer.stdout)
        assert read[1].startswith("[steering:no-force-push@defaults]") if denied else read[1] == ""


@pytest.mark.parametrize("host", list(HOSTS))
def test_a_failed_hook_answer_reads_as_a_deny(host: str, tmp_path: Path) -> None:
    body = payload(host, ALLOWED, tmp_path)
    answer = handle(host, shell_event(host, body), "not json", home=tmp_path)
    read = verdict(host, answer.stdout) if answer.code == 0 else None
    assert read is not None and read[0] and "[steering:hook-error@rein]" in read[1]


@pytest.mark.parametrize("host", list(HOSTS))
def test_an_answer_in_no_protocol_is_none(host: str) -> None:
    assert verdict(host, "not json") is None
    assert verdict(host, "[1, 2]") is None
    assert verdict(host, '"deny"') is None


def current_pyc(source: Path) -> bool:
    """Whether `source` has bytecode in its `__pycache__` that an import would use as is."""
    cached = Path(importlib.util.cache_from_source(str(source)))
    if not cached.is_file():
        return False
    head = cached.read_bytes()[:16]
    if head[:4] != importlib.util.MAGIC_NUMBER:
        return False
    if int.from_bytes(head[4:8], "little") != 0:  # hash-based: checked against the source at import
        return True
    stat = source.stat()
    stamp, size = int.from_bytes(head[8:12], "little"), int.from_bytes(head[12:16], "little")
    return (stamp, size) == (int(stat.st_mtime) & 0xFFFFFFFF, stat.st_size & 0xFFFFFFFF)


@pytest.mark.slow
def test_install_compiles_the_hook_path(where: tuple[Path, Path]) -> None:
    home, project = where
    source = Path(_client.__file__)
    Path(importlib.util.cache_from_source(str(source))).unlink(missing_ok=True)
    assert not current_pyc(source)
    env = {**rein_env(home), "PYTHONDONTWRITEBYTECODE": "1"}  # so only the install's compile writes it
    done = rein("hook", "install", "claude", home=home, cwd=project, env=env)
    assert done.returncode == 0 and done.stderr == ""
    assert current_pyc(source)
