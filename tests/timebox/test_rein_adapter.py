"""Spec 10.2: the timebox as a rein extension, with a faked session, UI, clock and timer (no sleeps).

Numbers in test names are the spec's cases; edge cases of spec 7.4 are named `edge_N`.
"""

from __future__ import annotations

from rein.agent import AgentEvent
from rein.builtins.timebox import extension
from rein.builtins.timebox._extension import DESCRIPTION
from rein.extensions import ExtensionAPI, Registry
from rein.timebox import ACTIVE, OFF, Budget, budget_data
from tests.timebox.rein_harness import MIN, T0, Harness, Session, reply


def active_data(harness: Harness) -> list[dict[str, object]]:
    return [dict(data) for kind, data in harness.session.entries if kind == ACTIVE]


def test_01_a_time_budget_is_recorded_announced_and_shown() -> None:
    tb = Harness()
    tb.command("15m")
    assert tb.session.kinds() == [ACTIVE]
    assert active_data(tb) == [budget_data(Budget(time_limit_ms=15 * MIN, start_time=T0))]
    assert tb.ui.notices == [
        ("info", "Timebox set: 15m. The agent is warned at 80% and stopped at 100%."),
    ]
    assert tb.status == "Timebox: 15m 0s left (15m budget) | no turn limit"


def test_02_a_turn_budget() -> None:
    tb = Harness()
    tb.session.add_user_messages(3)
    tb.command("turns:5")
    assert tb.extension.budget == Budget(turn_limit=5, start_time=T0, start_turn=3)
    assert tb.session.kinds() == [ACTIVE]
    assert tb.status == "Timebox: no time limit | 5 turns left (0/5)"


def test_03_a_combined_budget() -> None:
    tb = Harness()
    tb.command("15m turns:3")
    assert tb.extension.budget == Budget(time_limit_ms=15 * MIN, turn_limit=3, start_time=T0)


def test_04_bad_arguments_warn_and_change_nothing() -> None:
    tb = Harness()
    tb.command("15m")
    before = tb.extension.budget
    tb.command("15x")
    assert tb.extension.budget is before
    assert tb.session.kinds() == [ACTIVE]
    level, message = tb.ui.notices[-1]
    assert level == "warning" and message.startswith("Timebox: cannot read '15x'. Usage: /timebox")


def test_05_status_before_and_after_setting() -> None:
    tb = Harness()
    tb.command("status")
    assert tb.ui.notices[-1][0] == "info"
    assert tb.ui.notices[-1][1].startswith("No active timebox. Usage: /timebox")  # edge 3: the usage hint
    tb.command("15m turns:5")
    tb.clock.advance(2 * MIN + 26_000)
    tb.session.add_user_messages(2)
    tb.command("status")
    assert tb.ui.notices[-1] == ("info", "Timebox: 12m 34s left (15m budget) | 3 turns left (2/5)")
    assert tb.session.kinds() == [ACTIVE]


def test_06_off_with_an_active_budget() -> None:
    tb = Harness()
    tb.command("15m")
    tb.clock.advance(MIN)
    tb.command("off")
    assert tb.session.entries[-1] == (OFF, {"disabledAt": T0 + MIN})
    assert tb.extension.budget is None
    assert tb.status is None
    assert tb.scheduler.pending() == []
    assert tb.ui.notices[-1] == ("info", "Timebox disabled.")


def test_07_edge_2_off_without_a_budget_writes_nothing() -> None:
    tb = Harness()
    tb.command("disable")
    assert tb.ui.notices == [("info", "No active timebox.")]
    assert tb.session.entries == []


def test_08_edge_8_the_nudge_at_80_percent_time_fires_once() -> None:
    tb = Harness()
    tb.command("10m")
    tb.clock.advance(8 * MIN)
    tb.fire("turn_start")
    assert tb.ui.notices[-1] == (
        "warning",
        "Timebox: the budget is nearly spent (2m 0s left of 10m). The agent is told to wrap up.",
    )
    assert tb.extension.budget is not None and tb.extension.budget.soft_nudge_sent
    tb.clock.advance(30_000)
    tb.fire("turn_start")
    assert tb.ui.levels() == ["info", "warning"]


def test_09_the_nudge_at_80_percent_turns() -> None:
    tb = Harness()
    tb.command("turns:5")
    tb.session.add_user_messages(4)
    tb.fire("turn_start")
    assert tb.ui.notices[-1] == (
        "warning",
        "Timebox: the budget is nearly spent (1 turn left of 5). The agent is told to wrap up.",
    )


