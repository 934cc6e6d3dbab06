"""The Claude Code adapter's decisions and answers in-process: a fixed clock, a temporary home, a fake
event beside the real ones. (test_claude_hooks runs the same through real hook processes.)"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rein.hooks._claude_timebox import COMMAND, Reply, decide, render, timebox_args, timeboxed
from rein.hooks._claude_transcript import transcript_tokens
from rein.hooks._run import Answer, Event, Outcome, Payload, Request, handle
from rein.hooks._timebox_journal import journal_path, open_journal

T0 = 1_700_000_000_000
MIN = 60_000
SESSION = "s-1"


class Claude:
    """One Claude Code session's hook events, decided in-process at the time `now`."""

    def __init__(self, home: Path) -> None:
        self.home = home
        self.now = T0
        self.ran: list[str] = []

    def event(self, name: str, **fields: object) -> Reply:
        payload = {"session_id": SESSION, "cwd": str(self.home), "hook_event_name": name, **fields}
        reply, commands = decide(name, payload, session=SESSION, home=self.home, now=self.now)
        self.ran.extend(commands)
        return reply

    def prompt(self, text: str = "go") -> Reply:
        return self.event("UserPromptSubmit", prompt=text)

    def tool(self, name: str = "PreToolUse") -> Reply:
        return self.event(name, tool_name="Bash", tool_input={"command": "ls"})

    def lines(self) -> list[str]:
        return [
            json.loads(line)["type"] for line in journal_path(self.home, SESSION).read_text().splitlines()
        ]


@pytest.fixture
def claude(tmp_path: Path) -> Claude:
    return Claude(tmp_path)


def test_timebox_args() -> None:
    prompt = "UserPromptSubmit"
    assert timebox_args(prompt, {"prompt": "$timebox 15m turns:3"}) == "15m turns:3"
    assert timebox_args(prompt, {"prompt": "  $timebox\n"}) == ""
    assert timebox_args(prompt, {"prompt": "$timebox off -- x\ny"}) == "off -- x\ny"
    assert timebox_args(prompt, {"prompt": "$timeboxes"}) is None
    assert timebox_args(prompt, {"prompt": "please $timebox 5m"}) is None
    assert timebox_args(prompt, {"prompt": 3}) is None
    assert timebox_args(prompt, {}) is None
    assert timebox_args("PreToolUse", {"prompt": "$timebox 5m"}) is None
    assert COMMAND == "$timebox"


def test_a_session_without_a_timebox_gets_nothing_and_no_file(claude: Claude) -> None:
    for reply in (claude.prompt(), claude.tool(), claude.event("SessionStart"), claude.event("Stop")):
        assert reply == Reply()
    assert not journal_path(claude.home, SESSION).parent.exists()


def test_timebox_commands_are_consumed_with_their_report(claude: Claude) -> None:
    assert claude.prompt("$timebox") == Reply(
        notices=(
            "Timebox: no budget given. Usage: $timebox 15m | 30s | 2h | 90 (minutes) | turns:5 | "
            "tokens:200k, combined as you like, [-- command to run on stop]; $timebox status; $timebox off.",
        ),
        consumed=True,
    )
    assert claude.prompt("$timebox off").notices == ("No active timebox.",)
    set_reply = claude.prompt("$timebox 15m turns:4")
    assert set_reply.consumed and set_reply.notices[0].startswith("Timebox set: 15m, 4 turns.")
    claude.now += 3 * MIN
    assert claude.prompt("$timebox status").notices == (
        "Timebox: 12m 0s left (15m budget) | 4 turns left (0/4)",
    )
    assert claude.prompt("$timebox off").notices == ("Timebox disabled.",)
    assert claude.prompt() == Reply()
    assert claude.lines() == ["timebox-active", "timebox-off"]  # prompts count only with a timebox


