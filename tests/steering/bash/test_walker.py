"""Extraction through every construct, in execution order, with how each command was reached."""

from __future__ import annotations

import pytest

from rein.steering.bash import _control
from rein.steering.bash._walk_api import MAX_AFTER
from rein.steering.bash._words import STATEMENT_NODES
from tests.steering.bash.helpers import CWD, run, texts


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("a && b || c; d & e | f |& g", ["a", "b", "c", "d", "e", "f", "g"]),
        ("a\nb\n\nc", ["a", "b", "c"]),
        ("(a; b) && { c; d; }", ["a", "b", "c", "d"]),
        ("if a; then b; elif c; then d; else e; fi", ["a", "b", "c", "d", "e"]),
        ("while a; do b; done; until c; do d; done", ["a", "b", "c", "d"]),
        ("for x in 1 2; do b $x; done", ["b 1", "b 2"]),
        ("for x in $(a); do b $x; done", ["a", "b $x"]),
        ("for ((i = 0; i < $(n); i++)); do b; done", ["n", "b"]),
        ("select x in a b; do c; done", ["c"]),
        ("case $x in a) b;; *) c;; esac", ["b", "c"]),
        ("case $(v) in (a|b) c ;& d) e ;;& *) f; esac", ["v", "c", "e", "f"]),
        ("! a | b", ["a", "b"]),
        ("a 2>&1 | b > out", ["a", "b"]),
        ("{ a; } > out", ["a"]),
        ("while read l; do a; done < in", ["read l", "a"]),
        ("[ -f x ] && [[ -d y && $z == w ]]", ["[ -f x ]", "[[ -d y && $z == w ]]"]),
        ("((x = 1 + 2)); y", ["(( x = 1 + 2 ))", "y"]),
        (
            "export A=1 B; declare -x C=2; local d; readonly e=1; unset A",
            ["export A=1 B", "declare -x C=2", "local d", "readonly e=1", "unset A"],
        ),
        ("A=1 B=2; C=3", []),
        ("a; # b\nc # d", ["a", "c"]),
        ("# only a comment", []),
        ("", []),
        ("   \n\t ", []),
    ],
)
def test_every_construct_is_walked_in_order(source: str, expected: list[str]) -> None:
    analysis = run(source)
    assert texts(analysis) == expected
    assert analysis.problems == ()
    assert [ref.index for ref in analysis.refs] == list(range(len(expected)))


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("echo $(a) `b`", [("a", "$()"), ("b", "`"), ("echo $(a) `b`", "")]),
        ("cat <(a) >(b)", [("a", "<()"), ("cat <(a) >(b)", ""), ("b", ">()")]),  # b reads what cat writes
        ("x=$(a) y=`b`", [("a", "assignment"), ("b", "assignment")]),
        ("X=$(a) cmd", [("a", "assignment"), ("cmd", "")]),
        ("echo hi > $(a) 2> `b`", [("a", "redirect"), ("b", "redirect"), ("echo hi", "")]),
        ("cat <<< $(a)", [("a", "redirect"), ("cat", "")]),
        (
            "cat <<EOF\n$(a) ${x:-$(b)} `c`\nEOF",
            [("a", "heredoc"), ("b", "heredoc"), ("c", "heredoc"), ("cat", "")],
        ),
        ("cat <<'EOF'\n$(a)\nEOF", [("cat", "")]),
        ("cat <<EOF\n  $(a)\nEOF", [("a", "heredoc"), ("cat", "")]),  # tree-sitter misses it after blanks
        ("cat <<-EOF\n\t$(a) `b`\n\tEOF", [("a", "heredoc"), ("b", "heredoc"), ("cat", "")]),
        ('[[ $(a) == "$(b)" ]]', [("a", "$()"), ("b", "$()"), ("[[ $(a) == $(b) ]]", "")]),
        ("echo $((1 + $(a)))", [("a", "$()"), ("echo $((1 + $(a)))", "")]),
        ("echo ${x:-$(a)}", [("a", "$()"), ("echo ${x:-$(a)}", "")]),
        ("echo $(a $(b))", [("b", "$()"), ("a $(b)", "$()"), ("echo $(a $(b))", "")]),
        (
            "f() { a; }; g() ( b ); function h { c; }; f; g; h",
            [("f", ""), ("a", "function"), ("g", ""), ("b", "function"), ("h", ""), ("c", "function")],
        ),
        ("f() { echo $(a); }; f", [("f", ""), ("a", "$()"), ("echo $(a)", "function")]),
        ("case $(a) in x) b;; esac", [("a", "$()"), ("b", "")]),
        ("for x in $(a); do b; done", [("a", "$()"), ("b", "")]),
        ("a=(1 $(b))", [("b", "assignment")]),
        ("export A=$(b)", [("b", "assignment"), ("export A=$(b)", "")]),
        ("echo $(< file)", [("echo $(< file)", "")]),
        ("a && { b; } > $(c)", [("a", ""), ("c", "redirect"), ("b", "")]),
        ("a && (b) 2> `c`", [("a", ""), ("c", "redirect"), ("b", "")]),
    ],
)
def test_substitutions_run_first_and_say_how_they_were_reached(
    source: str, expected: list[tuple[str, str]]
) -> None:
    analysis = run(source)
    assert [(ref.text, ref.via) for ref in analysis.refs] == expected
    assert analysis.problems == ()


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("a && b && c", [(), (0,), (0, 1)]),
        ("a; b", [(), ()]),
        ("a || b", [(), ()]),
        ("a | b && c", [(), (), (1,)]),
        ("! a && b", [(), ()]),
        ("! a | b && c", [(), (), ()]),
        ("a || b && c", [(), (), ()]),
        ("a && b || c && d", [(), (0,), (), ()]),
        ("a && (b && c) && d", [(), (0,), (0, 1), (0, 1, 2)]),
        ("a && { b; c; } && d", [(), (0,), (0,), (0, 2)]),
        ("a && echo $(b) && c", [(), (0,), (0,), (0, 2)]),
        ("if a && b; then c; elif d; then e; else f; fi && g", [(), (0,), (0, 1), (), (3,), (), ()]),
        ("while a; do b; done; until c; do d; done", [(), (0,), (), ()]),
        ("a && b & c", [(), (0,), ()]),
        ("a && f() { b; }", [()]),  # a definition runs nothing
        ("a && sudo b && c", [(), (0,), (0,), (0, 1, 2)]),
        ("sudo make test && git commit", [(), (), (0, 1)]),
        ("bash -c 'a; b' && c", [(), (), (), (0, 2)]),
        ("bash -c 'a && b' && c", [(), (), (1,), (0, 1, 2)]),
        ("time (a && b) && c", [(), (), (1,), (0, 1, 2)]),
        ("bash <<EOF && c\na\nEOF", [(), (), (0, 1)]),
        ("xargs a && b; find . -exec a \\; && b; setsid a && b", [(), (), (0,), (), (), (3,), (), (), (6,)]),
        ("watch a && b; ssh h a && b", [(), (), (0,), (), (), (3, 4)]),
        ("a &&\n# comment\nb", [(), (0,)]),
    ],
)
def test_after_lists_only_certain_successes(source: str, expected: list[tuple[int, ...]]) -> None:
    assert [ref.after for ref in run(source).refs] == expected