def test_10_after_the_nudge_the_system_prompt_carries_the_warning() -> None:
    tb = Harness()
    assert tb.before_agent_start() == "BASE"
    tb.command("10m turns:10")
    assert tb.before_agent_start() == "BASE"
    tb.clock.advance(8 * MIN)
    tb.fire("turn_start")
    prompt = tb.before_agent_start()
    assert prompt.startswith("BASE\n\nIMPORTANT TIMEBOX WARNING\n")
    assert "2m 0s left of 10m; 9 turns left of 10" in prompt
    assert "Wrap up now" in prompt
    assert tb.before_agent_start() == prompt  # every run from then on


def test_11_from_95_percent_the_warning_is_critical() -> None:
    tb = Harness()
    tb.command("10m")
    tb.clock.advance(8 * MIN)
    tb.fire("turn_start")
    tb.clock.advance(MIN + 30_000)
    assert "CRITICAL TIMEBOX WARNING" in tb.before_agent_start()


def test_12_the_hard_stop_on_time() -> None:
    tb = Harness()
    tb.command("10m")
    tb.session.add_user_messages(2)
    assert len(tb.scheduler.pending()) == 1
    tb.clock.advance(10 * MIN + 5000)
    tb.fire("turn_start")
    assert tb.ui.notices[-1] == (
        "error",
        "Timebox budget spent (10m). Used 2 turns, 10m 5s. "
        "The agent stops for this turn. The chat continues.",
    )
    assert tb.aborts == 1
    assert tb.extension.budget is not None and not tb.extension.budget.active
    assert tb.scheduler.pending() == []
    assert tb.scheduler.pending() == []
    assert tb.status == "Timebox: spent (10m)"


def test_13_the_hard_stop_on_turns() -> None:
    tb = Harness()
    tb.command("turns:3")
    tb.session.add_user_messages(4)
    tb.fire("turn_start")
    assert tb.ui.levels()[-1] == "error"
    assert tb.aborts == 1
    assert tb.extension.budget is not None and not tb.extension.budget.active
    assert tb.scheduler.pending() == []


def test_14_a_reload_restores_the_active_budget() -> None:
    session = Session()
    session.append_entry(ACTIVE, budget_data(Budget(time_limit_ms=15 * MIN, start_time=T0)))
    tb = Harness(session, now=T0 + 3 * MIN)
    tb.fire("session_start")
    assert tb.extension.budget == Budget(time_limit_ms=15 * MIN, start_time=T0)
    assert tb.ui.notices == [
        ("info", "Timebox restored. Timebox: 12m 0s left (15m budget) | no turn limit"),
    ]
    assert tb.status == "Timebox: 12m 0s left (15m budget) | no turn limit"
    assert len(tb.scheduler.pending()) == 1


def test_15_edge_4_a_reload_after_expiry_warns_and_restores_nothing() -> None:
    session = Session()
    session.append_entry(ACTIVE, budget_data(Budget(time_limit_ms=15 * MIN, start_time=T0)))
    tb = Harness(session, now=T0 + 16 * MIN)
    tb.fire("session_start")
    assert tb.extension.budget is None
    assert tb.ui.notices == [
        ("warning", "Timebox (15m) ran out while the session was closed; it was not restored."),
    ]
    assert tb.scheduler.pending() == []


def test_16_edge_5_a_reload_respects_the_newest_off() -> None:
    tb = Harness()
    tb.command("15m")
    tb.clock.advance(MIN)
    tb.command("off")
    again = tb.reload()
    assert again.extension.budget is None
    assert again.ui.notices == []


def test_a_reload_restores_a_budget_set_after_an_off() -> None:
    tb = Harness()
    tb.command("15m")
    tb.clock.advance(MIN)
    tb.command("off")
    tb.clock.advance(MIN)
    tb.command("turns:4")
    again = tb.reload()
    assert again.extension.budget == Budget(turn_limit=4, start_time=T0 + 2 * MIN)


def test_17_a_reload_re_derives_the_nudge() -> None:
    tb = Harness()
    tb.command("10m")
    tb.clock.advance(8 * MIN + 30_000)
    again = tb.reload()
    assert again.extension.budget is not None and again.extension.budget.soft_nudge_sent
    again.fire("turn_start")
    assert again.ui.levels() == ["info"]  # restored, and no second nudge
    assert "IMPORTANT TIMEBOX WARNING" in again.before_agent_start()


