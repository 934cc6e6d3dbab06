"""Gemini CLI hooks: BeforeTool/AfterTool with `decision` and `reason`, BeforeAgent for the loop."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from rein.hooks.gemini import exit_code
from tests.hooks.conftest import Dirs, answer, run_hook


def payload(dirs: Dirs, event: str, **fields: object) -> dict[str, object]:
    return {
        "session_id": "gem-1",
        "transcript_path": str(dirs.home / ".gemini" / "t.json"),
        "cwd": str(dirs.project),
        "hook_event_name": event,
        "timestamp": "2026-01-01T00:00:00Z",
        **fields,
    }


def before(dirs: Dirs, tool: str, **tool_input: object) -> subprocess.CompletedProcess[str]:
    body = payload(dirs, "BeforeTool", tool_name=tool, tool_input=tool_input)
    return run_hook("gemini", "before-tool", body, home=dirs.home)


def after_shell(dirs: Dirs, command: str, content: str) -> subprocess.CompletedProcess[str]:
    response = {"llmContent": content, "returnDisplay": content}
    body = payload(
        dirs,
        "AfterTool",
        tool_name="run_shell_command",
        tool_input={"command": command},
        tool_response=response,
    )
    return run_hook("gemini", "after-tool", body, home=dirs.home)


def test_allow_answers_an_empty_object(dirs: Dirs) -> None:
    done = before(dirs, "run_shell_command", command="ls", description="list")
    assert (done.returncode, answer(done)) == (0, {})
    assert done.stderr == ""


def test_deny_carries_the_reason_to_the_agent(dirs: Dirs) -> None:
    out = answer(before(dirs, "run_shell_command", command="git clean -fdx"))
    assert out["decision"] == "deny"
    assert str(out["reason"]).startswith("[steering:no-git-clean-force@defaults]")


def test_a_rule_that_asks_denies_because_headless_gemini_cli_would_hang(asking: Dirs) -> None:
    """Gemini CLI's own `decision: "ask"` waits for a confirmation nobody gives in `gemini -p`
    (tests/hosts/test_gemini.py): rein denies with the reason instead."""
    out = answer(before(asking, "run_shell_command", command="shipit prod"))
    assert out["decision"] == "deny" and str(out["reason"]).startswith("[steering:ask-to-ship@user]")


def test_the_directory_argument_sets_where_the_command_runs(dirs: Dirs) -> None:
    (dirs.project / ".rein" / "steering.toml").write_text(
        '[[rule]]\nname = "no-make-in-vendor"\nreason = "vendor is read-only"\ncommand = "make"\n'
        '[rule.when]\ncwd = "*/vendor"\n'
    )
    assert answer(before(dirs, "run_shell_command", command="make")) == {}
    assert answer(before(dirs, "run_shell_command", command="make", directory="vendor"))["decision"] == "deny"


@pytest.mark.slow
def test_file_tools_are_steered(dirs: Dirs) -> None:
    env = str(dirs.project / ".env")
    assert answer(before(dirs, "write_file", file_path=env, content="A=1"))["decision"] == "deny"
    assert (
        answer(before(dirs, "replace", file_path=env, old_string="A", new_string="B"))["decision"] == "deny"
    )
    assert answer(before(dirs, "read_file", path="/srv/secrets/key"))["decision"] == "deny"
    assert answer(before(dirs, "read_file", file_path="/srv/secrets/key"))["decision"] == "deny"
    assert answer(before(dirs, "read_file", path=str(dirs.project / "README.md"))) == {}
    assert answer(before(dirs, "google_web_search", query="x")) == {}


@pytest.mark.slow
def test_observer_then_rule_across_processes(dirs: Dirs) -> None:
    agent = run_hook("gemini", "before-agent", payload(dirs, "BeforeAgent", prompt="ship it"), home=dirs.home)
    assert answer(agent) == {}
    assert answer(before(dirs, "run_shell_command", command="git commit -m x"))["decision"] == "deny"
    failed = (
        "Command: pytest\nDirectory: (root)\nStdout: 1 failed\nStderr: (empty)\nError: (none)\nExit Code: 1"
    )
    assert answer(after_shell(dirs, "pytest", failed)) == {}
    assert answer(before(dirs, "run_shell_command", command="git commit -m x"))["decision"] == "deny"
    assert answer(after_shell(dirs, "pytest", failed.replace("Exit Code: 1", "Exit Code: 0"))) == {}
    assert answer(before(dirs, "run_shell_command", command="git commit -m x")) == {}
    run_hook("gemini", "before-agent", payload(dirs, "BeforeAgent", prompt="again"), home=dirs.home)
    assert answer(before(dirs, "run_shell_command", command="git commit -m x"))["decision"] == "deny"


@pytest.mark.slow
def test_failures_deny_and_say_why(dirs: Dirs) -> None:
    done = run_hook("gemini", "before-tool", "", home=dirs.home)
    out = answer(done)
    assert out["decision"] == "deny" and "not valid JSON" in str(out["reason"])
    assert "Traceback" not in done.stderr
    missing = answer(before(dirs, "run_shell_command", description="no command"))
    assert "`tool_input.command` must be a non-empty string" in str(missing["reason"])
    (dirs.project / ".rein" / "steering.toml").write_text("[[rule]\n")
    out = answer(before(dirs, "run_shell_command", command="ls"))
    assert out["decision"] == "deny" and "steering.toml: not valid TOML" in str(out["reason"])
    start = run_hook(
        "gemini", "session-start", payload(dirs, "SessionStart", source="startup"), home=dirs.home
    )
    assert "not valid TOML" in str(answer(start)["systemMessage"])


PAYLOADS = Path(__file__).parent / "payloads" / "gemini"
"""Payloads captured from the real Gemini CLI 0.61.0 (a hook that saved its stdin) running `git commit`,
`pytest` passing and `pytest` failing; paths moved to /home/user."""


def captured(dirs: Dirs, name: str, **fields: object) -> dict[str, object]:
    """A captured payload, moved into `dirs` and the session the other helpers use."""
    text = (PAYLOADS / f"{name}.json").read_text().replace("/home/user", str(dirs.home))
    body = json.loads(text)
    assert isinstance(body, dict)
    return {**body, "session_id": "gem-1", **fields}


def shell_result(dirs: Dirs, content: str, **response: object) -> dict[str, object]:
    """The captured passing pytest with Gemini CLI's result text replaced."""
    body = captured(dirs, "after-tool-pytest-passed")
    return {**body, "tool_response": {"llmContent": content, "returnDisplay": "", **response}}


