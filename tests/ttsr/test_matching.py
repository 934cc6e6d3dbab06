"""Matching: extents, matches across deltas, per-stream buffers, the three engines, end-of-block checks."""

from __future__ import annotations

import time

import pytest

from rein.ttsr import MatchContext, TtsrManager
from tests.ttsr.helpers import TEXT, THINKING, fired_at, names, rule, stream, tool


def manager(*frontmatters: str) -> TtsrManager:
    return TtsrManager([rule(fm, name=f"r{i}") for i, fm in enumerate(frontmatters)])


@pytest.mark.parametrize("chunk", [1, 2, 3, 5, 8, 13, 100])
def test_match_spanning_deltas_is_found(chunk: int) -> None:
    found = stream(manager("condition: 'console\\.log\\('"), "a\nb console.log(1)\n", chunk=chunk)
    assert names(found) == ["r0"]
    assert (found[0].offset, found[0].line, found[0].column) == (4, 2, 3)
    assert found[0].excerpt.startswith("b console.log(")  # the line as far as it had streamed
    assert found[0].matched == "console.log("  # what a retry is asked to avoid


@pytest.mark.parametrize("chunk", [1, 4, 100])
def test_the_matched_text_is_the_conditions_own_match(chunk: int) -> None:
    [found] = stream(manager("condition: 'console\\.log\\s*\\('"), "é x console.log  (1)\n", chunk=chunk)
    assert found.matched == "console.log  ("
    [found] = stream(manager("condition: '\\b(\\w+) \\1\\b'"), "say it it again", chunk=chunk)
    assert found.matched == "it it"


def test_fires_as_soon_as_the_match_is_complete() -> None:
    at = fired_at(manager("condition: 'eval\\('"), "x = eval(1) + more text")
    assert at == {"r0": len("x = eval(")}


def test_accumulated_extent_spans_lines() -> None:
    text = "foo\n   bar"
    assert names(stream(manager("condition: 'foo\\s*bar'"), text)) == ["r0"]
    assert names(stream(manager("condition: 'foo\\s*bar'\nscope: line"), text)) == []
    assert names(stream(manager("condition: 'foo\\s*bar'\nscope: chunk"), text, chunk=100)) == ["r0"]


def test_line_extent_confirms_newline_crossing_hits_on_their_line() -> None:
    found = stream(manager("condition: 'foo\\s*bar'\nscope: line"), "foo\nbar\nfoo   bar\n", chunk=3)
    assert [(m.name, m.line) for m in found] == [("r0", 3)]


def test_line_extent_anchors_are_line_anchors() -> None:
    text = "x = 1\nimport os\ny"
    assert names(stream(manager("trigger: '^import os$'"), text)) == ["r0"]
    assert names(stream(manager("condition: '^import os$'"), text)) == []  # accumulated: stream edges
    assert names(stream(manager("condition: '(?m)^import os$'"), text)) == ["r0"]


def test_line_extent_stream_anchor_takes_the_fallback_per_line() -> None:
    mgr = manager("trigger: '\\Aimport'")
    assert mgr.plan.conditions[0].engine == "fallback"
    assert [m.line for m in stream(mgr, "x\nimport os\n")] == [2]


def test_chunk_extent_matches_within_one_delta_only() -> None:
    mgr = manager("trigger: 'needle'\nscope: chunk")
    assert names(stream(mgr, "a needle b", chunk=100)) == ["r0"]
    mgr.reset()
    assert names(stream(mgr, "a needle b", chunk=4)) == []  # "a ne" + "edle" never in one delta
    mgr.reset()
    found = stream(mgr, "xx\nneedle", chunk=100)
    assert (found[0].line, found[0].column) == (2, 1)


def test_chunk_extent_prefilter_and_fallback() -> None:
    mgr = manager("trigger: '(ab)\\1'\nscope: chunk", "trigger: '\\Kcd'\nscope: chunk")
    assert [c.engine for c in mgr.plan.conditions] == ["prefilter", "fallback"]
    assert names(stream(mgr, "abab cd", chunk=100)) == ["r0", "r1"]
    mgr.reset()
    assert names(stream(mgr, "abaX cd", chunk=100)) == ["r1"]


def test_trailing_word_boundary_waits_for_the_next_character() -> None:
    mgr = manager("condition: 'debugger\\b'")
    assert fired_at(mgr, "debuggerMode") == {}
    mgr.reset()
    assert fired_at(mgr, "debugger;") == {"r0": len("debugger;")}
    mgr.reset()
    assert fired_at(mgr, "x debugger") == {"r0": len("x debugger") + 1}  # at the end-of-block check


def test_dollar_fires_at_the_end_of_the_block() -> None:
    mgr = manager("condition: 'done$'")
    assert fired_at(mgr, "all done") == {"r0": len("all done") + 1}
    mgr.reset()
    assert stream(mgr, "all done", final=False) == []


def test_streams_are_separate() -> None:
    mgr = manager("condition: 'secret_key'\nscope: text, thinking, tool")
    assert mgr.check_delta("secret_", TEXT) == ()
    assert mgr.check_delta("key", THINKING) == ()
    assert mgr.check_delta("secret_", tool(call="a", json=False)) == ()
    assert mgr.check_delta("key", tool(call="b", json=False)) == ()
    assert names(mgr.check_delta("key", TEXT)) == ["r0"]


def test_a_new_block_starts_a_new_stream() -> None:
    mgr = manager("condition: 'ab'")
    assert mgr.check_delta("a", TEXT, final=True) == ()
    assert mgr.check_delta("b", TEXT) == ()


