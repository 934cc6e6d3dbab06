"""The timebox in Claude Code, as Claude Code runs it: a real `rein hook claude <event>` process per
event, HOME in a temporary directory, payloads in the documented shape. The clock is real; a test
moves a budget's start back in the journal instead of waiting."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest

from tests.hooks.conftest import answer, run_hook

SESSION = "sess-tb"
MIN = 60_000


@pytest.fixture
def home(tmp_path: Path) -> Path:
    (tmp_path / "project").mkdir()
    return tmp_path


def payload(home: Path, event: str, **fields: object) -> dict[str, object]:
    return {
        "session_id": SESSION,
        "transcript_path": str(home / "transcript.jsonl"),
        "cwd": str(home / "project"),
        "permission_mode": "default",
        "hook_event_name": event,
        **fields,
    }


def prompt(home: Path, text: str) -> str:
    done = run_hook("claude", "user-prompt-submit", payload(home, "UserPromptSubmit", prompt=text), home=home)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    return done.stdout


def bash(home: Path, command: str) -> dict[str, object]:
    body = payload(home, "PreToolUse", tool_name="Bash", tool_input={"command": command}, tool_use_id="t1")
    return answer(run_hook("claude", "pre-tool-use", body, home=home))


def dig(value: object, *keys: str) -> object:
    """`value[key][key]...`, or None where a key is missing."""
    for key in keys:
        if value is None:
            return None
        assert isinstance(value, dict), value
        value = value.get(key)
    return value


def text(value: object, *keys: str) -> str:
    found = dig(value, *keys)
    assert isinstance(found, str), found
    return found


def journal(home: Path) -> Path:
    return home / ".rein" / "sessions" / "hooks" / "claude" / "timebox" / f"{SESSION}.jsonl"


def lines(home: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in journal(home).read_text().splitlines()]


def backdate(home: Path, ms: int) -> None:
    """Move every budget's start `ms` into the past, as if that much time had gone by."""
    items = lines(home)
    for item in items:
        data = item.get("data")
        if item["type"] == "timebox-active" and isinstance(data, dict):
            data["startTime"] = int(data["startTime"]) - ms
    journal(home).write_text("".join(json.dumps(item) + "\n" for item in items))


def wait_for(path: Path) -> None:
    deadline = time.monotonic() + 10
    while not path.exists():
        assert time.monotonic() < deadline, f"the on-stop command never created {path}"
        time.sleep(0.01)


def test_turns_are_counted_the_last_one_nudged_and_the_next_prompt_blocked(home: Path) -> None:
    marker = home / "stopped"
    set_answer = json.loads(prompt(home, f"$timebox turns:2 -- touch {marker}"))
    assert set_answer == {
        "decision": "block",
        "reason": "Timebox set: 2 turns. The agent is warned at 80% and stopped at 100%. "
        f"Then runs: touch {marker}",
    }
    assert prompt(home, "fix the bug") == ""
    second = json.loads(prompt(home, "and the tests"))
    assert text(second, "systemMessage") == (
        "Timebox: the budget is nearly spent (0 turns left of 2). The agent is told to wrap up."
    )
    assert text(second, "hookSpecificOutput", "hookEventName") == "UserPromptSubmit"
    assert text(second, "hookSpecificOutput", "additionalContext").startswith("CRITICAL TIMEBOX WARNING\n")
    third = json.loads(prompt(home, "one more thing"))
    assert third["decision"] == "block" and set(third) == {"decision", "reason"}
    # the seconds are wall time spent by the hook processes: a few on a loaded machine
    assert re.fullmatch(
        r"Timebox budget spent\. Used 2 turns, \ds\. The agent stops for this turn\. The chat continues\.",
        text(third, "reason"),
    )
    wait_for(marker)
    assert prompt(home, "ok, what is left?") == ""  # the chat continues
    recorded = [(line["type"], dig(line, "data", "softNudgeSent")) for line in lines(home)]
    assert recorded == [
        ("timebox-active", False),  # set
        ("timebox-turn", None),
        ("timebox-turn", None),
        ("timebox-active", True),  # nudged
        ("timebox-active", True),  # spent (active false)
        ("timebox-turn", None),
    ]


def test_time_running_out_mid_turn_denies_the_tool_call_and_ends_the_turn(home: Path) -> None:
    prompt(home, "$timebox 10m")
    assert prompt(home, "refactor the parser") == ""
    backdate(home, 8 * MIN + 30_000)
    steered = bash(home, "git reset --hard HEAD~1")  # steering denies it; the timebox adds its nudge
    assert text(steered, "hookSpecificOutput", "permissionDecision") == "deny"
    reason = text(steered, "hookSpecificOutput", "permissionDecisionReason")
    assert reason.startswith("[steering:no-reset-hard@defaults]")
    context = text(steered, "hookSpecificOutput", "additionalContext")
    assert context.startswith("IMPORTANT TIMEBOX WARNING\n")
    assert re.search(r"1m 2\ds left of 10m", context)
    assert text(steered, "systemMessage").startswith("Timebox: the budget is nearly spent")
    backdate(home, 2 * MIN)
    stopped = bash(home, "ls")
    assert stopped["continue"] is False
    assert re.match(r"Timebox budget spent\. Used 0 turns, 10m 3\ds\.", text(stopped, "stopReason"))
    assert text(stopped, "hookSpecificOutput", "permissionDecision") == "deny"
    assert "Do not call more tools" in text(stopped, "hookSpecificOutput", "permissionDecisionReason")
    again = bash(home, "ls")  # the rest of this turn is denied too
    assert text(again, "hookSpecificOutput", "permissionDecision") == "deny"


def test_a_session_start_restores_the_budget_or_reports_it_expired(home: Path) -> None:
    prompt(home, "$timebox 15m")
    start = payload(home, "SessionStart", source="resume")
    restored = answer(run_hook("claude", "session-start", start, home=home))
    assert text(restored, "systemMessage").startswith("Timebox restored. Timebox: 1")
    backdate(home, 16 * MIN)
    expired = answer(run_hook("claude", "session-start", start, home=home))
    assert expired == {
        "systemMessage": "Timebox (15m) ran out while the session was closed; it was not restored."
    }
    assert prompt(home, "carry on") == ""  # recorded off: no stop on the next prompt
    assert lines(home)[-1]["type"] == "timebox-off"


def test_a_token_budget_counts_the_transcript(home: Path) -> None:
    prompt(home, "$timebox tokens:1k")
    stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(time.time() + 5)) + ".000Z"
    usage = {"input_tokens": 600, "output_tokens": 500, "cache_read_input_tokens": 0}
    reply = {"type": "assistant", "timestamp": stamp, "message": {"id": "msg_1", "usage": usage}}
    (home / "transcript.jsonl").write_text(json.dumps(reply) + "\n")
    blocked = json.loads(prompt(home, "next step"))
    assert blocked["decision"] == "block"
    assert "Used 0 turns, 0s, 1.1k tokens." in text(blocked, "reason")