def test_18_edge_6_shutdown_clears_memory_only() -> None:
    tb = Harness()
    tb.command("15m")
    entries = list(tb.session.entries)
    tb.fire("session_shutdown")
    assert tb.extension.budget is None
    assert tb.status is None
    assert tb.scheduler.pending() == []
    assert tb.scheduler.pending() == []
    assert tb.session.entries == entries


def test_19_edge_10_the_status_timer_is_idempotent() -> None:
    tb = Harness()
    tb.command("15m")
    tb.command("15m turns:5")
    tb.command("status")
    tb.fire("turn_start")
    tb.before_agent_start()
    assert len(tb.scheduler.pending()) == 1
    assert all(timer.delay == 1.0 for timer in tb.scheduler.timers)


def test_the_timer_refreshes_the_status_every_second() -> None:
    tb = Harness()
    tb.command("15m")
    tb.clock.advance(1000)
    tb.scheduler.tick()
    assert tb.status == "Timebox: 14m 59s left (15m budget) | no turn limit"
    tb.clock.advance(1000)
    tb.scheduler.tick()
    assert tb.status == "Timebox: 14m 58s left (15m budget) | no turn limit"
    assert len(tb.scheduler.pending()) == 1
    tb.fire("session_shutdown")
    tb.scheduler.tick()
    assert tb.status is None


def test_the_timer_reads_no_transcript_events_do() -> None:
    tb = Harness()
    tb.command("turns:5")
    tb.session.add_user_messages(2)
    tb.scheduler.tick()
    assert tb.status == "Timebox: no time limit | 5 turns left (0/5)"
    tb.fire("turn_start")
    assert tb.status == "Timebox: no time limit | 3 turns left (2/5)"


def test_20_edge_1_a_new_budget_replaces_the_active_one_and_its_nudge() -> None:
    tb = Harness()
    tb.command("10m")
    tb.clock.advance(8 * MIN)
    tb.fire("turn_start")
    tb.command("turns:5")
    assert tb.extension.budget == Budget(turn_limit=5, start_time=T0 + 8 * MIN)
    assert tb.session.kinds() == [ACTIVE, ACTIVE]
    assert tb.before_agent_start() == "BASE"


def test_edge_7_and_12_the_hard_stop_and_its_command_fire_once() -> None:
    tb = Harness()
    tb.command("10m -- lmk done")
    tb.clock.advance(8 * MIN)
    tb.fire("turn_start")
    assert tb.ran == []  # not on the nudge
    tb.clock.advance(3 * MIN)
    tb.fire("turn_start")
    tb.fire("turn_start")
    tb.clock.advance(MIN)
    tb.fire("turn_start")
    assert tb.ran == ["lmk done"]
    assert tb.aborts == 1
    assert tb.ui.levels().count("error") == 1


def test_edge_12_off_runs_no_command() -> None:
    tb = Harness()
    tb.command("turns:1 -- lmk done")
    tb.command("off")
    tb.session.add_user_messages(3)
    tb.fire("turn_start")
    assert tb.ran == []


def test_edge_7_a_reload_after_the_stop_does_not_stop_again() -> None:
    tb = Harness()
    tb.command("turns:1 -- lmk done")
    tb.session.add_user_messages(1)
    tb.fire("turn_start")
    assert tb.ran == ["lmk done"]
    assert [data["active"] for data in active_data(tb)] == [True, False]
    again = tb.reload()
    again.fire("turn_start")
    assert again.extension.budget is None
    assert (again.aborts, again.ran, again.ui.notices) == (0, [], [])


def test_edge_9_a_combined_budget_nudges_and_stops_on_either_dimension() -> None:
    turns = Harness()
    turns.command("15m turns:5")
    turns.session.add_user_messages(4)
    turns.fire("turn_start")
    assert turns.ui.levels()[-1] == "warning"
    time = Harness()
    time.command("15m turns:5")
    time.clock.advance(15 * MIN)
    time.fire("turn_start")
    assert time.ui.levels()[-1] == "error" and time.aborts == 1


def test_edge_11_the_command_is_persisted_and_legacy_records_restore_without_it() -> None:
    tb = Harness()
    tb.command("15m -- lmk done")
    assert active_data(tb)[0]["onStopCommand"] == "lmk done"
    legacy = Session()
    legacy.append_entry(ACTIVE, {"timeLimitMs": 15 * MIN, "turnLimit": None, "startTime": T0, "active": True})
    restored = Harness(legacy, now=T0 + MIN)
    restored.fire("session_start")
    assert restored.extension.budget == Budget(time_limit_ms=15 * MIN, start_time=T0, on_stop_command=None)


