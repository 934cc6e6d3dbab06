"""The framework-agnostic core: which tool calls steering sees and as what, failing closed on a shell
tool it cannot read, observers fed by finished calls, stream-rule cuts per model call, the timebox."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from rein.integrations import Guard, steering_call
from rein.integrations._shell import run_bash
from rein.steering import ToolCall
from tests.integrations.helpers import commit_gated_on_pytest, fake_pytest
from tests.ttsr.helpers import rule

TESTS_BEFORE_COMMIT = commit_gated_on_pytest()


@pytest.fixture
def project(tmp_path: Path) -> Path:
    subprocess.run(["git", "init", "-q", "-b", "feature", str(tmp_path)], check=True)
    return tmp_path


@pytest.mark.parametrize(
    ("name", "arguments", "expected"),
    [
        ("bash", {"command": "ls -la"}, ToolCall(tool="bash", command="ls -la")),
        ("run_terminal_cmd", '{"cmd": "git status"}', ToolCall(tool="bash", command="git status")),
        ("anything", {"command": ["git", "push"]}, ToolCall(tool="bash", command="git push")),
        ("shell", {"input": "rm -rf /"}, ToolCall(tool="bash", command="rm -rf /")),
        ("write_file", {"path": "a.py", "content": "x"}, ToolCall(tool="write", path="a.py", content="x")),
        ("edit", {"file_path": "a.py", "old_string": "a", "new_string": "b"},
         ToolCall(tool="edit", path="a.py", content="b")),
        ("read_file", {"path": "a.py"}, ToolCall(tool="read", path="a.py")),
        ("get_weather", {"city": "Paris"}, None),
    ],
)  # fmt: skip
def test_tool_calls_as_steering_sees_them(name: str, arguments: object, expected: ToolCall | None) -> None:
    assert steering_call(name, arguments) == expected  # type: ignore[arg-type]


def test_a_shell_tool_without_a_readable_command_is_blocked(project: Path) -> None:
    decision = Guard(project, home=project).check_tool("bash_tool", {"a": "x", "b": "y"})
    assert not decision.allow and "cannot find the command" in decision.reason


def test_steering_blocks_with_its_reason_and_allows_the_rest(project: Path) -> None:
    guard = Guard(project, home=project)
    blocked = guard.check_tool("bash", {"command": "cd sub && git push --force origin main"})
    assert not blocked.allow and blocked.reason.startswith("[steering:no-force-push@defaults]")
    assert guard.check_tool("bash", {"command": "git status"}).allow
    assert guard.check_tool("get_weather", {"city": "Paris"}).allow
    assert Guard(project, home=project, steering=False).check_tool("bash", {"command": "git push -f"}).allow


def test_observers_see_finished_calls(project: Path) -> None:
    (project / ".rein").mkdir()
    (project / ".rein" / "steering.toml").write_text(TESTS_BEFORE_COMMIT)
    guard = Guard(project, home=project)
    first = guard.check_tool("bash", {"command": "git commit -m x"})
    assert not first.allow and "test-before-commit" in first.reason
    guard.tool_finished("bash", {"command": "pytest -q"}, output="1 passed", exit_code=0)
    assert guard.check_tool("bash", {"command": "git commit -m x"}).allow


def test_a_watch_cuts_once_per_run_and_renders_the_injection(project: Path) -> None:
    guard = Guard(project, home=project, rules=[rule("condition: forbidden", "Never say it.", name="word")])
    watch = guard.watch()
    assert watch.feed("this is forb") is None
    cut = watch.feed("idden text")
    assert cut is not None and [m.name for m in cut.matches] == ["word"]
    assert "Never say it." in cut.injection and 'rule="word"' in cut.injection
    assert guard.watch().check_whole("forbidden again") is None  # `once`: injected this run already


def test_the_timebox_nudges_once_then_stops(project: Path) -> None:
    now = [1000.0]
    guard = Guard(project, home=project, timebox="turns:5", clock=lambda: now[0])
    signals = []
    for _ in range(5):
        guard.turn_completed()
        signals.append(guard.budget_check())
    assert signals[:3] == [None, None, None]
    assert signals[3] is not None and not signals[3].stop and "IMPORTANT" in signals[3].message
    assert signals[4] is not None and signals[4].stop and "Timebox budget spent" in signals[4].message
    with pytest.raises(ValueError, match="not a budget"):
        Guard(project, home=project, timebox="soon")


def test_the_guard_s_bash_tool_reports_exit_codes_to_the_observers(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_pytest(tmp_path / "bin", monkeypatch)
    (project / ".rein").mkdir()
    (project / ".rein" / "steering.toml").write_text(TESTS_BEFORE_COMMIT)  # waits for exit_code = 0
    guard = Guard(project, home=project)
    assert guard.bash("pytest 1") == "pytest ran, exit 1\n\n[exit code 1]"
    guard.tool_finished("bash", {"command": "pytest 1"}, output="...")  # the framework knows no code
    assert not guard.check_tool("bash", {"command": "git commit -m x"}).allow  # tests failed
    assert guard.bash("pytest 0") == "pytest ran, exit 0\n"
    guard.tool_finished("bash", {"command": "pytest 0"}, output="...")
    assert guard.check_tool("bash", {"command": "git commit -m x"}).allow
    assert guard.bash("cd sub 2>/dev/null; pwd").strip() == str(project)  # runs in the guard's directory
    assert guard.bash("true") == "(no output)"


def test_a_command_past_its_timeout_is_killed_with_what_it_started(tmp_path: Path) -> None:
    output, code = run_bash("sleep 30 & echo started; wait", cwd=str(tmp_path), timeout=0.5)
    assert code is None and output.startswith("started\n")
    assert output.endswith("[command timed out after 0.5 s; its process group was killed]")
    long, code = run_bash("head -c 40000 /dev/zero | tr '\\0' x", cwd=str(tmp_path))
    assert code == 0 and long.startswith("[... 10000 characters cut ...]\n") and long.endswith("x" * 30_000)
