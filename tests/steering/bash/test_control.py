"""Scoping: what groups, subshells, conditionals, loops and functions let out of themselves."""

from __future__ import annotations

import pytest

from rein.steering.bash import UNKNOWN
from tests.steering.bash.helpers import CWD, run

U = UNKNOWN


def marks(source: str) -> list[object]:
    """The cwd at each `pwd` in `source`."""
    return [ref.state.cwd for ref in run(source).refs if ref.text == "pwd"]


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("(cd /a); pwd", [CWD]),
        ("{ cd /a; }; pwd", ["/a"]),
        ("cd /a | cat; pwd", [CWD]),
        ("cat | cd /a; pwd", [CWD]),
        ("! cd /a; pwd", ["/a"]),
        ("cd /a & pwd", [CWD]),
        ("(cd /a) && pwd", [CWD]),
        ("if true; then cd /a; fi; pwd", [U]),
        ("if true; then cd /a; else cd /a; fi; pwd", ["/a"]),
        ("if true; then cd /a; else cd /b; fi; pwd", [U]),
        ("if cd /a; then pwd; else pwd; fi; pwd", ["/a", "/a", "/a"]),
        ("if x; then cd /a; elif y; then cd /a; else cd /a; fi; pwd", ["/a"]),
        ("if x; then cd /a; elif y; then cd /a; fi; pwd", [U]),
        ("if x; then :; elif cd /b; then pwd; fi; pwd", ["/b", U]),
        ("case $x in a) cd /a;; *) cd /a;; esac; pwd", ["/a"]),
        ("case $x in a) cd /a;; b) cd /a;; esac; pwd", [U]),
        ("case $x in a) cd /a ;& b) pwd;; esac", [U]),
        ("case $x in a) cd /a;; b) pwd;; esac", [CWD]),
        ("for x in 1; do pwd; done; pwd", [CWD, CWD]),
        ("for x in 1 2; do cd /a; pwd; done; pwd", ["/a", "/a", "/a"]),
        ("for x in $L; do cd /a; pwd; done; pwd", ["/a", U]),
        ("for x in 1 2; do pwd; cd sub; done; pwd", [CWD, f"{CWD}/sub", f"{CWD}/sub/sub"]),
        ("for x in $L; do pwd; cd sub; done; pwd", [U, U]),
        ("while true; do cd /a; done; pwd", [U]),
        ("while cd /a; do pwd; done; pwd", ["/a", "/a"]),
        ("until false; do pwd; done", [CWD]),
        ("select x in a; do cd /a; done; pwd", [U]),
        ("for ((i = 0; i < 2; i++)); do pwd; done", [CWD]),
        ("f() { cd /a; pwd; }; pwd", [CWD]),  # a body runs only where it is called
        ("f() { cd /a; pwd; }; f; pwd", ["/a", "/a"]),  # in this shell: its cd stays
        ("cd /a; f() { pwd; }; cd /b; f", ["/b"]),
    ],
)
def test_scoping(source: str, expected: list[object]) -> None:
    assert marks(source) == expected


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("(X=1); env", None),
        ("{ X=1; }; env", "1"),
        ("X=1 | cat; env", None),
        ("if a; then X=1; fi; env", U),
        ("if a; then X=1; else X=1; fi; env", "1"),
        ("for i in 1; do X=1; done; env", "1"),  # a known list: the body runs once per item
        ("for i in $L; do X=1; done; env", U),  # the body may not run
        ("f() { X=1; }; env", None),
        ("f() { X=1; }; f; env", "1"),
        ("echo $(X=1); env", None),
    ],
)
def test_env_scoping(source: str, expected: object) -> None:
    assert run(source).refs[-1].state.env.get("X") == expected


def test_loop_keeps_only_the_final_pass() -> None:
    analysis = run("for i in $L; do cd sub; ls; done")
    assert [ref.text for ref in analysis.refs] == ["cd sub", "ls"]
    assert [ref.index for ref in analysis.refs] == [0, 1]


def test_a_loop_over_a_known_list_runs_once_per_item() -> None:
    analysis = run("for i in 1 2; do cd sub; ls $i; done")
    assert [ref.text for ref in analysis.refs] == ["cd sub", "ls 1", "cd sub", "ls 2"]
    assert [ref.state.cwd for ref in analysis.refs if ref.name == "ls"] == [f"{CWD}/sub", f"{CWD}/sub/sub"]


def test_loop_that_never_settles_ends_unknown() -> None:
    analysis = run("for i in $L; do A=$B; B=$C; C=$D; D=$E; E=$F; F=x; cd sub; done; env")
    env = analysis.refs[-1].state.env
    assert analysis.refs[-1].state.cwd is U
    assert all(env.get(name, U) is U for name in "ABCDEF")


def test_function_body_runs_with_the_state_where_it_is_called() -> None:
    analysis = run("X=/def; f() { cd $X; pwd; }; X=/late; f; pwd")
    assert [ref.state.cwd for ref in analysis.refs if ref.text == "pwd"] == ["/late", "/late"]
    body = [ref for ref in analysis.refs if ref.via == "function"]
    assert [ref.text for ref in body] == ["cd /late", "pwd"]
    assert body[0].wrappers == ("f",) and body[0].after == ()


def test_unsupported_construct_is_a_problem() -> None:
    analysis = run("coproc cat")
    assert analysis.problems == ("unsupported shell construct 'coproc'",)
    assert [ref.text for ref in analysis.refs] == ["coproc cat", "cat"]
