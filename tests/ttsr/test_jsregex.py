"""The JavaScript reading of a condition: what is accepted, what is refused and why, and the flags."""

from __future__ import annotations

import re

import pytest

from rein.ttsr import RuleError, TtsrManager, parse_rule
from tests.ttsr.helpers import names, stream


def js(frontmatter: str) -> object:
    return parse_rule(
        f"---\n{frontmatter}\n---\nBody.\n", name="r", path="/x/.pi/rules/r.md", dialect="javascript"
    )


@pytest.mark.parametrize(
    ("frontmatter", "message"),
    [
        ("condition: '(?x)a b'", "the group '(?x)' is not JavaScript syntax"),
        ("condition: '(?I)abc'", "is not JavaScript syntax"),
        ("condition: '(?i:abc)'", "is not JavaScript syntax"),
        ("condition: 'ab**'", "nothing to repeat"),
        ("condition: 'ab*+'", "nothing to repeat"),
        ("condition: '{2}x'", "nothing to repeat"),
        ("condition: 'x{3,2}'", "out of order"),
        ("condition: '[z-a]x'", "out of order"),
        ("condition: 'ab\\'", "at the end of the pattern"),
        ("condition: 'a[bc'", "without its closing"),
        ("condition: '\\uD83Dx'", "lone surrogate"),
        ("condition: '(?<n>a)\\k<m>'", "names no group"),
        ("condition: 'a\\qb'\nflags: u", "not a valid escape in 'u' mode"),
        ("condition: 'a{b'\nflags: u", "a lone '{'"),
        ("condition: '\\u{110000}'\nflags: u", "code point up to 10FFFF"),
        ("condition: 'a\\1b'\nflags: u", "refuses octal"),
        ("condition: 'abc'\nflags: y", "sticky"),
        ("condition: 'abc'\nflags: v", "set notation"),
        ("condition: 'abc'\nflags: q", "unknown JavaScript regex flag"),
        ("condition: '\\p{NotAProperty}'\nflags: u", "not a valid regular expression"),
    ],
)
def test_an_untranslatable_condition_is_one_line_naming_file_and_construct(
    frontmatter: str, message: str
) -> None:
    with pytest.raises(RuleError, match=re.escape(message)) as caught:
        js(frontmatter)
    text = str(caught.value)
    assert text.startswith("/x/.pi/rules/r.md:") and "\n" not in text


def test_the_same_conditions_are_fine_in_python() -> None:
    parse_rule("---\ncondition: '(?x)a b'\n---\nB.\n", name="r")
    parse_rule("---\ncondition: 'ab*+'\n---\nB.\n", name="r")


@pytest.mark.parametrize(
    ("frontmatter", "flags"),
    [
        ("condition: '(?i)abc'", "i"),
        ("condition: '(?sim)abc'", "ims"),
        ("condition: 'abc'\nflags: gi", "i"),
        ("condition: 'abc'\nflags: dus", "su"),
        ("condition: '(?m)abc'\nflags: u", "mu"),
    ],
)
def test_flags_from_the_leading_group_and_the_flags_field(frontmatter: str, flags: str) -> None:
    parsed = js(frontmatter)
    assert parsed.conditions[0].flags == flags  # type: ignore[attr-defined]


def test_a_line_extent_rule_keeps_dollar_at_each_line_end() -> None:
    rule = parse_rule(
        "---\ntrigger: '\\}$'\nscope: line\n---\nB.\n",
        name="r",
        path="/x/.pi/rules/r.md",
        dialect="javascript",
    )
    assert names(stream(TtsrManager([rule]), "f() {}\nnext line\n")) == ["r"]


def test_hyperscan_and_regex_get_their_own_word_boundary() -> None:
    condition = js("condition: '\\bfoo\\b'").conditions[0]  # type: ignore[attr-defined]
    assert condition.pattern == "(?a:\\b)foo(?a:\\b)"
    assert condition.for_hyperscan == "\\bfoo\\b"
    plain = js("condition: 'foo'").conditions[0]  # type: ignore[attr-defined]
    assert plain.hyperscan_pattern is None and plain.for_hyperscan == "foo"
