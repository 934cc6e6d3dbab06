"""The Tcl reader: `exec` (with pipes and redirections), `open "|cmd"`, Expect's `spawn` and `system`,
`file delete -force`, scripts in brackets and braces, `eval`/`uplevel` of literal words; a command
name or script built at run time is unknown."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rein.steering.bash.launch import RUNTIME
from rein.steering.bash.launch.tcl import read

PUSH = "git push -f"


@pytest.mark.parametrize(
    ("code", "expected"),
    [
        ("exec git push -f", PUSH),
        ("exec -ignorestderr -- git push -f", PUSH),
        ("::exec git push -f", PUSH),
        ("set out [exec git push -f]", PUSH),
        ('puts "[exec git push -f]"', PUSH),
        ("exec git push {-f}", PUSH),
        ('exec git push "-f"', PUSH),
        ("exec git log | head -n 1 2>@1", "git log | head -n 1 2>&1"),
        ("exec sort << $data > out.txt", f'sort <<< "{RUNTIME}" > out.txt'),
        ("exec ls >@ stdout", "ls"),
        ("if {1} { exec git push -f }", PUSH),
        ("proc f {} {\n  exec git push -f\n}\nf", PUSH),
        ("catch {exec git push -f} err", PUSH),
        ("foreach b {main dev} { exec git push -f origin $b }", f'git push -f origin "{RUNTIME}"'),
        ('set f [open "|git push -f" r]', PUSH),
        ("set f [open |[list git push -f] r]", PUSH),
        ("eval exec git push -f", PUSH),
        ("uplevel #0 {exec git push -f}", PUSH),
        ("spawn git push -f", PUSH),
        ('system "git push -f"', PUSH),
        ("exec git push \\x2df", PUSH),
        ("exec git push \\\n  -f", PUSH),
        ("file delete -force ~", "rm -rf $HOME"),
        ("file delete -force -- /tmp/a /tmp/b", "rm -rf /tmp/a /tmp/b"),
    ],
)
def test_a_command_the_program_runs_is_read(code: str, expected: str) -> None:
    found = read(code, {})
    assert [launch.shell or " ".join(a or "?" for a in launch.argv) for launch in found] == [expected], found


@pytest.mark.parametrize(
    "code",
    [
        'puts "git push -f"',
        "puts {git push -f}",
        "# exec git push -f\nputs hi",
        "set x 1; if {$x > 1} {puts hi}",
        "set f [open x.txt w]; puts $f hi; close $f",
        "file delete x.txt",
        "puts [expr {1 + 1}]",
        "set cmd exec; puts $cmd",
    ],
)
def test_text_and_files_launch_nothing(code: str) -> None:
    assert read(code, {}) == ()


@pytest.mark.parametrize(
    ("code", "unknown"),
    [
        ("exec {*}$cmd", "name is built at run time"),
        ("exec $prog push", "built at run time"),
        ("set e exec; $e git push -f", "built at run time"),
        ("eval $script", "built at run time"),
        ("open $name", "may be |cmd"),
        ("rename exec run; run git push -f", "another name"),
    ],
)
def test_what_rein_cannot_read_is_unknown(code: str, unknown: str) -> None:
    found = [launch for launch in read(code, {}) if launch.unknown]
    assert found and unknown in found[0].unknown, read(code, {})


def test_an_argument_built_at_run_time_is_a_variable() -> None:
    (launch,) = read("exec git push $branch", {})
    assert launch.shell == f'git push "{RUNTIME}"' and launch.unknown


def test_nesting_is_bounded() -> None:
    code = "exec ls"
    for _ in range(60):
        code = f"if 1 {{{code}}}"
    assert read(code, {})


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet='exc {}[]$"\\;\n|*', max_size=60))
def test_any_text_reads_without_raising(text: str) -> None:
    read("exec " + text, {})
