"""Growing snapshots: a snapshot that extends the previous one continues its scan, and reports exactly
what a scan of that snapshot alone would (the old `check_snapshot`); `restore()` while disabled."""

from __future__ import annotations

import json
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rein.ttsr import InjectionRecord, MatchContext, Rule, RuleMatch, TtsrManager, TtsrSettings, TtsrState
from rein.ttsr._fallback import WINDOW
from rein.ttsr._snapshots import KEPT_SCANS, ends_on_assertion
from tests.ttsr.helpers import TEXT, names, rule, tool

# Rules whose end-of-text matches are short: the tail a snapshot rescans is a few bytes.
BOUNDED = (
    rule("condition: 'debugger\\b'", name="debugger"),
    rule("condition: 'foo$'", name="foo-end"),
    rule("trigger: '^import os$'", name="import-line"),
    rule("condition: 'bar(?!x)'", name="bar-not-x"),
    rule("condition: '(ab)\\1'", name="abab"),
    rule("condition: 'old_\\Kname\\b'", name="old-name"),
    rule("condition: 'Mode'", name="mode"),
    rule("condition: '\\bos\\b'\nscope: 'tool'\nglobs: '*.py'", name="os-in-py"),
    rule("condition: '(?<!x)yz'", name="yz"),
)
# Rules whose end-of-text matches have no bound: the tail is the last line, or `WINDOW` bytes.
UNBOUNDED = (
    rule("condition: ' +$'", name="trailing-spaces"),
    rule("trigger: 'import \\w+$'", name="import-word"),
    rule("condition: '\\Afoo'", name="starts-foo"),
    rule("condition: '^bar\\b'", name="bar-at-start"),
)
WORDS = ("debugger", "Mode", "foo", "bar", "x", "ab", "os", "import", "old_name", "yz", "é", " ", "\n", "y")


def key(match: RuleMatch) -> tuple[object, ...]:
    return (match.name, match.argument, match.offset, match.line, match.column, match.excerpt, match.path)


def whole(
    rules: tuple[Rule, ...], snapshots: list[str], context: MatchContext
) -> list[list[tuple[object, ...]]]:
    """The old behaviour: every snapshot scanned alone as one finished block (one manager, so a rule is
    still reported once per turn)."""
    manager = TtsrManager(rules)
    return [sorted(map(key, manager.check_delta(s, context, final=True))) for s in snapshots]


def grown(
    rules: tuple[Rule, ...], snapshots: list[str], context: MatchContext
) -> list[list[tuple[object, ...]]]:
    manager = TtsrManager(rules)
    return [sorted(map(key, manager.check_snapshot(s, context))) for s in snapshots]