def test_every_statement_type_has_a_handler() -> None:
    assert (
        frozenset(_control.HANDLERS) | {"command", "list", "pipeline", "redirected_statement"}
        == STATEMENT_NODES
    )


def test_group_after_a_keyword_is_walked() -> None:
    analysis = run("time (cd /x; rm y); pwd")
    assert [(ref.text, ref.wrappers, ref.state.cwd) for ref in analysis.refs] == [
        ("time", (), CWD),
        ("cd /x", ("time",), CWD),
        ("rm y", ("time",), "/x"),
        ("pwd", (), CWD),
    ]


def test_raw_keeps_the_source_text_and_redirects() -> None:
    analysis = run("echo  'a  b'  > out 2>&1 && cat <<EOF\nbody\nEOF")
    assert [ref.raw for ref in analysis.refs] == ["echo  'a  b'  > out 2>&1", "cat <<EOF"]
    assert analysis.refs[0].argv[1].raw == "'a  b'"


def test_dynamic_command_name_is_unknown() -> None:
    analysis = run('$CMD -rf /; "$(pick-tool rm)" x')
    dynamic = [ref for ref in analysis.refs if ref.argv[0].dynamic]
    assert [ref.text for ref in dynamic] == ["$CMD -rf /", "$(pick-tool rm) x"]
    assert all(ref.unknown and "dynamic" in ref.unknown[0] for ref in dynamic)
    assert run("which rm").refs[0].unknown == ()