def test_turns_the_look_ahead_nudge_the_stop_and_the_chat_going_on(claude: Claude) -> None:
    claude.prompt("$timebox turns:3 -- lmk done")
    assert claude.prompt() == Reply()
    assert claude.prompt() == Reply()
    last = claude.prompt()
    assert last.notices == (
        "Timebox: the budget is nearly spent (0 turns left of 3). The agent is told to wrap up.",
    )
    [context] = last.context
    assert context.startswith("CRITICAL TIMEBOX WARNING")
    assert claude.tool() == Reply()  # the last allowed turn runs; its own prompt does not stop it
    assert claude.event("Stop") == Reply()
    blocked = claude.prompt()
    assert blocked.stop and blocked.notices[0].startswith("Timebox budget spent (3 turns). Used 3 turns")
    assert claude.ran == ["lmk done"]
    assert claude.prompt() == Reply()
    assert claude.tool() == Reply()
    assert claude.ran == ["lmk done"]


def test_time_nudges_mid_turn_once_then_stops_the_turn(claude: Claude) -> None:
    claude.prompt("$timebox 10m")
    claude.prompt()
    claude.now += 8 * MIN
    nudged = claude.tool("PostToolUse")
    assert nudged.notices[0].startswith("Timebox: the budget is nearly spent (2m 0s left of 10m)")
    assert nudged.context[0].startswith("IMPORTANT TIMEBOX WARNING") and not nudged.stop
    assert claude.tool() == Reply()
    second = claude.prompt()  # every prompt after the nudge carries the warning
    assert second.notices == () and second.context[0].startswith("IMPORTANT")
    claude.now += 2 * MIN
    stopped = claude.tool()
    assert stopped.stop and stopped.notices == (
        "Timebox budget spent (10m). Used 1 turn, 10m 0s. The agent stops for this turn. The chat continues.",
    )
    assert claude.tool() == Reply(notices=("Timebox budget spent.",), stop=True)
    assert claude.tool("PostToolUse") == Reply()
    claude.prompt()
    assert claude.tool() == Reply()


def test_a_stop_at_the_end_of_a_run_is_reported_and_runs_the_command(claude: Claude) -> None:
    claude.prompt("$timebox 1m -- say done")
    claude.prompt()
    claude.now += MIN
    stop = claude.event("Stop", stop_hook_active=False)
    assert stop.stop and stop.notices[0].startswith("Timebox budget spent (")
    assert claude.ran == ["say done"]
    assert claude.prompt() == Reply()


def test_session_start_restores_expires_or_ignores(claude: Claude) -> None:
    claude.prompt("$timebox 10m")
    claude.now += 9 * MIN
    restored = claude.event("SessionStart", source="resume")
    assert restored == Reply(notices=("Timebox restored. Timebox: 1m 0s left (10m budget) | no turn limit",))
    claude.now += MIN
    assert claude.event("SessionStart", source="resume").notices == (
        "Timebox (10m) ran out while the session was closed; it was not restored.",
    )
    assert claude.lines()[-1] == "timebox-off"
    assert claude.event("SessionStart", source="resume") == Reply()
    assert claude.prompt() == Reply()


def test_tokens_are_counted_from_the_transcript(claude: Claude, tmp_path: Path) -> None:
    transcript = tmp_path / "t.jsonl"
    claude.prompt("$timebox tokens:10k")
    stamp = "2023-11-14T22:13:21.000Z"  # T0 + 1s
    usage = {"input_tokens": 4000, "output_tokens": 3000, "cache_read_input_tokens": 1000}
    transcript.write_text(
        json.dumps({"type": "assistant", "timestamp": stamp, "message": {"id": "m1", "usage": usage}}) + "\n"
    )
    nudged = claude.event("PreToolUse", transcript_path=str(transcript), tool_name="Bash")
    assert nudged.notices[0].startswith("Timebox: the budget is nearly spent (2k tokens left of 10k)")


