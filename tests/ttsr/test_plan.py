"""Compiling a rule set: the path each condition takes, shared and cached databases, degraded builds."""

from __future__ import annotations

import pytest

from rein.ttsr import Condition, Rule, TtsrManager, plan_rules
from rein.ttsr import _plan as plan_module
from rein.ttsr._hyperscan import HyperscanFailure
from tests.ttsr.helpers import names, rule, stream


def coded(name: str, pattern: str, **fields: object) -> Rule:
    """A rule built in code, skipping the parser's checks."""
    return Rule(name=name, body="b", conditions=(Condition(pattern=pattern, written=pattern),), **fields)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("pattern", "extent", "engine", "confirm", "gate"),
    [
        ("console\\.log\\(", "accumulated", "hyperscan", False, None),
        ("console\\.log\\(", "line", "hyperscan", False, None),
        ("foo\\s*bar", "line", "hyperscan", True, None),
        ("(a)b\\1", "accumulated", "prefilter", True, None),
        ("x(?=y)z", "accumulated", "prefilter", True, None),
        ("old_\\Kname", "accumulated", "fallback", True, "old_name"),
        ("\\Aimport os", "line", "fallback", True, "import\\ os"),
        ("ab{,2}c", "accumulated", "fallback", False, None),
        ("(x+x+)+\\Ky", "line", "fallback", False, None),
    ],
)
def test_matching_path_per_condition(
    pattern: str, extent: str, engine: str, confirm: bool, gate: str | None
) -> None:
    [planned] = plan_rules([coded("r", pattern, extent=extent)]).conditions
    assert (planned.engine, planned.confirm, planned.gate) == (engine, confirm, gate)


def test_notes_say_why() -> None:
    plan = plan_rules([coded("a", "(a)b\\1"), coded("b", "old_\\Kname"), coded("c", "ab{,2}c")])
    notes = [c.note for c in plan.conditions]
    assert notes[0] == "Back-references are unsupported."
    assert "gated by 'old_name'" in notes[1]
    assert "{,n}" in notes[2]


def test_conditions_hyperscan_calls_empty_are_refused() -> None:
    plan = plan_rules([coded("bad", "a*"), coded("good", "x1")])
    assert [r.name for r in plan.rules] == ["good"]
    [issue] = plan.issues
    assert (issue.rule, issue.severity) == ("bad", "error") and "empty string" in issue.reason


def test_sources_with_equal_rule_sets_share_a_database() -> None:
    plan = plan_rules([coded("a", "x1"), coded("b", "y1")])
    assert set(plan.sources) == {"text", "tool"}
    assert plan.sources["text"].stream_db is plan.sources["tool"].stream_db


def test_plans_are_cached_per_rule_set() -> None:
    rules = [rule("condition: 'x1'", name="a")]
    assert TtsrManager(rules).plan is TtsrManager(list(rules)).plan


def test_a_database_that_fails_to_build_degrades_to_the_fallback(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*_: object) -> None:
        raise HyperscanFailure("out of memory")

    monkeypatch.setattr(plan_module, "compile_database", refuse)
    mgr = TtsrManager([coded("a", "needle_one"), coded("b", "chunky", extent="chunk")])
    assert [c.engine for c in mgr.plan.conditions] == ["hyperscan", "hyperscan"]
    text = mgr.plan.sources["text"]
    assert [c.condition.pattern for c in text.stream_fallbacks] == ["needle_one"]
    assert [c.condition.pattern for c in text.chunk_fallbacks] == ["chunky"]
    assert "out of memory" in mgr.issues[0].reason and "fallback matcher" in mgr.issues[0].reason
    assert names(stream(mgr, "a needle_one and chunky", chunk=100)) == ["a", "b"]
