"""Codex hooks: Claude's schema in, only the fields Codex accepts out (it drops answers with others)."""

from __future__ import annotations

import subprocess

from tests.hooks.conftest import Dirs, Imported, answer, run_hook

# codex-rs/hooks/schema/generated/pre-tool-use.command.output.schema.json (additionalProperties: false)
TOP_FIELDS = {"continue", "hookSpecificOutput", "stopReason", "suppressOutput", "systemMessage"}
SPECIFIC_FIELDS = {"additionalContext", "hookEventName", "permissionDecision", "permissionDecisionReason"}


def payload(dirs: Dirs, event: str, **fields: object) -> dict[str, object]:
    return {
        "session_id": "019a-thread",
        "turn_id": "turn-1",
        "transcript_path": None,
        "cwd": str(dirs.project),
        "hook_event_name": event,
        "model": "gpt-5-codex",
        "permission_mode": "default",
        **fields,
    }


def pre(dirs: Dirs, tool: str, command: str) -> subprocess.CompletedProcess[str]:
    body = payload(dirs, "PreToolUse", tool_name=tool, tool_input={"command": command}, tool_use_id="call_1")
    return run_hook("codex", "pre-tool-use", body, home=dirs.home)


def denial(done: subprocess.CompletedProcess[str]) -> str:
    """The deny reason, after checking the answer holds only fields Codex's schema allows."""
    out = answer(done)
    assert set(out) <= TOP_FIELDS
    specific = out["hookSpecificOutput"]
    assert isinstance(specific, dict) and set(specific) <= SPECIFIC_FIELDS
    assert specific["hookEventName"] == "PreToolUse" and specific["permissionDecision"] == "deny"
    reason = specific["permissionDecisionReason"]
    assert isinstance(reason, str) and reason.strip()
    return reason


def test_allow_prints_nothing_because_codex_rejects_a_bare_allow(dirs: Dirs) -> None:
    done = pre(dirs, "Bash", "ls && git status")
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


def test_deny_uses_only_documented_fields_and_never_ask(dirs: Dirs) -> None:
    reason = denial(pre(dirs, "Bash", "git reset --hard"))
    assert reason.startswith("[steering:no-reset-hard@defaults]")


def test_apply_patch_is_checked_file_by_file(dirs: Dirs) -> None:
    patch = (
        "*** Begin Patch\n*** Update File: src/app.py\n@@\n-a\n+b\n"
        "*** Add File: config/.env\n+TOKEN=1\n*** End Patch\n"
    )
    assert denial(pre(dirs, "apply_patch", patch)).startswith("[steering:no-env-write@user]")
    moved = "*** Begin Patch\n*** Update File: a.txt\n*** Move to: .env\n@@\n+x\n*** End Patch\n"
    assert denial(pre(dirs, "apply_patch", moved)).startswith("[steering:no-env-write@user]")
    fine = "*** Begin Patch\n*** Update File: src/app.py\n@@\n-a\n+b\n*** End Patch\n"
    assert pre(dirs, "apply_patch", fine).stdout == ""
    assert "names no file" in denial(pre(dirs, "apply_patch", "not a patch"))


def test_observer_then_rule_across_processes(dirs: Dirs) -> None:
    prompt = run_hook(
        "codex", "user-prompt-submit", payload(dirs, "UserPromptSubmit", prompt="x"), home=dirs.home
    )
    assert (prompt.returncode, prompt.stdout) == (0, "")
    assert denial(pre(dirs, "Bash", "git commit -m x")).startswith("[steering:commit-after-tests@user]")
    failed = payload(
        dirs,
        "PostToolUse",
        tool_name="Bash",
        tool_input={"command": "pytest"},
        tool_response="Exit code: 1\nWall time: 2.1 seconds\nOutput:\n1 failed",
        tool_use_id="call_2",
    )
    assert run_hook("codex", "post-tool-use", failed, home=dirs.home).stdout == ""
    assert denial(pre(dirs, "Bash", "git commit -m x"))
    passed = {**failed, "tool_response": "Exit code: 0\nWall time: 2.1 seconds\nOutput:\n3 passed"}
    assert run_hook("codex", "post-tool-use", passed, home=dirs.home).stdout == ""
    assert pre(dirs, "Bash", "git commit -m x").stdout == ""


def test_a_response_without_an_exit_code_records_no_success(dirs: Dirs) -> None:
    body = payload(dirs, "PostToolUse", tool_name="Bash", tool_input={"command": "pytest"}, tool_response={})
    assert run_hook("codex", "post-tool-use", body, home=dirs.home).returncode == 0
    assert denial(pre(dirs, "Bash", "git commit -m x"))


def test_failures_answer_with_documented_blocking_fields(dirs: Dirs) -> None:
    garbage = run_hook("codex", "pre-tool-use", "{", home=dirs.home)
    assert denial(garbage).startswith("[steering:hook-error@rein]")
    assert "not valid JSON" in garbage.stderr
    (dirs.project / ".rein" / "steering.toml").write_text("rule = 3\n")
    assert "steering.toml" in denial(pre(dirs, "Bash", "ls"))
    post = payload(dirs, "PostToolUse", tool_name="Bash", tool_input={"command": "ls"}, tool_response="")
    assert set(answer(run_hook("codex", "post-tool-use", post, home=dirs.home))) == {"decision", "reason"}
    start = answer(
        run_hook("codex", "session-start", payload(dirs, "SessionStart", source="startup"), home=dirs.home)
    )
    assert set(start) == {"systemMessage"}


def test_a_codex_hook_does_not_import_claudes_timebox(dirs: Dirs, imported: Imported) -> None:
    done = pre(dirs, "Bash", "ls")
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")
    modules = imported()
    assert "rein.hooks.codex" in modules  # the record is the hook's own
    timebox = (
        "rein.timebox",
        "rein.hooks._claude_timebox",
        "rein.hooks._timebox",
        "rein.hooks._claude_transcript",
    )
    assert sorted(m for m in modules if m.startswith(timebox) or m == "rein.hooks.claude") == []
