"""Cursor hooks: `permission` before shell commands and file reads; after events feed observers."""

from __future__ import annotations

import subprocess

import pytest

from tests.hooks.conftest import Dirs, answer, run_hook


def payload(dirs: Dirs, event: str, **fields: object) -> dict[str, object]:
    return {
        "conversation_id": "conv-123",
        "generation_id": "gen-456",
        "hook_event_name": event,
        "workspace_roots": [str(dirs.project)],
        **fields,
    }


def shell(dirs: Dirs, command: str) -> subprocess.CompletedProcess[str]:
    body = payload(dirs, "beforeShellExecution", command=command, cwd=str(dirs.project))
    return run_hook("cursor", "before-shell-execution", body, home=dirs.home)


def test_allow_and_deny_with_messages_for_user_and_agent(dirs: Dirs) -> None:
    assert answer(shell(dirs, "npm test")) == {"permission": "allow"}
    out = answer(shell(dirs, "git stash drop"))
    assert out["permission"] == "deny"
    assert str(out["agent_message"]).startswith("[steering:no-stash-drop@defaults]")
    assert out["user_message"] == out["agent_message"] == out["agentMessage"] == out["userMessage"]


def test_before_read_file_answers_permission_only(dirs: Dirs) -> None:
    def read(path: str) -> dict[str, object]:
        body = payload(dirs, "beforeReadFile", file_path=path, content="x", attachments=[])
        return answer(run_hook("cursor", "before-read-file", body, home=dirs.home))

    assert read(str(dirs.project / "secrets" / "api.txt")) == {"permission": "deny"}
    assert read(str(dirs.project / "README.md")) == {"permission": "allow"}


@pytest.mark.slow
def test_a_rule_that_asks_has_cursor_ask_before_a_shell_command_and_denies_a_read(asking: Dirs) -> None:
    out = answer(shell(asking, "shipit prod"))
    assert out["permission"] == "ask"
    assert str(out["user_message"]).startswith("[steering:ask-to-ship@user] Shipping to production")
    assert out["user_message"] == out["agent_message"] == out["agentMessage"] == out["userMessage"]
    assert answer(shell(asking, "shipit prod; git stash drop"))["permission"] == "deny"
    body = payload(asking, "beforeReadFile", file_path="vault/key.txt", content="x", attachments=[])
    assert answer(run_hook("cursor", "before-read-file", body, home=asking.home)) == {"permission": "deny"}


@pytest.mark.slow
def test_edits_feed_observers_and_prompts_start_loops(dirs: Dirs) -> None:
    prompt = payload(dirs, "beforeSubmitPrompt", prompt="go", attachments=[])
    assert answer(run_hook("cursor", "before-submit-prompt", prompt, home=dirs.home)) == {"continue": True}
    assert answer(shell(dirs, "git push origin feature"))["permission"] == "deny"
    edits = [{"old_string": "a", "new_string": "b"}]
    edited = payload(dirs, "afterFileEdit", file_path=str(dirs.project / "docs" / "a.md"), edits=edits)
    assert answer(run_hook("cursor", "after-file-edit", edited, home=dirs.home)) == {}
    assert answer(shell(dirs, "git push origin feature")) == {"permission": "allow"}
    [loop, entry] = dirs.session_lines("cursor", "conv-123")
    assert (loop, entry["type"], entry["agent_loop"]) == ({"seq": 1, "agent_loop": 1}, "docs-edited", 1)


@pytest.mark.slow
def test_shell_results_without_an_exit_code_record_no_test_success(dirs: Dirs) -> None:
    done = payload(dirs, "afterShellExecution", command="pytest", cwd=str(dirs.project), output="3 passed")
    assert answer(run_hook("cursor", "after-shell-execution", done, home=dirs.home)) == {}
    assert answer(shell(dirs, "pytest -q && git commit -m x")) == {"permission": "allow"}
    assert answer(shell(dirs, "git commit -m x"))["permission"] == "deny"


@pytest.mark.slow
def test_failures_deny_or_stop_and_never_trace(dirs: Dirs) -> None:
    out = answer(run_hook("cursor", "before-shell-execution", "{}", home=dirs.home))
    assert out["permission"] == "deny" and "conversation_id" in str(out["agent_message"])
    (dirs.project / ".rein" / "steering.toml").write_text("disable_defaults = 1\n")
    out = answer(shell(dirs, "ls"))
    assert out["permission"] == "deny" and "disable_defaults must be true or false" in str(
        out["agent_message"]
    )
    edited = payload(dirs, "afterFileEdit", file_path="/x", edits="nope")
    after = run_hook("cursor", "after-file-edit", edited, home=dirs.home)
    assert (
        after.returncode == 1 and "`edits` must be a list" in after.stderr and "Traceback" not in after.stderr
    )
    bad_prompt = run_hook("cursor", "before-submit-prompt", "[]", home=dirs.home)
    assert answer(bad_prompt)["continue"] is False
