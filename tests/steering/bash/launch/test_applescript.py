"""AppleScript: `do shell script`, Terminal's `do script`, `run script`, `keystroke`; strings joined
with `&`, `quoted form of`, the text constants."""

from __future__ import annotations

import pytest

from rein.steering.bash.launch import RUNTIME
from rein.steering.bash.launch.applescript import read

PUSH = "git push -f"


@pytest.mark.parametrize(
    ("code", "expected"),
    [
        ('do shell script "git push -f"', PUSH),
        ('DO SHELL SCRIPT "git push -f"', PUSH),
        ('do shell script "git " & "push" & space & "-f"', PUSH),
        ('do shell script "git push -f" with administrator privileges', PUSH),
        ('do shell script "git push -f" ¬\n  with administrator privileges', PUSH),
        ('set r to (do shell script "git push -f")', PUSH),
        ('tell application "Terminal" to do script "git push -f"', PUSH),
        ('tell application "Terminal"\n  do script "git push -f" in window 1\nend tell', PUSH),
        ('do shell script "rm -rf " & quoted form of "/tmp/a b"', "rm -rf '/tmp/a b'"),
        ('run script "do shell script \\"git push -f\\""', PUSH),
        ('do shell script "echo \\"git push\\""', 'echo "git push"'),
    ],
)
def test_a_shell_command_is_read(code: str, expected: str) -> None:
    found = read(code, {})
    assert [launch.shell for launch in found] == [expected] and not found[0].unknown


@pytest.mark.parametrize(
    "code",
    [
        'display dialog "git push -f"',
        'display notification "do shell script"',
        '-- do shell script "git push -f"\nbeep',
        '(* do shell script "git push -f" *) beep',
        'tell application "Safari" to do JavaScript "alert(1)" in document 1',
        "return 1 + 1",
    ],
)
def test_text_launches_nothing(code: str) -> None:
    assert read(code, {}) == ()


@pytest.mark.parametrize(
    ("code", "unknown"),
    [
        ('set c to "ls"\ndo shell script c', "built at run time"),
        ('do shell script "rm -rf " & quoted form of p', "built at run time"),
        ('tell application "System Events" to keystroke "git push -f"', "types into another app"),
        ("run script s", "code built at run time"),
        ('«event sysoexec» "git push -f"', "raw event syntax"),
    ],
)
def test_what_rein_cannot_read_is_unknown(code: str, unknown: str) -> None:
    found = [launch for launch in read(code, {}) if launch.unknown]
    assert found and unknown in found[0].unknown, read(code, {})


def test_a_variable_part_is_a_runtime_part() -> None:
    assert read('do shell script "git push " & b', {})[0].shell == f"git push {RUNTIME}"
