"""m4's `syscmd`/`esyscmd`, dc's `!`, and lldb's `platform shell`, `script`, expressions that call
`system()`, aliases and the program it debugs."""

from __future__ import annotations

import pytest

from rein.steering.bash.launch import dc, lldb, m4

PUSH = "git push -f"


@pytest.mark.parametrize(
    ("code", "expected"),
    [
        ("syscmd(git push -f)", [PUSH]),
        ("esyscmd(`git push -f')dnl", [PUSH]),
        ("m4_syscmd(`git push -f')", [PUSH]),
        ("syscmd(`echo a, b')", ["echo a, b"]),
        ("syscmd(echo (a))", ["echo (a)"]),
        ("Hello world", []),
        ("the syscmd macro is documented", []),
    ],
)
def test_m4(code: str, expected: list[str]) -> None:
    assert [launch.shell for launch in m4.read(code, {})] == expected


def test_m4_that_redefines_macros_is_unknown() -> None:
    (launch,) = m4.read("define(`X', `git push -f')syscmd(X)", {})
    assert launch.unknown


@pytest.mark.parametrize(
    ("code", "expected"),
    [
        ("!git push -f", [PUSH]),
        ("2 3 + p\n!git push -f\n", [PUSH]),
        ("[!git push -f]x", [PUSH]),
        ("1 2 !<a 3 !>b 4 !=c", []),
        ("2 3 + p", []),
        ("[hello]p", []),
    ],
)
def test_dc(code: str, expected: list[str]) -> None:
    assert [launch.shell for launch in dc.read(code, {})] == expected


def test_dc_running_its_input_is_unknown() -> None:
    assert dc.read("?", {})[0].unknown


@pytest.mark.parametrize(
    ("code", "expected"),
    [
        ("platform shell git push -f", [PUSH]),
        ("platform shell -- git push -f", [PUSH]),
        ("shell git push -f", [PUSH]),
        ('script import os; os.system("git push -f")', [PUSH]),
        ('expr (int)system("git push -f")', [PUSH]),
        ("command alias p platform shell git push -f", [PUSH]),
        (f"{lldb.TARGET} git push -f\nrun", [PUSH]),
        ("breakpoint set -n main\nrun\nbt", []),
        ('expr printf("git push -f")', []),
    ],
)
def test_lldb(code: str, expected: list[str]) -> None:
    assert [launch.shell for launch in lldb.read(code, {})] == expected


def test_the_option_reader_and_the_reader_agree_on_the_target_line() -> None:
    from rein.steering.bash.commands._interp_own_syntax import TARGET

    assert lldb.TARGET == TARGET


def test_lldb_expression_that_starts_a_process_is_unknown() -> None:
    assert lldb.read("expr (int)system(cmd)", {})[0].unknown
    assert lldb.read('expr (int)execl("/bin/sh", "sh", 0)', {})[0].unknown
