"""Claude Code hooks as Claude Code runs them: payloads in its documented shape, one process each."""

from __future__ import annotations

import json
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.hooks.conftest import Dirs, Imported, answer, run_hook


def payload(dirs: Dirs, event: str, session: str = "sess-1", **fields: object) -> dict[str, object]:
    return {
        "session_id": session,
        "transcript_path": str(dirs.home / "t.jsonl"),
        "cwd": str(dirs.project),
        "permission_mode": "default",
        "hook_event_name": event,
        **fields,
    }


def bash(dirs: Dirs, command: str) -> dict[str, object]:
    return payload(dirs, "PreToolUse", tool_name="Bash", tool_input={"command": command}, tool_use_id="t1")


def ran(dirs: Dirs, command: str, session: str = "sess-1") -> subprocess.CompletedProcess[str]:
    body = payload(
        dirs,
        "PostToolUse",
        session,
        tool_name="Bash",
        tool_input={"command": command},
        tool_response={"stdout": "ok", "stderr": "", "interrupted": False},
        tool_use_id="toolu_2",
    )
    return run_hook("claude", "post-tool-use", body, home=dirs.home)


def prompt(dirs: Dirs, session: str = "sess-1") -> None:
    done = run_hook(
        "claude",
        "user-prompt-submit",
        payload(dirs, "UserPromptSubmit", session, prompt="go"),
        home=dirs.home,
    )
    assert (done.returncode, done.stdout) == (0, "")


def decision(done: subprocess.CompletedProcess[str]) -> tuple[str, str]:
    output = answer(done)["hookSpecificOutput"]
    assert isinstance(output, dict) and output["hookEventName"] == "PreToolUse"
    return output["permissionDecision"], output["permissionDecisionReason"]


def test_an_allowed_command_prints_nothing_so_claudes_own_prompts_apply(dirs: Dirs) -> None:
    done = run_hook("claude", "pre-tool-use", bash(dirs, "git status && ls -la"), home=dirs.home)
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


def test_a_blocked_command_is_denied_with_the_tagged_reason(dirs: Dirs) -> None:
    done = run_hook("claude", "pre-tool-use", bash(dirs, "cd src && git reset --hard HEAD~1"), home=dirs.home)
    kind, reason = decision(done)
    assert kind == "deny"
    assert reason.startswith("[steering:no-reset-hard@defaults]")


def test_a_rule_that_asks_hands_the_call_to_claudes_permission_prompt(asking: Dirs) -> None:
    """`permissionDecision: "ask"`: Claude Code asks the person, the reason in its prompt. A command
    that a rule blocks as well is denied: a block wins over an ask."""
    kind, reason = decision(run_hook("claude", "pre-tool-use", bash(asking, "shipit prod"), home=asking.home))
    assert kind == "ask" and reason.startswith("[steering:ask-to-ship@user] Shipping to production")
    both = bash(asking, "shipit prod && git reset --hard")
    kind, reason = decision(run_hook("claude", "pre-tool-use", both, home=asking.home))
    assert kind == "deny" and reason.startswith("[steering:no-reset-hard@defaults]")


def test_a_file_rule_that_asks_asks_too(asking: Dirs) -> None:
    log = str(asking.project / "CHANGELOG.md")
    write = payload(asking, "PreToolUse", tool_name="Write", tool_input={"file_path": log, "content": "x"})
    kind, reason = decision(run_hook("claude", "pre-tool-use", write, home=asking.home))
    assert kind == "ask" and reason.startswith("[steering:ask-to-write-changelog@user]")


@pytest.mark.slow
def test_an_observer_in_one_process_unblocks_a_rule_in_the_next(dirs: Dirs) -> None:
    prompt(dirs)
    assert decision(run_hook("claude", "pre-tool-use", bash(dirs, "git commit -m x"), home=dirs.home))[
        1
    ].startswith("[steering:commit-after-tests@user]")
    assert ran(dirs, "pytest -q").stdout == ""
    done = run_hook("claude", "pre-tool-use", bash(dirs, "git commit -m x"), home=dirs.home)
    assert (done.returncode, done.stdout) == (0, "")
    [entry] = [line for line in dirs.session_lines("claude", "sess-1") if line.get("type") == "tests-passed"]
    assert entry["agent_loop"] == 1


