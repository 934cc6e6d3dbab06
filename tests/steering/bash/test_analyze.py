"""The public door: `analyze` never raises, reports what it did not understand, and keeps its surface."""

from __future__ import annotations

import pytest

from rein.steering import bash
from rein.steering.bash import model
from rein.steering.bash._analyze import MAX_SOURCE
from rein.steering.bash._walker import MAX_NESTING, Walker
from tests.steering.bash.helpers import run, texts


@pytest.mark.parametrize(
    ("source", "problem", "found"),
    [
        ("if a; then b; fi fi", "could not parse near line 1, column 18: 'fi'", ["a", "b"]),
        ("if a; then b", "could not parse near line 1, column 1: 'if a; then b'", ["a"]),
        ('echo "open', "could not parse near line 1, column 6: '\"open'", ["echo"]),
        ("a &&", "could not parse near line 1, column 5: missing 'word'", ["a"]),
        ("echo ok\nfi", "could not parse near line 2, column 1: 'fi'", ["echo ok", "fi"]),
        ("é; foo )", "could not parse near line 1, column 8: ')'", ["é", "foo"]),
        ("}", "could not parse near line 1, column 1: '}'", ["}"]),
        (
            'bash -c "if x; then"',
            "could not parse near line 1, column 11 in the 'bash -c' string: missing 'fi'",
            ["bash -c if x; then", "x"],
        ),
        ("eval 'a )'", "could not parse near line 1, column 3 in the 'eval' string: ')'", ["eval a )", "a"]),
        ("echo " + "x" * 40 + ")", "could not parse near line 1, column 46: ')'", ["echo " + "x" * 40]),
        ("cat <<A; cat <<B\na\nA\nb", "could not parse near line 1, column 5: '<<A; cat <<B'", ["cat"]),
        ("a && - 2>&1 | b", "could not parse near line 1, column 6: '-'", ["a", "b"]),
        ("x\n- y=1", "could not parse near line 2, column 1: '-'", ["x"]),
    ],
)
def test_parse_errors_are_problems_with_refs_found_anyway(
    source: str, problem: str, found: list[str]
) -> None:
    analysis = run(source)
    assert problem in analysis.problems
    assert texts(analysis) == found
    assert not analysis.understood


@pytest.mark.parametrize("source", ["", " ", "\n\n", "# comment only", "  # a\n# b\n"])
def test_nothing_to_run(source: str) -> None:
    analysis = run(source)
    assert (analysis.refs, analysis.problems, analysis.understood) == ((), (), True)
    assert analysis.source == source


def test_deep_nesting_stops_the_walk_not_a_crash() -> None:
    analysis = run("( " * 200 + "x" + " )" * 200)
    assert analysis.exhausted == f"commands nest more than {MAX_NESTING} levels deep"
    assert not analysis.understood
    assert not run("echo " + "$(" * 300 + "x" + ")" * 300).understood


@pytest.mark.parametrize(
    ("source", "problem"),
    [
        ("echo a\0b; rm x", "the command contains a NUL byte, which a shell does not run as written"),
        ("echo \ud800", "the command contains invalid unicode (a lone surrogate)"),
        ("x" * (MAX_SOURCE + 1), f"the command is longer than {MAX_SOURCE} bytes and was not analysed"),
    ],
)
def test_suspicious_input_is_a_problem(source: str, problem: str) -> None:
    assert problem in run(source).problems


@pytest.mark.parametrize(
    ("source", "comments"),
    [
        ("rm -rf x # rein: allow rm", ("# rein: allow rm",)),
        ("# first\na # second\n  # third", ("# first", "# second", "# third")),
        ("echo '# not' \\# a#b \"#\"", ()),
        ("bash -c 'x # inner'", ()),
        ("cat <<EOF\n# data\nEOF", ()),
        ("a && # between\nb", ("# between",)),
    ],
)
def test_comments(source: str, comments: tuple[str, ...]) -> None:
    assert run(source).comments == comments


def test_nul_input_is_still_analysed() -> None:
    assert "rm x" in texts(run("echo a\0b; rm x"))


def test_huge_but_allowed_input() -> None:
    analysis = run("cat <<'EOF'\n" + "line of text\n" * 20000 + "EOF")
    assert texts(analysis) == ["cat"] and analysis.problems == ()


def test_public_surface() -> None:
    public = {name for name in vars(model) if not name.startswith("_") and name[0].isupper()} - {
        "Final", "Literal", "Protocol", "MappingProxyType", "Iterator", "Mapping",
    }  # fmt: skip
    assert public <= set(bash.__all__)
    assert set(bash.__all__) == public | {"analyze", "BranchTracker"}
    assert all(hasattr(bash, name) for name in bash.__all__)


@pytest.mark.parametrize(
    ("error", "problem"),
    [
        (RecursionError(), "the command nests too deeply to analyse"),
        (ValueError("boom"), "internal error while analysing the command: ValueError: boom"),
    ],
)
def test_internal_failures_become_problems(
    monkeypatch: pytest.MonkeyPatch, error: Exception, problem: str
) -> None:
    def fail(*args: object) -> tuple[int, ...]:
        raise error

    monkeypatch.setattr(Walker, "source", fail)
    analysis = run("ls")
    assert analysis.problems == (problem,) and not analysis.understood


def test_non_ascii_words_keep_their_text() -> None:
    analysis = run("echo {é,ü} \U0001f600 'ß'")
    assert [word.value for word in analysis.refs[0].argv] == ["echo", "é", "ü", "\U0001f600", "ß"]


def test_analysis_is_frozen_and_refs_are_indexed() -> None:
    analysis = run("a; b | c")
    assert [ref.index for ref in analysis.refs] == [0, 1, 2]
    with pytest.raises(AttributeError):
        analysis.refs[0].index = 5  # type: ignore[misc]


def test_contents_hold_the_text_the_line_leaves_in_each_file_it_knows() -> None:
    analysis = bash.analyze(
        "cat > x.sh <<'EOF'\necho hi\nEOF\necho more >> x.sh; curl -o y https://example.com/y",
        cwd="/p",
        home="/h",
    )
    assert analysis.writes == ("/p/x.sh", "/p/y")
    assert analysis.contents == (("/p/x.sh", "echo hi\nmore\n"),)