@st.composite
def growing(draw: st.DrawFn, filler: int = 0) -> list[str]:
    """Snapshots of a text that grows piece by piece, with rewrites and cuts mixed in."""
    text = "z" * filler
    out: list[str] = []
    for _ in range(draw(st.integers(1, 30))):
        step = draw(st.sampled_from(("grow", "grow", "grow", "grow", "rewrite", "cut")))
        if step == "grow" or not text:
            text += "".join(draw(st.lists(st.sampled_from(WORDS), min_size=0, max_size=4)))
        elif step == "rewrite":
            at = draw(st.integers(0, len(text) - 1))
            text = text[:at] + draw(st.sampled_from(WORDS)) + text[at + 1 :]
        else:
            text = text[: draw(st.integers(0, len(text) - 1))]
        out.append(text)
    return out


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(growing())
def test_growing_text_reports_what_whole_scans_report(snapshots: list[str]) -> None:
    assert grown(BOUNDED, snapshots, TEXT) == whole(BOUNDED, snapshots, TEXT)


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(growing(), st.booleans())
def test_growing_json_arguments_report_what_whole_scans_report(
    snapshots: list[str], path_first: bool
) -> None:
    """The arguments' JSON grows (cut anywhere, inside escapes too); the path may come after the code."""
    final = snapshots[-1]
    document = {"path": "a.py", "content": final} if path_first else {"content": final, "path": "a.py"}
    encoded = json.dumps(document)
    cuts = sorted({min(len(encoded), len(s) * len(encoded) // max(1, len(final))) for s in snapshots})
    jsons = [encoded[:cut] for cut in cuts] + [encoded]
    context = tool()
    assert grown(BOUNDED, jsons, context) == whole(BOUNDED, jsons, context)


@settings(max_examples=60, deadline=None)
@given(growing(filler=WINDOW + 100))
def test_unbounded_end_matches_past_the_window(snapshots: list[str]) -> None:
    """Past `WINDOW` bytes the tail is a part of the text: `\\A`, `^` and `\\b` still mean the whole's."""
    rules = BOUNDED + UNBOUNDED
    assert grown(rules, snapshots, TEXT) == whole(rules, snapshots, TEXT)


# Extend, rewrite, shrink -------------------------------------------------------------------------------


def test_an_extension_reports_a_match_at_the_end_and_once() -> None:
    manager = TtsrManager(BOUNDED)
    assert manager.check_snapshot("let x = 1; debug", TEXT) == ()
    [match] = manager.check_snapshot("let x = 1; debugger", TEXT)
    assert (match.name, match.offset) == ("debugger", 11)
    assert names(manager.check_snapshot("let x = 1; debuggerMode", TEXT)) == ["mode"]
    assert manager.check_snapshot("let x = 1; debuggerMode debugger", TEXT) == ()


def test_an_end_match_is_not_kept_once_the_text_goes_on() -> None:
    """`debugger` at the end matches `debugger\\b`, held here by the glob; `debuggerX` no longer does."""
    manager = TtsrManager([rule("condition: 'debugger\\b'\nglobs: '*.py'", name="d")])
    assert manager.check_snapshot('{"content": "a debugger', tool()) == ()
    assert manager.check_snapshot('{"content": "a debuggerX", "path": "a.py"}', tool()) == ()
    manager.reset()
    assert names(manager.check_snapshot('{"content": "a debugger", "path": "a.py"}', tool())) == ["d"]


def test_scans_past_the_kept_number_start_over() -> None:
    manager = TtsrManager([BOUNDED[0]])
    assert manager.check_snapshot("debug", tool(call="first")) == ()
    for n in range(KEPT_SCANS + 4):
        assert manager.check_snapshot("other", tool(call=f"call-{n}")) == ()
    assert names(manager.check_snapshot("debugger", tool(call="first"))) == ["debugger"]


def test_a_rewrite_restarts_the_scan() -> None:
    manager = TtsrManager([BOUNDED[1]])
    assert names(manager.check_snapshot("a foo", TEXT)) == ["foo-end"]
    manager.reset()
    assert manager.check_snapshot("a fox and", TEXT) == ()
    # Not an extension of "a fox and": scanned afresh, so the earlier "fox" is gone.
    assert names(manager.check_snapshot("a fo and foo", TEXT)) == ["foo-end"]


def test_a_shorter_snapshot_restarts_the_scan() -> None:
    manager = TtsrManager([rule("condition: 'bar(?!x)'", name="b")])
    assert manager.check_snapshot("ba", TEXT) == ()
    assert manager.check_snapshot("barx", TEXT) == ()
    assert names(manager.check_snapshot("bar", TEXT)) == ["b"]


def test_a_held_rule_is_reported_when_its_gate_opens_later() -> None:
    manager = TtsrManager([BOUNDED[7]])
    assert manager.check_snapshot('{"content": "import os\\n", "pa', tool()) == ()
    [match] = manager.check_snapshot('{"content": "import os\\n", "path": "a.py"}', tool())
    assert (match.path, match.argument, match.line, match.column) == ("a.py", "content", 1, 8)


def test_a_changed_context_restarts_the_scan() -> None:
    manager = TtsrManager([BOUNDED[7]])
    assert manager.check_snapshot("import os", tool(json=False)) == ()
    assert names(manager.check_snapshot("import os\n", tool(json=False, paths=["b.py"]))) == ["os-in-py"]


def test_tool_calls_keep_separate_scans() -> None:
    manager = TtsrManager([BOUNDED[0]])
    assert manager.check_snapshot("debug", tool(call="a")) == ()
    assert manager.check_snapshot("other", tool(call="b")) == ()
    assert names(manager.check_snapshot("debugger", tool(call="a"))) == ["debugger"]


def test_a_chunk_rule_reads_the_whole_snapshot_as_one_chunk() -> None:
    manager = TtsrManager([rule("condition: 'ab+c'\nscope: chunk", name="c")])
    assert manager.check_snapshot("xab", TEXT) == ()
    assert names(manager.check_snapshot("xabbc", TEXT)) == ["c"]


def test_a_mapping_is_checked_like_its_json() -> None:
    manager = TtsrManager([BOUNDED[7]])
    assert names(manager.check_snapshot({"path": "a.py", "content": "import os"}, tool())) == ["os-in-py"]


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        ("debugger\\b", True),
        ("\\bdebugger", False),
        ("foo$", True),
        ("a(?=b)", True),
        ("(?:a|b\\b)+", True),
        ("(?:x\\b)?y", False),
        ("x(?:y\\b)?", True),
        ("x\\s*", False),
        ("(?>ab)", False),
        ("(?>a\\b)", True),
        ("(a)(?(1)b|c)", True),
        ("\\p{L}+", True),
    ],
)
def test_which_patterns_can_end_on_an_assertion(pattern: str, expected: bool) -> None:
    assert ends_on_assertion(pattern) is expected


@pytest.mark.slow
def test_ten_times_the_snapshots_cost_about_ten_times() -> None:
    manager = TtsrManager(BOUNDED + UNBOUNDED)
    code = "def f(x):\n    return x + 1  # debug the value\n" * 400

    def cost(count: int) -> float:
        manager.reset()
        started = time.perf_counter()
        for end in range(1, count + 1):
            manager.check_snapshot(code[:end], TEXT)
        return time.perf_counter() - started

    cost(500)
    small, large = cost(1_600), cost(16_000)
    assert large < 25 * small, (small, large)


# restore() while disabled ------------------------------------------------------------------------------


def test_restore_does_nothing_while_disabled() -> None:
    state = TtsrState(turns=7, records=(InjectionRecord(rule="debugger", turn=3, at=5.0, count=2),))
    off = TtsrManager(BOUNDED, TtsrSettings(enabled=False))
    off.restore(state)
    assert (off.turns, off.injection_records(), off.snapshot()) == (0, (), TtsrState(turns=0, records=()))
    on = TtsrManager(BOUNDED)
    on.restore(state)
    assert (on.turns, on.injection_records()) == (7, state.records)
