"""Lenient where the original agents are lenient: quoted scope lists, and invalid optional fields dropped
with a warning (the rule kept) instead of the whole rule refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from rein.ttsr import RuleError, Scope, discover_rules
from tests.ttsr.helpers import rule


@pytest.mark.parametrize(
    "line",
    [
        'scope: "text","thinking"',
        'scope: "text", "thinking"',
        "scope: 'text','thinking'",
        'scope: text, "thinking"',
        "scope: ['\"text\"', thinking]",
    ],
)
def test_a_quoted_scope_list_is_the_list(line: str) -> None:
    parsed = rule(f"condition: 'x1'\n{line}")
    assert parsed.scope == Scope(text=True, thinking=True, any_tool=False)
    assert parsed.warnings == ()


def test_a_quoted_list_keeps_globs_in_tool_tokens() -> None:
    parsed = rule('condition: \'x1\'\nscope: "text","tool:edit(*.{ts,tsx})"')
    assert parsed.scope.tokens() == ("text", "tool:edit(*.{ts,tsx})")


def test_a_bad_scope_token_is_still_an_error() -> None:
    with pytest.raises(RuleError, match="bad scope token"):
        rule('condition: \'x1\'\nscope: "text","tool:("')


def test_warnings_travel_through_discovery_and_the_rule_is_used(tmp_path: Path) -> None:
    cwd, home = tmp_path / "proj", tmp_path / "home"
    folder = cwd / ".pi/rules"
    folder.mkdir(parents=True)
    home.mkdir()
    (folder / "gap.md").write_text(
        "---\ncondition: 'x1'\nrepeatMode: sometimes\nrepeatGap: -3\ninterruptMode: always\n---\nBody.\n",
        encoding="utf-8",
    )
    found = discover_rules(cwd, home, builtin=False)
    [kept] = found.rules
    assert (kept.name, kept.repeat_mode, kept.repeat_gap, kept.interrupt_mode) == (
        "gap",
        None,
        None,
        "always",
    )
    assert [(i.severity, i.line, i.rule) for i in found.issues] == [
        ("warning", 3, "gap"),
        ("warning", 4, "gap"),
    ]
    assert "repeatMode: must be one of once, after-gap, not 'sometimes'; the field is ignored" in str(
        found.issues[0]
    )
    assert str(found.issues[1]).startswith(f"{folder / 'gap.md'}:4: repeatGap: must be at least 0")


def test_a_shadowed_rule_reports_no_warnings(tmp_path: Path) -> None:
    cwd, home = tmp_path / "proj", tmp_path / "home"
    for folder in (cwd / ".rein/rules", cwd / ".pi/rules"):
        folder.mkdir(parents=True)
    home.mkdir()
    (cwd / ".rein/rules/r.md").write_text("---\ncondition: 'x1'\n---\nA.\n", encoding="utf-8")
    (cwd / ".pi/rules/r.md").write_text("---\ncondition: 'x1'\nrepeatGap: no\n---\nB.\n", encoding="utf-8")
    found = discover_rules(cwd, home, builtin=False)
    assert [i.severity for i in found.issues] == ["info"]


def test_the_condition_stays_strict() -> None:
    with pytest.raises(RuleError, match="not a valid regular expression"):
        rule("condition: '(x'\nrepeatMode: sometimes")