@pytest.mark.slow
def test_a_new_prompt_starts_a_new_agent_loop(dirs: Dirs) -> None:
    prompt(dirs)
    ran(dirs, "pytest -q")
    prompt(dirs)
    done = run_hook("claude", "pre-tool-use", bash(dirs, "git commit -m x"), home=dirs.home)
    assert decision(done)[0] == "deny"


def test_sessions_do_not_share_entries(dirs: Dirs) -> None:
    ran(dirs, "pytest -q", session="other")
    done = run_hook("claude", "pre-tool-use", bash(dirs, "git commit -m x"), home=dirs.home)
    assert decision(done)[0] == "deny"


@pytest.mark.slow
def test_a_failed_command_does_not_count_as_tests_passed(dirs: Dirs) -> None:
    body = payload(dirs, "PostToolUseFailure", tool_name="Bash", tool_input={"command": "pytest"}, error="1")
    done = run_hook("claude", "post-tool-use-failure", body, home=dirs.home)
    assert (done.returncode, done.stdout) == (0, "")
    assert (
        decision(run_hook("claude", "pre-tool-use", bash(dirs, "git commit -m x"), home=dirs.home))[0]
        == "deny"
    )


@pytest.mark.slow
def test_an_and_chain_satisfies_the_rule_in_the_same_call(dirs: Dirs) -> None:
    done = run_hook("claude", "pre-tool-use", bash(dirs, "pytest -q && git commit -m x"), home=dirs.home)
    assert (done.returncode, done.stdout) == (0, "")
    done = run_hook("claude", "pre-tool-use", bash(dirs, "pytest -q; git commit -m x"), home=dirs.home)
    assert decision(done)[0] == "deny"


@pytest.mark.slow
def test_file_tools_are_steered(dirs: Dirs) -> None:
    env = str(dirs.project / ".env")
    write = payload(dirs, "PreToolUse", tool_name="Write", tool_input={"file_path": env, "content": "A=1"})
    edit = payload(
        dirs,
        "PreToolUse",
        tool_name="Edit",
        tool_input={"file_path": env, "old_string": "A", "new_string": "B"},
    )
    multi = payload(
        dirs,
        "PreToolUse",
        tool_name="MultiEdit",
        tool_input={"file_path": env, "edits": [{"old_string": "A", "new_string": "B"}]},
    )
    read = payload(dirs, "PreToolUse", tool_name="Read", tool_input={"file_path": "/srv/secrets/key"})
    for body, rule in (
        (write, "no-env-write"),
        (edit, "no-env-edit"),
        (multi, "no-env-edit"),
        (read, "no-secret"),
    ):
        assert decision(run_hook("claude", "pre-tool-use", body, home=dirs.home))[1].startswith(
            f"[steering:{rule}"
        )
    fine = payload(dirs, "PreToolUse", tool_name="Write", tool_input={"file_path": "a.py", "content": ""})
    assert run_hook("claude", "pre-tool-use", fine, home=dirs.home).stdout == ""


@pytest.mark.slow
def test_an_edit_observer_feeds_a_session_rule(dirs: Dirs) -> None:
    push = bash(dirs, "git push origin feature")
    assert decision(run_hook("claude", "pre-tool-use", push, home=dirs.home))[1].startswith(
        "[steering:push-after"
    )
    edited = payload(
        dirs,
        "PostToolUse",
        tool_name="Edit",
        tool_input={
            "file_path": str(dirs.project / "docs" / "guide.md"),
            "old_string": "a",
            "new_string": "b",
        },
        tool_response={"filePath": "docs/guide.md"},
    )
    assert run_hook("claude", "post-tool-use", edited, home=dirs.home).stdout == ""
    prompt(dirs)  # `in = "session"` sees entries of earlier loops
    assert run_hook("claude", "pre-tool-use", push, home=dirs.home).stdout == ""


def test_a_tool_rein_does_not_steer_is_allowed(dirs: Dirs) -> None:
    body = payload(dirs, "PreToolUse", tool_name="mcp__github__create_issue", tool_input={"title": "x"})
    assert run_hook("claude", "pre-tool-use", body, home=dirs.home).stdout == ""