def test_the_transcript_is_read_only_for_a_budget_still_decided_on(
    claude: Claude, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from rein.hooks import _claude_timebox_state as _claude_state

    reads: list[int] = []

    def counting(path: str | None, start_time: int) -> int:
        reads.append(start_time)
        return transcript_tokens(path, start_time)

    monkeypatch.setattr(_claude_state, "transcript_tokens", counting)
    transcript = tmp_path / "t.jsonl"
    stamp = "2023-11-14T22:13:21.000Z"  # T0 + 1s
    usage = {"input_tokens": 4000, "output_tokens": 3000}
    transcript.write_text(
        json.dumps({"type": "assistant", "timestamp": stamp, "message": {"id": "m1", "usage": usage}}) + "\n"
    )
    where = {"transcript_path": str(transcript)}
    claude.prompt("$timebox tokens:100k")
    assert claude.event("SessionStart", source="resume", **where).notices[0].startswith("Timebox restored.")
    assert reads == [T0]  # restore and its status share one count
    claude.prompt("$timebox tokens:5k")
    reads.clear()
    assert claude.event("PreToolUse", tool_name="Bash", **where).stop
    assert reads == [T0]
    reads.clear()
    assert claude.event("PreToolUse", tool_name="Bash", **where).stop  # spent: still stopped this turn
    for name in ("PostToolUse", "Stop", "UserPromptSubmit", "PreToolUse", "SessionStart"):
        claude.event(name, tool_name="Bash", prompt="go", **where)
    assert reads == []


def test_transcript_tokens(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"

    def line(stamp: str, ident: object, **usage: object) -> str:
        return json.dumps({"type": "assistant", "timestamp": stamp, "message": {"id": ident, "usage": usage}})

    path.write_text(
        "\n".join(
            [
                line("2023-11-14T22:13:19.000Z", "old", input_tokens=999),  # before the start
                line("2023-11-14T22:13:20.000Z", "m1", input_tokens=10, output_tokens=1),
                line("2023-11-14T22:13:20.500Z", "m1", input_tokens=10, output_tokens=5),  # same reply
                line(
                    "2023-11-14T22:13:21.000Z",
                    None,
                    cache_creation_input_tokens=100,
                    cache_read_input_tokens=7,
                ),
                line("soon", "m3", input_tokens=1),
                json.dumps({"type": "assistant", "message": {"id": "m4", "usage": {"input_tokens": 1}}}),
                json.dumps(
                    {"type": "user", "timestamp": "2023-11-14T22:13:21.000Z", "message": {"usage": {}}}
                ),
                json.dumps(
                    {"type": "assistant", "timestamp": "2023-11-14T22:13:21.000Z", "message": "usage"}
                ),
                json.dumps(
                    {"type": "assistant", "timestamp": "2023-11-14T22:13:21.000Z", "message": {"usage": 1}}
                ),
                '{"usage": torn',
                "plain text",
            ]
        )
    )
    assert transcript_tokens(str(path), T0) == 15 + 107
    assert transcript_tokens(str(tmp_path / "missing"), T0) == 0
    assert transcript_tokens(None, T0) == 0


def answer_of(event: str, reply: Reply, stdout: str = "") -> dict[str, object]:
    rendered = render(event, reply, Answer(stdout=stdout, stderr="note\n"))
    assert rendered.stderr == "note\n"
    value = json.loads(rendered.stdout)
    assert isinstance(value, dict)
    return value


def test_render_in_claude_codes_hook_output() -> None:
    plain = Answer(stdout="")
    assert render("PreToolUse", Reply(), plain) is plain
    assert answer_of("UserPromptSubmit", Reply(notices=("set", "twice"), consumed=True)) == {
        "decision": "block",
        "reason": "set\ntwice",
    }
    assert answer_of("UserPromptSubmit", Reply(notices=("warn",), context=("WRAP", "UP"))) == {
        "systemMessage": "warn",
        "hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": "WRAP\n\nUP"},
    }
    assert answer_of("PostToolUse", Reply(notices=("spent",), stop=True)) == {
        "continue": False,
        "stopReason": "spent",
    }
    assert answer_of("Stop", Reply(notices=("spent",), context=("X",), stop=True)) == {
        "systemMessage": "spent"
    }
    assert answer_of("SessionStart", Reply(context=("X",))) == {
        "hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": "X"}
    }