def commit_reason(dirs: Dirs) -> str:
    out = answer(run_hook("gemini", "before-tool", captured(dirs, "before-tool-git-commit"), home=dirs.home))
    return str(out.get("reason", ""))


def test_real_payloads_are_what_the_replays_assume() -> None:
    passed = json.loads((PAYLOADS / "after-tool-pytest-passed.json").read_text())
    failed = json.loads((PAYLOADS / "after-tool-pytest-failed.json").read_text())
    assert passed["hook_event_name"] == failed["hook_event_name"] == "AfterTool"
    assert "Exit Code" not in passed["tool_response"]["llmContent"] and "error" not in passed["tool_response"]
    assert (
        "\nExit Code: 1\n" in failed["tool_response"]["llmContent"] and "error" not in failed["tool_response"]
    )


@pytest.mark.slow
def test_a_real_passing_pytest_lets_the_commit_through(dirs: Dirs) -> None:
    run_hook("gemini", "before-agent", payload(dirs, "BeforeAgent", prompt="ship it"), home=dirs.home)
    assert commit_reason(dirs).startswith("[steering:commit-after-tests@")
    done = run_hook("gemini", "after-tool", captured(dirs, "after-tool-pytest-passed"), home=dirs.home)
    assert (answer(done), done.stderr) == ({}, "")
    assert commit_reason(dirs) == ""
    [entry] = [line for line in dirs.session_lines("gemini", "gem-1") if line.get("type") == "tests-passed"]
    assert entry["data"]["exit_code"] == 0  # type: ignore[index]