@pytest.mark.slow
def test_malformed_input_is_denied_with_a_message_and_no_traceback(dirs: Dirs) -> None:
    for stdin in (
        "{not json",
        "[1, 2]",
        json.dumps(bash(dirs, "")),
        json.dumps({**bash(dirs, "ls"), "cwd": "rel"}),
    ):
        done = run_hook("claude", "pre-tool-use", stdin, home=dirs.home)
        kind, reason = decision(done)
        assert kind == "deny" and reason.startswith("[steering:hook-error@rein]")
        assert "rein hook claude PreToolUse: error:" in done.stderr
        assert "Traceback" not in done.stderr


def test_a_payload_for_another_event_is_refused(dirs: Dirs) -> None:
    done = run_hook("claude", "pre-tool-use", payload(dirs, "PostToolUse"), home=dirs.home)
    assert "but the payload is for 'PostToolUse'" in decision(done)[1]


@pytest.mark.slow
def test_a_broken_config_blocks_with_the_file_and_the_problem(dirs: Dirs) -> None:
    config = dirs.project / ".rein" / "steering.toml"
    config.write_text('[[rule]]\nname = "x"\nreason = "y"\ncommand = "ls"\nbogus = 1\n')
    done = run_hook("claude", "pre-tool-use", bash(dirs, "ls"), home=dirs.home)
    kind, reason = decision(done)
    assert kind == "deny" and f"{config}:1" in reason and "unknown key 'bogus'" in reason
    assert str(config) in done.stderr
    start = run_hook(
        "claude", "session-start", payload(dirs, "SessionStart", source="startup"), home=dirs.home
    )
    assert str(config) in str(answer(start)["systemMessage"])
    post = ran(dirs, "pytest")
    assert answer(post)["decision"] == "block"


def test_session_start_and_stop_are_quiet_when_all_is_well(dirs: Dirs) -> None:
    for event, name in (("session-start", "SessionStart"), ("stop", "Stop")):
        done = run_hook("claude", event, payload(dirs, name, stop_hook_active=False), home=dirs.home)
        assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


def test_a_prompt_whose_state_cannot_be_written_is_blocked(dirs: Dirs) -> None:
    (dirs.home / ".rein").write_text("not a directory")
    done = run_hook("claude", "user-prompt-submit", payload(dirs, "UserPromptSubmit"), home=dirs.home)
    out = answer(done)
    assert out["decision"] == "block" and "session state" in str(out["reason"])


@pytest.mark.slow
def test_parallel_post_tool_use_calls_lose_nothing(dirs: Dirs) -> None:
    def one(index: int) -> int:
        body = payload(
            dirs,
            "PostToolUse",
            tool_name="Bash",
            tool_input={"command": f"pytest tests/test_{index}.py"},
            tool_response={"stdout": ""},
        )
        return run_hook("claude", "post-tool-use", body, home=dirs.home).returncode

    with ThreadPoolExecutor(max_workers=8) as pool:
        assert list(pool.map(one, range(8))) == [0] * 8
    lines = dirs.session_lines("claude", "sess-1")
    assert len(lines) == 8
    assert sorted(line["seq"] for line in lines) == list(range(1, 9))  # type: ignore[type-var]
    assert {line["data"]["command"] for line in lines} == {f"pytest tests/test_{i}.py" for i in range(8)}  # type: ignore[index]


def test_the_hook_process_imports_no_cli_framework_or_sdk(dirs: Dirs, imported: Imported) -> None:
    done = run_hook("claude", "pre-tool-use", bash(dirs, "ls"), home=dirs.home, cwd=dirs.project)
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    modules = imported()
    assert "rein.hooks.claude" in modules  # the record is the hook's own
    heavy = sorted(
        m
        for m in modules
        if m.split(".")[0] in {"typer", "rich", "click", "openai", "anthropic", "hyperscan", "yaml"}
        or m.startswith("rein.ttsr")
        or m in {"rein.hooks.codex", "rein.hooks.gemini", "rein.hooks.cursor", "rein.hooks._install"}
    )
    assert heavy == []