def test_render_joins_steerings_answer() -> None:
    denied = json.dumps(
        {
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": "deny",
                "permissionDecisionReason": "[steering:x]",
            }
        }
    )
    assert answer_of("PreToolUse", Reply(context=("WRAP",)), denied)["hookSpecificOutput"] == {
        "hookEventName": "PreToolUse",
        "permissionDecision": "deny",
        "permissionDecisionReason": "[steering:x]",
        "additionalContext": "WRAP",
    }
    stopped = answer_of("PreToolUse", Reply(notices=("spent",), stop=True), denied)
    assert stopped["continue"] is False and stopped["stopReason"] == "spent"
    specific = stopped["hookSpecificOutput"]
    assert isinstance(specific, dict) and specific["permissionDecisionReason"].startswith("spent Do not call")


def fake_event(seen: list[str]) -> Event:
    def parse(payload: Payload) -> Request:
        seen.append("parse")
        return Request(session=str(payload["session_id"]), cwd="/")

    def render_outcome(outcome: Outcome) -> Answer:
        return Answer(
            stdout=json.dumps({"decision": "block", "reason": outcome.reason}) if outcome.failed else ""
        )

    return Event(name="UserPromptSubmit", kind="stop", parse=parse, render=render_outcome)


def test_timeboxed_events_decide_in_parse_and_answer_in_render(tmp_path: Path) -> None:
    seen: list[str] = []
    ran: list[str] = []
    events = timeboxed(
        {"prompt": fake_event(seen)}, clock=lambda: T0, home=lambda: tmp_path, run_on_stop=ran.append
    )
    event = events["prompt"]
    stdin = json.dumps({"session_id": "s", "prompt": "$timebox turns:1 -- lmk"})
    assert json.loads(handle("claude", event, stdin, home=tmp_path).stdout)["reason"].startswith(
        "Timebox set"
    )
    go = json.dumps({"session_id": "s", "prompt": "go"})
    assert "CRITICAL" in handle("claude", event, go, home=tmp_path).stdout  # the one turn is the last
    assert json.loads(handle("claude", event, go, home=tmp_path).stdout)["decision"] == "block"
    assert ran == ["lmk"]
    assert seen == ["parse"] * 3


def test_when_rein_fails_its_fail_closed_answer_goes_out_unchanged(tmp_path: Path) -> None:
    event = timeboxed({"prompt": fake_event([])}, home=lambda: tmp_path)["prompt"]
    done = handle("claude", event, "{not json", home=tmp_path)
    assert json.loads(done.stdout)["reason"].startswith("[steering:hook-error@rein]")
    (tmp_path / ".rein").write_text("not a directory")
    done = handle("claude", event, json.dumps({"session_id": "s", "prompt": "$timebox 5m"}), home=tmp_path)
    assert "session state" in json.loads(done.stdout)["reason"]


def test_the_journal_skips_torn_lines_and_numbers_after_them(tmp_path: Path) -> None:
    path = tmp_path / "j.jsonl"
    path.write_text('{"seq": 4, "type": "timebox-turn"}\n{"seq": 5, "type"\n[1]\n{"seq": "x", "type": "a"}\n')
    with open_journal(path) as journal:
        assert [line.seq for line in journal.lines] == [4]
        journal.append("timebox-off", {"disabledAt": 1})
    assert json.loads(path.read_text().splitlines()[-1]) == {
        "seq": 5,
        "type": "timebox-off",
        "data": {"disabledAt": 1},
    }
