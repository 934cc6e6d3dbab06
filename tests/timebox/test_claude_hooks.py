"""The timebox in Claude Code, as Claude Code runs it: a real `rein hook claude <event>` process per
event, HOME in a temporary directory, payloads in the documented shape. The clock is real; a test
moves a budget's start back in the journal instead of waiting, and checks a time a hook reports
against the test's own clock read around that hook's process, so a slow machine cannot fail it."""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass
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


def age(home: Path, ms: int) -> None:
    """Make every budget `ms` old by the test's clock, as if set that long ago: the hook run next adds
    only its own start-up time (under `run_rein`'s 60 s timeout)."""
    items = lines(home)
    for item in items:
        data = item.get("data")
        if item["type"] == "timebox-active" and isinstance(data, dict):
            data["startTime"] = now_ms() - ms
    journal(home).write_text("".join(json.dumps(item) + "\n" for item in items))


def now_ms() -> int:
    """The wall clock, read as the hook reads its own."""
    return time.time_ns() // 1_000_000


def started(home: Path) -> int:
    """The newest budget's start, as the journal has it."""
    starts = [dig(line, "data", "startTime") for line in lines(home) if line["type"] == "timebox-active"]
    assert starts and isinstance(starts[-1], int), starts
    return starts[-1]


@dataclass(frozen=True, slots=True)
class Window:
    """When a hook process ran, by the test's clock: it read its own clock between the two."""

    before: int
    after: int

    def elapsed(self, start: int) -> range:
        """The whole seconds since `start` the hook can have counted."""
        return range((self.before - start) // 1000, (self.after - start) // 1000 + 1)

    def left(self, start: int, limit: int) -> range:
        """The whole seconds of `limit` it can have found left."""
        return range((limit - self.after + start) // 1000, (limit - self.before + start) // 1000 + 1)


DURATION = r"((?:\d+m )?\d+s)"
"""A duration under an hour as the timebox writes it (`7s`, `1m 25s`)."""


def seconds(shown: str) -> int:
    found = re.fullmatch(r"(?:(\d+)m )?(\d+)s", shown)
    assert found is not None, shown
    return int(found[1] or 0) * 60 + int(found[2])


def wait_for(path: Path) -> None:
    deadline = time.monotonic() + 60  # a failure bound only: the command is a detached `touch`
    while not path.exists():
        assert time.monotonic() < deadline, f"the on-stop command never created {path}"
        time.sleep(0.01)


@pytest.mark.slow
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
    before = now_ms()
    third = json.loads(prompt(home, "one more thing"))
    window = Window(before, now_ms())
    assert third["decision"] == "block" and set(third) == {"decision", "reason"}
    used = re.fullmatch(
        rf"Timebox budget spent \(2 turns\)\. Used 2 turns, {DURATION}\. The agent stops for this turn\. "
        r"The chat continues\.",
        text(third, "reason"),
    )
    assert used is not None, third
    # the wall time the hook processes took: a few seconds on a loaded machine
    assert seconds(used[1]) in window.elapsed(started(home))
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


@pytest.mark.slow
def test_time_running_out_mid_turn_denies_the_tool_call_and_ends_the_turn(home: Path) -> None:
    prompt(home, "$timebox 10m")
    assert prompt(home, "refactor the parser") == ""
    age(home, 8 * MIN + 30_000)  # 85 percent: nudged, IMPORTANT (CRITICAL is 60 s away, at 95)
    before = now_ms()
    steered = bash(home, "git reset --hard HEAD~1")  # steering denies it; the timebox adds its nudge
    window = Window(before, now_ms())
    assert text(steered, "hookSpecificOutput", "permissionDecision") == "deny"
    reason = text(steered, "hookSpecificOutput", "permissionDecisionReason")
    assert reason.startswith("[steering:no-reset-hard@defaults]")
    context = text(steered, "hookSpecificOutput", "additionalContext")
    assert context.startswith("IMPORTANT TIMEBOX WARNING\n")
    left = re.search(rf"spent: {DURATION} left of 10m\.", context)
    assert left is not None, context
    assert seconds(left[1]) in window.left(started(home), 10 * MIN)  # about 1m 30s
    assert text(steered, "systemMessage").startswith("Timebox: the budget is nearly spent")
    age(home, 10 * MIN + 30_000)
    before = now_ms()
    stopped = bash(home, "ls")
    window = Window(before, now_ms())
    assert stopped["continue"] is False
    used = re.match(
        rf"Timebox budget spent \(10m\)\. Used 0 turns, {DURATION}\.", text(stopped, "stopReason")
    )
    assert used is not None, stopped
    assert seconds(used[1]) in window.elapsed(started(home))  # about 10m 30s
    assert text(stopped, "hookSpecificOutput", "permissionDecision") == "deny"
    assert "Do not call more tools" in text(stopped, "hookSpecificOutput", "permissionDecisionReason")
    again = bash(home, "ls")  # the rest of this turn is denied too
    assert text(again, "hookSpecificOutput", "permissionDecision") == "deny"


@pytest.mark.slow
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
    before = now_ms()
    blocked = json.loads(prompt(home, "next step"))
    window = Window(before, now_ms())
    assert blocked["decision"] == "block"
    used = re.search(rf"Used 0 turns, {DURATION}, 1\.1k tokens\.", text(blocked, "reason"))
    assert used is not None, blocked
    assert seconds(used[1]) in window.elapsed(started(home))  # 0s, or a few on a loaded machine
