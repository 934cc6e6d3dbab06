"""Issue 35: "ran out while the session was closed" only when it did (not after `-c` of a session
whose budget ran out while it was open, not after `/tree`)."""

from __future__ import annotations

from rein.timebox import ACTIVE, Budget, budget_data
from tests.timebox.rein_harness import MIN, T0, Harness, Session

CLOSED = "Timebox (15m) ran out while the session was closed; it was not restored."


def test_a_budget_that_ran_out_while_open_is_recorded_spent_at_shutdown() -> None:
    tb = Harness()
    tb.command("15m")
    tb.clock.advance(16 * MIN)
    tb.fire("session_shutdown")
    assert tb.session.kinds() == [ACTIVE, ACTIVE]
    assert tb.session.entries[-1][1]["active"] is False
    tb.clock.advance(MIN)
    again = tb.reload()
    assert again.extension.budget is None
    assert again.ui.notices == []


def test_a_budget_still_running_at_shutdown_writes_nothing_and_is_restored() -> None:
    tb = Harness()
    tb.command("15m")
    tb.clock.advance(MIN)
    tb.fire("session_shutdown")
    assert tb.session.kinds() == [ACTIVE]
    again = tb.reload()
    assert again.extension.budget == Budget(time_limit_ms=15 * MIN, start_time=T0)


def test_a_branch_switch_keeps_a_budget_that_ran_out_meanwhile_and_the_next_turn_stops() -> None:
    tb = Harness()
    tb.command("15m")
    tb.clock.advance(16 * MIN)
    tb.fire("session_tree", "leaf")
    assert CLOSED not in [message for _, message in tb.ui.notices]
    assert tb.extension.budget is not None and tb.extension.budget.active
    tb.fire("turn_start")
    assert tb.ui.levels()[-1] == "error" and tb.aborts == 1


def test_an_expiry_while_closed_is_told_once() -> None:
    session = Session()
    session.append_entry(ACTIVE, budget_data(Budget(time_limit_ms=15 * MIN, start_time=T0)))
    tb = Harness(session, now=T0 + 16 * MIN)
    tb.fire("session_start")
    assert tb.ui.notices == [("warning", CLOSED)]
    tb.fire("session_tree", "leaf")
    assert tb.ui.notices == [("warning", CLOSED)]
    again = tb.reload()
    assert again.ui.notices == [] and again.extension.budget is None