@pytest.mark.slow
def test_a_real_failing_pytest_does_not(dirs: Dirs) -> None:
    run_hook("gemini", "before-agent", payload(dirs, "BeforeAgent", prompt="ship it"), home=dirs.home)
    done = run_hook("gemini", "after-tool", captured(dirs, "after-tool-pytest-failed"), home=dirs.home)
    assert (answer(done), done.stderr) == ({}, "")
    assert commit_reason(dirs).startswith("[steering:commit-after-tests@")


@pytest.mark.slow
def test_results_without_a_known_exit_code_record_no_success(dirs: Dirs) -> None:
    run_hook("gemini", "before-agent", payload(dirs, "BeforeAgent", prompt="ship it"), home=dirs.home)
    unknown = [
        "<untrusted_context>\nCommand was cancelled by user before it could complete. There was no output "
        "before it was cancelled.\n</untrusted_context>",
        "<untrusted_context>\nCommand moved to background (PID: 41). Output hidden.\n</untrusted_context>",
        "<untrusted_context>\nOutput: (empty)\nSignal: 15\nProcess Group PGID: 41\n</untrusted_context>",
        "<untrusted_context>\nOutput: (empty)\nError: spawn sh ENOENT\n</untrusted_context>",
        "<untrusted_context>\nOutput: 1 passed\nError: broken pipe\nProcess Group PGID: 41\n"
        "</untrusted_context>",
        "<untrusted_context>\nOutput: 1 passed\nExit Code: 0\nExit Code: 3\nProcess Group PGID: 41\n"
        "</untrusted_context>",  # a failing command that printed `Exit Code: 0` itself
        "Output: 1 passed",  # no process group: it never ran as far as Gemini CLI says
    ]
    for content in unknown:
        body = shell_result(dirs, content)
        assert answer(run_hook("gemini", "after-tool", body, home=dirs.home)) == {}
    failed = shell_result(dirs, "Output: 1 passed\nProcess Group PGID: 41", error="the tool failed")
    assert answer(run_hook("gemini", "after-tool", failed, home=dirs.home)) == {}
    assert commit_reason(dirs).startswith("[steering:commit-after-tests@")
    plain = shell_result(dirs, "Output: 1 passed\nProcess Group PGID: 41")
    assert answer(run_hook("gemini", "after-tool", plain, home=dirs.home)) == {}
    assert commit_reason(dirs) == ""


def test_exit_code_reads_gemini_lines_from_the_end() -> None:
    wrapped = "<untrusted_context>\nOutput: {}\nProcess Group PGID: 7\n</untrusted_context>"
    assert exit_code(wrapped.format("ok"), error=False) == 0
    assert exit_code(wrapped.format("Exit Code: 9"), error=False) == 0  # the output's own text
    # A passing command that prints such a line last reads as that code: never a success it was not.
    assert exit_code(wrapped.format("ok\nExit Code: 9"), error=False) == 9
    assert exit_code(wrapped.format("ok"), error=True) is None
    assert (
        exit_code("Output: x\nError: e\nExit Code: 2\nSignal: (none)\nProcess Group PGID: 7", error=True) == 2
    )
    assert exit_code("Output: x\nBackground PIDs: 8, 9\nProcess Group PGID: 7", error=False) == 0
    older = "Command: pytest\nDirectory: (root)\nStdout: ok\nStderr: (empty)\nError: (none)\nExit Code: 0"
    assert exit_code(older, error=False) == 0
    assert exit_code(older.replace("Exit Code: 0", "Exit Code: (none)"), error=False) is None
    assert exit_code("", error=False) is None
