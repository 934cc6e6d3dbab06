"""Codex hooks: Claude's schema in, only the fields Codex accepts out (it drops answers with others)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

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


def test_a_rule_that_asks_denies_because_codex_cannot_ask_from_a_hook(asking: Dirs) -> None:
    """Codex reports `permissionDecision: "ask"` as unsupported and runs the call: rein denies."""
    assert denial(pre(asking, "Bash", "shipit prod")).startswith("[steering:ask-to-ship@user]")


@pytest.mark.slow
def test_of_the_files_of_one_patch_a_block_wins_over_an_ask(asking: Dirs) -> None:
    asks = "*** Add File: CHANGELOG.md\n+x\n"
    blocks = "*** Add File: .env\n+TOKEN=1\n"
    for files in (asks + blocks, blocks + asks):
        patch = f"*** Begin Patch\n{files}*** End Patch\n"
        assert denial(pre(asking, "apply_patch", patch)).startswith("[steering:no-env-write@user]")
    only = f"*** Begin Patch\n{asks}*** End Patch\n"
    assert denial(pre(asking, "apply_patch", only)).startswith("[steering:ask-to-write-changelog@user]")


@pytest.mark.slow
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


@pytest.mark.slow
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


@pytest.mark.slow
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


PAYLOADS = Path(__file__).parent / "payloads" / "codex"
"""Captured from the real Codex 0.169.0 (`codex exec`, a PostToolUse hook that saved its stdin and a
copy of the rollout at `transcript_path` at that moment) running a passing `pytest` and a failing
`pytest tests/failing`; paths moved to /home/user; the rollout keeps only those two calls' lines."""

FAILED = """
[[observer]]
name = "failed"
writes = ["tests-failed"]
watch = { tool = "bash", command = "^pytest", exit_code = 1 }
"""


def captured(dirs: Dirs, name: str, rollout: Path | None) -> dict[str, object]:
    """A captured payload, moved into `dirs`, its rollout at `rollout` (None: `codex exec --ephemeral`)."""
    body = json.loads((PAYLOADS / f"{name}.json").read_text())
    assert isinstance(body, dict)
    where = str(rollout) if rollout is not None else None
    return {**body, "session_id": "019a-thread", "cwd": str(dirs.project), "transcript_path": where}


def rollout(dirs: Dirs) -> Path:
    path = dirs.home / "rollout.jsonl"
    path.write_text((PAYLOADS / "rollout.jsonl").read_text())
    return path


def replay(dirs: Dirs, name: str, where: Path | None) -> None:
    done = run_hook("codex", "post-tool-use", captured(dirs, name, where), home=dirs.home)
    assert (done.returncode, done.stdout, done.stderr) == (0, "", "")


def test_real_payloads_carry_the_bare_output_and_no_exit_code() -> None:
    passed = json.loads((PAYLOADS / "post-tool-use-pytest-passed.json").read_text())
    failed = json.loads((PAYLOADS / "post-tool-use-pytest-failed.json").read_text())
    assert (passed["tool_response"], failed["tool_response"]) == ("3 passed\n", "1 failed\n")
    assert {passed["tool_use_id"], failed["tool_use_id"]} == {"call_0", "call_1"}
    events = [json.loads(line) for line in (PAYLOADS / "rollout.jsonl").read_text().splitlines()]
    codes = {
        event["payload"]["item"]["id"]: event["payload"]["item"]["exit_code"]
        for event in events
        if event["payload"]["type"] == "item_completed"
    }
    assert codes == {"call_0": 0, "call_1": 1}


@pytest.mark.slow
def test_a_real_passing_pytest_lets_the_commit_through(dirs: Dirs) -> None:
    prompt = run_hook(
        "codex", "user-prompt-submit", payload(dirs, "UserPromptSubmit", prompt="x"), home=dirs.home
    )
    assert prompt.returncode == 0
    assert denial(pre(dirs, "Bash", "git commit -m x")).startswith("[steering:commit-after-tests@user]")
    replay(dirs, "post-tool-use-pytest-passed", rollout(dirs))
    assert pre(dirs, "Bash", "git commit -m x").stdout == ""
    [entry] = [
        line for line in dirs.session_lines("codex", "019a-thread") if line.get("type") == "tests-passed"
    ]
    assert entry["data"]["exit_code"] == 0  # type: ignore[index]


def test_a_real_failing_pytest_is_recorded_with_its_exit_code(dirs: Dirs) -> None:
    config = dirs.project / ".rein" / "steering.toml"
    config.write_text(config.read_text() + FAILED)
    replay(dirs, "post-tool-use-pytest-failed", rollout(dirs))
    [entry] = dirs.session_lines("codex", "019a-thread")
    assert entry["type"] == "tests-failed" and entry["data"]["exit_code"] == 1  # type: ignore[index]
    assert denial(pre(dirs, "Bash", "git commit -m x"))


@pytest.mark.slow
def test_without_the_rollout_the_exit_code_is_unknown(dirs: Dirs) -> None:
    """`codex exec --ephemeral` sends `transcript_path: null`; a rollout may also be gone, or not hold
    the call: nothing is recorded, so no rule takes a pass that may not have happened."""
    other = dirs.home / "other.jsonl"
    other.write_text((PAYLOADS / "rollout.jsonl").read_text().replace('"call_0"', '"call_9"'))
    for where in (None, dirs.home / "missing.jsonl", other, dirs.home):
        replay(dirs, "post-tool-use-pytest-passed", where)
    assert not dirs.session_file("codex", "019a-thread").exists()
    assert denial(pre(dirs, "Bash", "git commit -m x"))
