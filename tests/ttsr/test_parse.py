"""Every frontmatter field of both rule formats, and the reasons a rule is refused."""

from __future__ import annotations

import pytest

from rein.ttsr import REMINDER_LIMIT, NotAStreamRule, Rule, RuleError, Scope, ToolScope, parse_rule
from tests.ttsr.helpers import rule


def test_mature_format_defaults() -> None:
    parsed = rule("condition: 'foo\\('\ndescription: No foo", "Use bar.")
    assert parsed.name == "r"
    assert parsed.format == "condition"
    assert parsed.extent == "accumulated"
    assert parsed.scope == Scope(text=True, thinking=False, any_tool=True)
    assert [c.pattern for c in parsed.conditions] == ["foo\\("]
    assert parsed.content == "Use bar."
    assert parsed.description == "No foo"
    assert (parsed.interrupt_mode, parsed.repeat_mode, parsed.repeat_gap) == (None, None, None)
    assert not parsed.always_apply and parsed.enabled and not parsed.counts_firings
    assert parsed.path == "/rules/r.md"


def test_condition_list_is_ored_and_legacy_ttsr_trigger_is_read() -> None:
    assert [c.pattern for c in rule("condition:\n  - 'a1'\n  - 'b2'").conditions] == ["a1", "b2"]
    assert [c.pattern for c in rule("ttsr_trigger: 'legacy'").conditions] == ["legacy"]
    assert rule("ttsrTrigger: 'legacy'").format == "condition"


@pytest.mark.parametrize(
    ("written", "pattern", "flags"),
    [
        ("(?i)foo", "foo", "i"),
        ("(?m)^foo$", "^foo$", "m"),
        ("(?s)a.b", "a.b", "s"),
        ("(?im)foo", "foo", "im"),
        ("(?mi)foo", "foo", "im"),
        ("(?ix)f o o", "(?x)f o o", "i"),
        ("(?i:foo)bar", "(?i:foo)bar", ""),
        ("foo(?i)", "foo(?i)", ""),
    ],
)
def test_leading_inline_flag_group(written: str, pattern: str, flags: str) -> None:
    condition = rule(f"condition: '{written}'").conditions[0]
    assert (condition.pattern, condition.flags, condition.written) == (pattern, flags, written)


def test_first_format_trigger_flags_line_default() -> None:
    parsed = rule('trigger: "import.*from [\'\\"]deprecated[\'\\"]"\nflags: "i"')
    assert parsed.format == "trigger"
    assert parsed.extent == "line"
    assert parsed.conditions[0].flags == "i"
    assert rule("trigger: 'x1'\nflags: 'gi'").conditions[0].flags == "i"


@pytest.mark.parametrize("extent", ["line", "chunk", "accumulated"])
def test_first_format_scope_is_an_extent(extent: str) -> None:
    parsed = rule(f"trigger: 'x1'\nscope: {extent}")
    assert parsed.extent == extent
    assert parsed.scope == Scope()


def test_first_format_max_firings_and_cooldown() -> None:
    parsed = rule("trigger: 'x1'\nmaxFirings: 3\ncooldown: 2.5")
    assert (parsed.max_firings, parsed.cooldown, parsed.counts_firings) == (3, 2.5, True)
    assert rule("trigger: 'x1'\nmax_firings: '2'").max_firings == 2


def test_mature_fields() -> None:
    parsed = rule(
        "condition: 'x1'\nscope: [thinking, 'tool:edit(*.py)']\nglobs: '*.py, src/**/*.ts'\n"
        "interruptMode: tool-only\nrepeatMode: after-gap\nrepeatGap: 3\nreminder: 'Short.'\n"
        "alwaysApply: true\nenabled: true"
    )
    assert parsed.scope == Scope(
        text=False, thinking=True, any_tool=False, tools=(ToolScope(name="edit", glob="*.py"),)
    )
    assert parsed.globs == ("*.py", "src/**/*.ts")
    assert (parsed.interrupt_mode, parsed.repeat_mode, parsed.repeat_gap) == ("tool-only", "after-gap", 3)
    assert parsed.content == "Short." and parsed.body == "Follow the rule."
    assert parsed.always_apply


def test_snake_and_kebab_keys_are_the_same_key() -> None:
    assert rule("condition: 'x1'\ninterrupt_mode: never").interrupt_mode == "never"
    assert rule("condition: 'x1'\ninterrupt-mode: prose-only").interrupt_mode == "prose-only"


def test_unknown_keys_of_other_tools_are_ignored() -> None:
    assert rule("condition: 'x1'\ntrigger_type: manual\nfoo: [1, 2]").conditions


def test_scope_mixes_extent_and_streams() -> None:
    parsed = rule("condition: 'x1'\nscope: 'line, text, Write'")
    assert parsed.extent == "line"
    assert parsed.scope == Scope(text=True, thinking=False, any_tool=False, tools=(ToolScope(name="write"),))