def test_unreadable_records_are_skipped() -> None:
    session = Session()
    session.append_entry(ACTIVE, budget_data(Budget(turn_limit=3, start_time=T0)))
    session.append_entry(ACTIVE, {"startTime": "later"})
    tb = Harness(session, now=T0 + MIN)
    tb.fire("session_start")
    assert tb.extension.budget == Budget(turn_limit=3, start_time=T0)


def test_turns_count_the_prompts_before_the_run_so_the_last_one_is_warned() -> None:
    """`/timebox turns:2` and three prompts: the second run is told it is the last, the third stopped."""
    tb = Harness()
    tb.command("turns:2 -- lmk done")
    assert "WARNING" not in tb.prompt()
    assert tb.ui.levels() == ["info"]
    second = tb.prompt()
    assert second.startswith("BASE\n\nCRITICAL TIMEBOX WARNING")
    assert "0 turns left of 2 (the current turn counts as used)" in second
    assert tb.ui.levels() == ["info", "warning"] and tb.aborts == 0
    tb.prompt()
    assert tb.aborts == 1 and tb.ran == ["lmk done"]
    assert tb.ui.levels() == ["info", "warning", "error"]


def test_a_run_allowed_to_start_is_not_cut_by_its_own_prompt() -> None:
    tb = Harness()
    tb.command("turns:1")
    tb.before_agent_start()
    tb.fire("agent_start")
    tb.fire("turn_start")
    tb.session.add_user_messages(1)
    tb.fire("turn_start")  # the run's second turn, after a tool call
    assert tb.aborts == 0
    tb.fire("agent_end")
    tb.fire("turn_start")
    assert tb.aborts == 1


def test_tokens_count_each_reply_once_and_stop_at_the_limit() -> None:
    tb = Harness()
    tb.command("tokens:10k")
    answer = reply(5000)
    tb.fire("message_end", AgentEvent(type="message_end", message=answer))
    tb.fire("turn_end", AgentEvent(type="turn_end", message=answer))
    tb.fire("message_end", AgentEvent(type="message_end"))
    assert tb.extension.tokens == 5000
    assert tb.status == "Timebox: no time limit | no turn limit | 5k tokens left (5k/10k)"
    tb.fire("turn_end", reply(3000))  # a bare message as payload counts too
    tb.fire("turn_start")
    assert tb.ui.notices[-1] == (
        "warning",
        "Timebox: the budget is nearly spent (2k tokens left of 10k). The agent is told to wrap up.",
    )
    tb.fire("message_end", AgentEvent(type="message_end", message=reply(2000)))
    tb.fire("turn_start")
    assert tb.ui.notices[-1] == (
        "error",
        "Timebox budget spent (10k tokens). Used 0 turns, 0s, 10k tokens. "
        "The agent stops for this turn. The chat continues.",
    )
    assert tb.aborts == 1


def test_tokens_before_the_budget_do_not_count_and_a_reload_recounts_them() -> None:
    tb = Harness()
    tb.fire("message_end", AgentEvent(type="message_end", message=reply(9000)))
    tb.session.messages.append(reply(9000, timestamp=T0 - 1))
    tb.command("tokens:10k turns:9")
    assert tb.extension.tokens == 0
    tb.clock.advance(MIN)
    tb.prompt(tokens=4000)
    tb.prompt(tokens=4000)
    assert tb.extension.tokens == 8000
    again = tb.reload()
    assert again.extension.tokens == 8000
    assert again.extension.budget is not None and again.extension.budget.soft_nudge_sent


def test_the_command_is_registered_with_completions() -> None:
    tb = Harness()
    command = tb.registry.commands["timebox"]
    assert command.description == DESCRIPTION
    assert list(command.completions) == [
        "off", "status", "15m", "30m", "1h", "turns:3", "turns:5", "turns:10", "tokens:200k",
    ]  # fmt: skip
    assert set(tb.registry.handlers) == {
        "session_start", "session_tree", "session_shutdown", "before_agent_start", "turn_start",
        "agent_end", "message_end", "turn_end", "tool_call",
    }  # fmt: skip
    assert [name for name, _ in tb.registry.stream_hooks] == ["timebox"]


def test_extension_registers_the_command_and_handlers() -> None:
    registry = Registry()
    extension(ExtensionAPI("timebox", registry, Session()))
    assert "timebox" in registry.commands
    assert [name for name, _ in registry.handlers["turn_start"]] == ["timebox"]