PAYLOADS = Path(__file__).parent / "payloads" / "claude"
"""Payloads captured from the real Claude Code 2.1.330 (a hook that saved its stdin) running
`pytest` passing, `pytest` failing and `git commit`; paths moved to /home/user."""

FAILED = """
[[observer]]
name = "failed"
writes = ["tests-failed"]
watch = { tool = "bash", command = "^pytest", exit_code = 1 }
"""


def captured(dirs: Dirs, name: str) -> dict[str, object]:
    """A captured payload, moved into `dirs` and the session the other helpers use."""
    body = json.loads((PAYLOADS / f"{name}.json").read_text())
    assert isinstance(body, dict)
    return {
        **body,
        "session_id": "sess-1",
        "cwd": str(dirs.project),
        "transcript_path": str(dirs.home / "t.jsonl"),
    }


def replay(dirs: Dirs, event: str, name: str) -> subprocess.CompletedProcess[str]:
    return run_hook("claude", event, captured(dirs, name), home=dirs.home)


def test_real_payloads_are_what_the_replays_assume() -> None:
    passed = json.loads((PAYLOADS / "post-tool-use-pytest-passed.json").read_text())
    failed = json.loads((PAYLOADS / "post-tool-use-failure-pytest-failed.json").read_text())
    assert passed["hook_event_name"] == "PostToolUse" and "error" not in passed
    assert failed["hook_event_name"] == "PostToolUseFailure" and "tool_response" not in failed
    assert failed["error"].startswith("Exit code 1\n")


@pytest.mark.slow
def test_a_real_passing_pytest_lets_the_commit_through(dirs: Dirs) -> None:
    prompt(dirs)
    commit = captured(dirs, "pre-tool-use-git-commit")
    assert decision(run_hook("claude", "pre-tool-use", commit, home=dirs.home))[1].startswith(
        "[steering:commit-after-tests@user]"
    )
    done = replay(dirs, "post-tool-use", "post-tool-use-pytest-passed")
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    done = run_hook("claude", "pre-tool-use", commit, home=dirs.home)
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    [entry] = [line for line in dirs.session_lines("claude", "sess-1") if line.get("type") == "tests-passed"]
    assert entry["data"]["exit_code"] == 0  # type: ignore[index]


@pytest.mark.slow
def test_a_real_failing_pytest_does_not(dirs: Dirs) -> None:
    prompt(dirs)
    done = replay(dirs, "post-tool-use-failure", "post-tool-use-failure-pytest-failed")
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    commit = captured(dirs, "pre-tool-use-git-commit")
    kind, reason = decision(run_hook("claude", "pre-tool-use", commit, home=dirs.home))
    assert kind == "deny" and reason.startswith("[steering:commit-after-tests@user]")


@pytest.mark.slow
def test_the_exit_code_of_a_failure_comes_from_its_error_text(dirs: Dirs) -> None:
    config = dirs.project / ".rein" / "steering.toml"
    config.write_text(config.read_text() + FAILED)
    done = replay(dirs, "post-tool-use-failure", "post-tool-use-failure-pytest-failed")
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    [entry] = dirs.session_lines("claude", "sess-1")
    assert entry["type"] == "tests-failed" and entry["data"]["exit_code"] == 1  # type: ignore[index]
    # Another code, or an error that names none as Claude Code does (an interrupt, a denial): no entry.
    for error in ("Exit code 2", "Exit code 1 and more", "Command timed out", "exit code 1"):
        body = {**captured(dirs, "post-tool-use-failure-pytest-failed"), "error": error}
        assert run_hook("claude", "post-tool-use-failure", body, home=dirs.home).stdout == ""
    assert len(dirs.session_lines("claude", "sess-1")) == 1


def test_a_failure_whose_error_is_not_text_is_refused(dirs: Dirs) -> None:
    body = {**captured(dirs, "post-tool-use-failure-pytest-failed"), "error": 1}
    out = answer(run_hook("claude", "post-tool-use-failure", body, home=dirs.home))
    assert out["decision"] == "block" and "`error` must be a string" in str(out["reason"])