def test_no_condition_and_disabled_are_not_stream_rules() -> None:
    with pytest.raises(NotAStreamRule, match="no condition"):
        parse_rule("---\nalwaysApply: true\n---\nAlways.", name="a")
    with pytest.raises(NotAStreamRule, match="enabled: false"):
        rule("condition: 'x1'\nenabled: false")
    with pytest.raises(NotAStreamRule):
        parse_rule("Just markdown, no frontmatter.", name="plain")


@pytest.mark.parametrize(
    ("frontmatter", "message", "line"),
    [
        ("condition: '(unclosed'", "not a valid regular expression", 2),
        ("condition: 'a*'", "can match the empty string", 2),
        ("condition: '\\b'", "can match the empty string", 2),
        ("condition: 'x|'", "can match the empty string", 2),
        ("description: d\ncondition: 'x1'\nscope: 'tool:('", "bad scope token", 4),
        ("condition: 'x1'\nscope: []", "reaches no stream", 3),
        ("condition: 'x1'\nscope: 'line, chunk'", "two extents", 3),
        ("condition: 'x1'\nscope: 'tool:line'", "is an extent", 3),
        ("condition: 'x1'\nscope: 'tool()'", "glob in parentheses is empty", 3),
        ("condition: 'x1'\nscope: 7", "must be a string or a list", 3),
        ("condition: 'x1'\nglobs: '[abc'", "no closing", 3),
        ("condition: 'x1'\nglobs: '{a,b'", "no closing", 3),
        ("trigger: 'x1'\nflags: 'iq'", "unknown regex flag", 3),
        ("trigger: 'x1'\nmaxFirings: 2\nrepeatMode: once", "cannot be combined", 3),
        ("condition: [1, 2]", "string or a list of strings", 2),
    ],
)
def test_bad_fields_name_the_line(frontmatter: str, message: str, line: int) -> None:
    with pytest.raises(RuleError, match=message) as caught:
        rule(frontmatter)
    assert caught.value.line == line
    assert caught.value.path == "/rules/r.md"
    assert str(caught.value).startswith(f"/rules/r.md:{line}: ")


@pytest.mark.parametrize(
    ("frontmatter", "field", "message", "line"),
    [
        ("condition: 'x1'\ninterruptMode: sometimes", "interrupt_mode", "must be one of always", 3),
        ("condition: 'x1'\nrepeatMode: twice", "repeat_mode", "must be one of once", 3),
        ("condition: 'x1'\nrepeatGap: -1", "repeat_gap", "at least 0", 3),
        ("condition: 'x1'\nrepeatGap: 1.5", "repeat_gap", "whole number", 3),
        ("condition: 'x1'\nrepeatGap: many", "repeat_gap", "must be a number", 3),
        ("trigger: 'x1'\nmaxFirings: 0", "max_firings", "at least 1", 3),
        ("trigger: 'x1'\ncooldown: true", "cooldown", "must be a number", 3),
        ("condition: 'x1'\nalwaysApply: maybe", "always_apply", "true or false", 3),
        ("condition: 'x1'\ndescription: [1]", "description", "must be a string", 3),
        ("condition: 'x1'\nenabled: perhaps", "enabled", "true or false", 3),
    ],
)
def test_an_invalid_optional_field_is_dropped_with_a_warning(
    frontmatter: str, field: str, message: str, line: int
) -> None:
    parsed = rule(frontmatter)
    default = Rule(name="d", body="b", conditions=())
    assert getattr(parsed, field) == getattr(default, field)
    [warning] = parsed.warnings
    assert warning.severity == "warning"
    assert (warning.path, warning.line, warning.rule) == ("/rules/r.md", line, "r")
    assert message in warning.reason and warning.reason.endswith("the field is ignored")
    written = frontmatter.splitlines()[-1].split(":")[0]
    assert str(warning).startswith(f"/rules/r.md:{line}: {written}: ")


def test_a_valid_rule_has_no_warnings() -> None:
    assert rule("condition: 'x1'\nrepeatMode: after-gap\nrepeatGap: 2").warnings == ()


def test_reminder_limit_is_in_bytes() -> None:
    assert rule(f"condition: 'x1'\nreminder: '{'a' * REMINDER_LIMIT}'").reminder == "a" * REMINDER_LIMIT
    parsed = rule(f"condition: 'x1'\nreminder: '{'é' * 513}'")
    assert parsed.reminder is None and parsed.content == parsed.body
    [warning] = parsed.warnings
    assert "1026 bytes" in warning.reason and warning.severity == "warning"


def test_an_oversized_reminder_without_a_body_is_still_an_error() -> None:
    with pytest.raises(RuleError, match="no text to inject"):
        parse_rule(f"---\ncondition: 'x1'\nreminder: '{'é' * 513}'\n---\n", name="r", path="/rules/r.md")


def test_a_rule_needs_text_to_inject() -> None:
    with pytest.raises(RuleError, match="no text to inject"):
        parse_rule("---\ncondition: 'x1'\n---\n\n", name="empty")
    assert parse_rule("---\ncondition: 'x1'\nreminder: Only this.\n---\n", name="r").content == "Only this."


def test_a_rule_needs_a_name() -> None:
    with pytest.raises(RuleError, match="needs a name"):
        parse_rule("---\ncondition: 'x1'\n---\nbody", name=" ")
