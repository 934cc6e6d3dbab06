"""The hold-back window of a rule set (`hold_windows`) and the eager matcher a proxy relies on: a match
is reported on the delta that completes it (plus its margin), so text further back is final."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rein.ttsr import HoldWindow, TtsrManager, hold_windows, longest_match
from tests.ttsr.helpers import TEXT, rule


@pytest.mark.parametrize(
    ("pattern", "width"),
    [
        (r"console\.log\(", 12),
        (r"a{2,5}b", 6),
        (r"(?=x)abc", 3),
        (r"foo\s+bar", None),
        (r"\p{L}x", None),  # Python's parser does not read it: unknown, so unbounded
        (r"x\Ky", None),
        (r"(?:ab|cde)", 3),
    ],
)
def test_longest_match(pattern: str, width: int | None) -> None:
    assert longest_match(pattern) == width


def test_windows_per_extent_and_source() -> None:
    rules = [
        rule("condition: 'console\\.log\\('", name="acc"),
        rule("condition: 'TODO\\b'\nscope: line", name="line"),
        rule("condition: 'x+'\nscope: thinking", name="think"),
        rule("condition: 'abcdefghijklmnopqrstuvwxyz'\nscope: tool", name="tools"),
        rule("condition: 'q+'\nscope: chunk", name="chunk"),
    ]
    windows = hold_windows(TtsrManager(rules).plan, 64)
    assert windows["text"] == HoldWindow(span=13, line=5)  # 12 + 1 and 4 + 1: a margin for the match's end
    assert windows["thinking"] == HoldWindow(span=64, line=0, bounded=False, unbounded_rules=("think",))
    assert windows["tool"].span == 27  # the tool-only rule counts for tools alone; a chunk rule for none


def test_line_rule_with_bounded_width_holds_its_width() -> None:
    windows = hold_windows(TtsrManager([rule("condition: 'TODO'\nscope: line")]).plan, 64)
    assert windows["text"].line == 5
    assert windows["text"].span == 0


def test_held_is_the_larger_of_span_and_the_unfinished_line() -> None:
    window = HoldWindow(span=4, line=10)
    assert window.held(100, 98) == 4  # two characters of line: the span wins
    assert window.held(100, 80) == 10  # twenty of line, at most ten held
    assert window.held(3, 0) == 3  # never more than the stream


def test_cap_bounds_every_window() -> None:
    windows = hold_windows(TtsrManager([rule("condition: 'a\\s+b'")]).plan, 32)
    assert windows["text"].span == 32
    assert windows["text"].unbounded_rules == ("r",)


@settings(max_examples=150, deadline=None)
@given(
    before=st.text(alphabet="ab \n", max_size=60),
    cuts=st.lists(st.integers(min_value=1, max_value=9), min_size=1, max_size=40),
    pattern=st.sampled_from([r"(?<!x)needle\d", r"needle(?=\d)", r"needle\d\b", r"ne+dle\d"]),
)
def test_eager_matcher_reports_within_the_window(before: str, cuts: list[int], pattern: str) -> None:
    """Whatever the engine path (prefilter, lookahead, fallback), an eager manager reports the match
    before more than its window of text has arrived past the match's start."""
    manager = TtsrManager([rule(f"condition: '{pattern}'")], eager=True)
    window = hold_windows(manager.plan, 256)["text"]
    text = before + "needle7" + " and more text after it" * 3
    start = len(before)
    fed = released = index = 0
    while fed < len(text):
        size = cuts[index % len(cuts)]
        index += 1
        matches = manager.check_delta(text[fed : fed + size], TEXT)
        fed = min(len(text), fed + size)
        if matches:
            assert matches[0].offset == start
            assert released <= start  # nothing of the match was released before it fired
            return
        # what a proxy releases after a delta that fired nothing: all but the held tail
        released = max(released, fed - window.held(fed, text.rfind("\n", 0, fed) + 1))
    pytest.fail("the rule never fired")