def test_a_path_looked_up_by_name_is_that_name() -> None:
    for source in ('"$(which rm)" -rf x', "$(command -v rm) -rf x", "`type -P rm` -rf x"):
        assert run(source).refs[-1].text == "rm -rf x", source


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("cat <<EOF | sh && cd /t && ls\nbody\nEOF\nls", ["cat", "sh", "body", "cd /t", "ls", "ls"]),
        ("cat <<EOF && a || b\nbody\nEOF", ["cat", "a", "b"]),
        ("cat <<EOF | a | b\nbody\nEOF", ["cat", "a", "b"]),
        ("x | cat <<EOF | y\nbody\nEOF", ["x", "cat", "y"]),
        ("cat <<EOF > out && a\nbody\nEOF", ["cat", "a"]),
    ],
)
def test_commands_chained_after_a_heredoc_start(source: str, expected: list[str]) -> None:
    analysis = run(source)
    assert texts(analysis) == expected
    assert analysis.problems == ()


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("python3 - <<'PY'\nx\nPY", ["python3 -"]),
        ("rm -rf x - <<EOF\nEOF", ["rm -rf x -"]),
        ("cat - > out <<EOF\nEOF", ["cat -"]),
        ("cd - 2>&1", ["cd -"]),
        ("git checkout - 2>/dev/null", ["git checkout -"]),
    ],
)
def test_words_tree_sitter_drops_before_a_heredoc_are_kept(source: str, expected: list[str]) -> None:
    analysis = run(source)
    assert (texts(analysis), analysis.problems) == (expected, ())


def test_heredoc_chain_keeps_its_order_for_state_and_after() -> None:
    analysis = run("cat <<EOF | sh && cd /t && ls\nbody\nEOF")
    cat, sh, body, cd, ls = analysis.refs  # sh reads what cat prints: the heredoc's `body`
    assert body.via == "pipe"
    assert (ls.state.cwd, ls.after, cd.after) == (
        "/t",
        (sh.index, body.index, cd.index),
        (sh.index, body.index),
    )
    assert cat.state.cwd == sh.state.cwd == "/home/dev/project"


def test_long_chains_do_not_recurse() -> None:
    analysis = run(" && ".join(["true"] * 3000))
    assert len(analysis.refs) == 3000 and analysis.problems == ()
    # `after` keeps the most recent successes only, so a long chain costs linear work
    assert analysis.refs[-1].after == tuple(range(2999 - MAX_AFTER, 2999))
    assert analysis.refs[40].after == tuple(range(40))


@pytest.mark.parametrize(
    ("source", "name"),
    [("$VENV/bin/python -m pytest", "python"), ('"$(npm bin)/eslint" .', "eslint"), ("$D/git push", "git")],
)
def test_a_dynamic_directory_with_a_literal_file_name_names_the_program(source: str, name: str) -> None:
    ref = next(ref for ref in run(source).refs if ref.argv[0].dynamic)
    assert ref.name == name and not ref.name_dynamic and not ref.unknown


def test_a_dynamic_file_name_is_still_dynamic() -> None:
    assert all(run(source).refs[-1].name_dynamic for source in ("$CMD x", "$D/$B x", "$D/* x", "${X}"))