def test_tool_arguments_are_matched_decoded() -> None:
    mgr = manager("condition: 'print\\(\"hi\"\\)\\n'")
    found = stream(mgr, '{"content": "x\\nprint(\\"hi\\")\\ny"}', tool(), chunk=3)
    assert [(m.name, m.argument, m.line, m.column, m.offset) for m in found] == [("r0", "content", 2, 1, 2)]


def test_tool_deltas_already_decoded() -> None:
    mgr = manager("condition: 'a\\nb'")
    assert names(stream(mgr, "a\nb", tool(json=False))) == ["r0"]


def test_prefilter_backreference_is_confirmed() -> None:
    mgr = manager("condition: '\\b(\\w+) \\1\\b'")
    assert mgr.plan.conditions[0].engine == "prefilter"
    assert names(stream(mgr, "one two three four")) == []
    mgr.reset()
    found = stream(mgr, "one two\nthe the end", chunk=2)
    assert [(m.line, m.column) for m in found] == [(2, 1)]


def test_prefilter_lookahead_waits_for_its_context() -> None:
    mgr = manager("condition: 'password\\s*=(?!\\s*os\\.environ)'")
    assert names(stream(mgr, "password = os.environ['P']\n" + "x" * 40)) == []
    mgr.reset()
    at = fired_at(mgr, "password = 'hunter2' and some more text that follows the match")
    assert 0 < at["r0"] <= len("password = ") + 33


def test_prefilter_line_extent() -> None:
    mgr = manager("condition: '(\\w+)=\\1'\nscope: line")
    assert names(stream(mgr, "a=b\nb=a\nc=c\n", chunk=2)) == ["r0"]
    mgr.reset()
    assert names(stream(mgr, "ab=\nab\n", chunk=2)) == []


def test_fallback_accumulated_and_line() -> None:
    mgr = manager("condition: 'foo\\Kbar'", "condition: 'baz\\Kqux'\nscope: line")
    assert [c.engine for c in mgr.plan.conditions] == ["fallback", "fallback"]
    assert names(stream(mgr, "x foobar y\nbaz\nqux", chunk=2)) == ["r0"]
    mgr.reset()
    found = stream(mgr, "y\nbazqux", chunk=2)
    assert [(m.name, m.line) for m in found] == [("r1", 2)]


def test_fallback_line_extent_waits_for_a_trailing_boundary() -> None:
    mgr = manager("trigger: '\\Kdebugger\\b'")
    assert fired_at(mgr, "debuggerMode\n") == {}
    mgr.reset()
    assert fired_at(mgr, "debugger\nx") == {"r0": len("debugger\n")}


def test_pcre_mismatch_takes_the_fallback() -> None:
    mgr = manager("condition: 'ab{,2}c'")
    assert mgr.plan.conditions[0].engine == "fallback"
    assert names(stream(mgr, "xabbc")) == ["r0"]


def test_flags_in_both_engines() -> None:
    mgr = manager("condition: '(?i)select \\*'", "condition: '(?is)begin.+end'", "trigger: 'x1'\nflags: i")
    assert names(stream(mgr, "SELECT * FROM t\nBEGIN\nEND X1")) == ["r0", "r1", "r2"]


def test_utf8_text_offsets_are_in_characters() -> None:
    found = stream(manager("condition: 'naïve'"), "é😀\nà naïve", chunk=3)
    assert (found[0].offset, found[0].line, found[0].column) == (5, 2, 3)


def test_a_catastrophic_fallback_pattern_cannot_stall_the_stream() -> None:
    mgr = manager("condition: '(x+x+)+\\Ky'\nscope: line", "condition: 'zzz'")
    assert mgr.plan.conditions[0].engine == "fallback"
    started = time.process_time()  # CPU time, as the `regex` engine counts its timeout
    found = stream(mgr, "x" * 3000 + " zzz", chunk=50)
    assert time.process_time() - started < 2
    assert names(found) == ["r1"]
    assert len(mgr.runtime_issues) == 1
    assert "time limit" in mgr.runtime_issues[0].reason and mgr.runtime_issues[0].rule == "r0"


def test_long_lines_are_read_through_a_bounded_window() -> None:
    mgr = manager("condition: '\\Kneedle'\nscope: line")
    text = "a" * 20000 + "needle"
    started = time.process_time()  # CPU time: the work done, not how busy the machine is
    assert names(stream(mgr, text, chunk=20)) == ["r0"]
    assert time.process_time() - started < 2


def test_each_rule_is_reported_once_per_stream_and_turn() -> None:
    mgr = manager("condition: 'x1'")
    assert names(stream(mgr, "x1 x1 x1")) == ["r0"]
    assert names(stream(mgr, "x1", MatchContext(source="text"))) == []  # same turn
    mgr.reset()
    assert names(stream(mgr, "x1")) == ["r0"]


def test_a_prefilter_that_hits_everywhere_costs_bounded_searches(monkeypatch: pytest.MonkeyPatch) -> None:
    from rein.ttsr import _fallback, _matcher

    calls = 0
    real = _fallback.settled

    def counting(*args: object, **kwargs: object) -> object:
        nonlocal calls
        calls += 1
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr("rein.ttsr._matcher.settled", counting)
    mgr = manager("condition: '\\b(\\w+) \\1\\b'")
    prose = " ".join(f"word{i}" for i in range(4000))  # every word pair is a prefilter candidate
    assert stream(mgr, prose, chunk=20) == []
    assert calls <= len(prose) // _matcher.MIN_STEP + 5
    mgr.reset()
    [match] = stream(mgr, prose + " again again and more text after it", chunk=20)
    assert match.excerpt.startswith("word0") and match.offset == len(prose) + 1
