"""The engine skips work no rule or observer needs, with the same answers as doing it all."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from rein.steering import (
    UNKNOWN,
    Analysis,
    CommandRef,
    Context,
    Entry,
    Matcher,
    MemoryEntries,
    Observer,
    Steering,
    ToolCall,
    ToolResult,
    _engine,
    build_policy,
    parse_layer,
)
from rein.steering._match import match_ref
from rein.steering._observe import speculative_entries
from rein.steering.bash import analyze
from tests.steering.conftest import CWD, HOME, make_context

OBSERVER = """
[[observer]]
name = "tests"
writes = ["tests-passed"]
watch = { tool = "bash", command = "^pytest", exit_code = 0 }
"""

COMMIT = """
[[rule]]
name = "no-commit"
command = "git"
subcommand = "commit"
reason = "No."
"""


def engine_for(toml: str) -> Steering:
    layer = parse_layer(toml, "/p/.rein/steering.toml", base=Path("/p/.rein"))
    return Steering(build_policy([layer], defaults=False).policy)


class Counting(Steering):
    """Counts the parses `dispatch` asks for."""

    parses = 0

    def analyze(self, command: str, context: Context) -> Analysis:
        self.parses += 1
        return super().analyze(command, context)


def counting(toml: str) -> Counting:
    layer = parse_layer(toml, "/p/.rein/steering.toml", base=Path("/p/.rein"))
    return Counting(build_policy([layer], defaults=False).policy)


def result(command: str, exit_code: int = 0) -> ToolResult:
    return ToolResult(call=ToolCall(tool="bash", command=command), exit_code=exit_code)


def test_dispatch_without_observers_parses_nothing() -> None:
    engine = counting(COMMIT)
    assert engine.dispatch(result("pytest -q && git commit -m x"), make_context()) == []
    assert engine.parses == 0


def test_dispatch_parses_only_when_the_raw_command_does_not_match() -> None:
    engine = counting(OBSERVER + OBSERVER.replace('"tests"', '"again"').replace("tests-passed", "t2"))
    entries = MemoryEntries()
    written = engine.dispatch(result("pytest -q"), make_context(entries=entries))
    assert [entry.type for entry in written] == ["tests-passed", "t2"]
    assert engine.parses == 0, "the raw command matched"
    written = engine.dispatch(result("sudo pytest -q"), make_context(entries=entries))
    assert [entry.type for entry in written] == ["tests-passed", "t2"]
    assert engine.parses == 1, "parsed once for both observers"
    assert engine.dispatch(result("sudo pytest -q", exit_code=1), make_context(entries=entries)) == []
    assert engine.parses == 1, "the exit code already rules both out"
    assert engine.dispatch(result("sudo make"), make_context(entries=entries)) == []
    assert engine.parses == 2


def test_file_results_are_never_parsed() -> None:
    engine = counting(OBSERVER + '[[observer]]\nname = "w"\nwrites = ["w"]\nwatch = { tool = "write" }\n')
    call = ToolCall(tool="write", path="a.py")
    assert [entry.type for entry in engine.dispatch(ToolResult(call=call), make_context())] == ["w"]
    assert engine.parses == 0


@pytest.mark.parametrize(
    ("when", "speculates"),
    [
        ("", False),
        ('[rule.when]\nbranch = "main"\n', False),
        ('[rule.when.not]\ncwd = "/srv"\n', False),
        ('[rule.when.happened]\nevent = "tests-passed"\n', True),
        ('[rule.when.not.happened]\nevent = "tests-passed"\nin = "tool_call"\n', True),
        ('[rule.when.not.not.happened]\nevent = "tests-passed"\n', True),
    ],
)
def test_speculative_entries_only_when_a_rule_asks_happened(
    monkeypatch: pytest.MonkeyPatch, when: str, speculates: bool
) -> None:
    calls: list[CommandRef] = []
    real = speculative_entries

    def spy(
        ref: CommandRef, analysis: Analysis, observers: tuple[Observer, ...], context: Context
    ) -> tuple[Entry, ...]:
        calls.append(ref)
        return real(ref, analysis, observers, context)

    monkeypatch.setattr(_engine, "speculative_entries", spy)
    engine = engine_for(OBSERVER + COMMIT + when)
    engine.evaluate(ToolCall(tool="bash", command="pytest && git commit -m x"), make_context())
    assert bool(calls) is speculates
    calls.clear()
    alone = engine_for(COMMIT + when)
    alone.evaluate(ToolCall(tool="bash", command="pytest && git commit -m x"), make_context())
    assert not calls, "no observer: nothing can be speculated"


def ref_of(command: str) -> CommandRef:
    return analyze(command, cwd=CWD, home=HOME).refs[0]


PUSH = Matcher(command=frozenset({"git"}), subcommand=(("push",),))
FORCE = dataclasses.replace(PUSH, flags=frozenset({"-f"}))


@pytest.mark.parametrize(
    ("matcher", "command", "expected"),
    [
        (PUSH, "git pull $ARGS", False),
        (PUSH, "git $SUB", UNKNOWN),
        (FORCE, "git push -f", True),
        (FORCE, "git push origin", False),
        (FORCE, "git push $ARGS", UNKNOWN),
        (FORCE, "git pull -f $ARGS", False),
        (Matcher(flags=frozenset({"-f"}), not_flags=frozenset({"-n"})), "git clean -f -n $X", False),
        (Matcher(not_flags=frozenset({"-n"}), command=frozenset({"git"})), "git clean $X", True),
        (Matcher(args=(re.compile("^main$"),)), "git push origin main", True),
        (Matcher(args=(re.compile("^main$"),)), "git push origin dev", False),
        (Matcher(args=(re.compile("^main$"),)), "git push origin $B", UNKNOWN),
        # quoted, $B is one word, but rein cannot know it is not `main` (or a flag)
        (Matcher(args=(re.compile("^main$"),)), 'git push origin "$B"', UNKNOWN),
        (Matcher(args=(re.compile("^main$"),)), 'git push origin "x$B"', False),
        (dataclasses.replace(PUSH, args=(re.compile("^push$"),)), "git push origin", False),
        (Matcher(flags=frozenset({"-f"}), args=(re.compile("^x$"),)), "rm -f $A", UNKNOWN),
        (Matcher(flags=frozenset({"-f"}), args=(re.compile("^x$"),)), "rm -r $A", UNKNOWN),
        (Matcher(flags=frozenset({"-f"}), args=(re.compile("^x$"),)), "rm -r y", False),
    ],
)
def test_match_ref_three_values(matcher: Matcher, command: str, expected: object) -> None:
    assert match_ref(matcher, ref_of(command), make_context()) is expected
