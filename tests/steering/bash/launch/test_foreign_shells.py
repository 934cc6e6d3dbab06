"""fish, csh/tcsh, PowerShell, nushell, elvish and xonsh programs, read as the bash that runs the same
commands: block keywords dropped, builtins whose arguments are data left out, substitutions read,
what runs at run time unknown."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rein.steering.bash.launch import RUNTIME
from rein.steering.bash.launch.shells import read

PUSH = "git push -f"


def script(language: str, code: str) -> str | None:
    found = read(language, code, {})
    assert len(found) <= 1 or language == "xonsh"
    return found[0].shell if found else None


@pytest.mark.parametrize(
    ("language", "code", "expected"),
    [
        ("fish", "git push -f", PUSH),
        ("fish", "set -x FOO bar; and git push -f", PUSH),
        ("fish", "if test -d .git; git push --force; end", "git push --force"),
        ("fish", "begin; git push -f; end", PUSH),
        ("fish", "not git diff --quiet; or git push -f", "git diff --quiet\ngit push -f"),
        ("fish", "echo (git push -f)", PUSH),
        ("fish", "echo $(git push -f)", PUSH),
        ("fish", "rm -rf ~", 'rm -rf "$HOME"'),
        ("fish", "cd /tmp; and rm -rf *", "cd /tmp\nrm -rf *"),
        ("fish", "git log | head -n 1", "git log | head -n 1"),
        ("fish", "command git push -f", PUSH),
        ("fish", "eval 'git push -f'", PUSH),
        ("fish", "function f; git push -f; end; f", f"{PUSH}\nf"),
        ("fish", "git push origin $branch", f"git push origin {RUNTIME}"),
        ("csh", "git push -f", PUSH),
        ("csh", "if (-d .git) then\n  git push -f\nendif", PUSH),
        ("csh", "if ($x == 1) git push -f", PUSH),
        ("csh", "set out = `git push -f`", PUSH),
        ("csh", "setenv GIT_DIR .git; git push -f", PUSH),
        ("csh", "foreach b (main dev)\n  git push -f origin $b\nend", f"git push -f origin {RUNTIME}"),
        ("csh", "repeat 3 git push -f", PUSH),
        ("csh", "alias p 'git push -f'; p", f"{PUSH}\np"),
        ("csh", "(cd /tmp; rm -rf *)", "cd /tmp\nrm -rf *"),
        ("powershell", "git push -f", PUSH),
        ("powershell", "& git push -f", PUSH),
        ("powershell", "& 'git' push -f", PUSH),
        ("powershell", "$out = git push -f", PUSH),
        ("powershell", "if (Test-Path .git) { git push --force }", "git push --force"),
        ("powershell", "Get-ChildItem | ForEach-Object { git push -f }", PUSH),
        ("powershell", "Invoke-Expression 'git push -f'", PUSH),
        ("powershell", 'iex "git push -f"', PUSH),
        ("powershell", "Start-Process git -ArgumentList 'push','-f' -Wait", PUSH),
        ("powershell", "Start-Process -FilePath git -ArgumentList 'push -f'", PUSH),
        ("powershell", "Remove-Item -Recurse -Force ~", 'rm -rf "$HOME"'),
        ("powershell", "ri -r -fo $HOME", 'rm -rf "$HOME"'),
        ("powershell", "Remove-Item -Path /tmp/x -Recurse", "rm -rf /tmp/x"),
        ("powershell", "Set-Location /; rm -rf *", "cd /\nrm -rf *"),
        ("powershell", "Write-Host $(git push -f)", PUSH),
        ("nu", "git push -f", PUSH),
        ("nu", "^git push -f", PUSH),
        ("nu", "run-external git push -f", PUSH),
        ("nu", "let out = (git push -f)", PUSH),
        ("nu", "[a (git push -f)] | length", PUSH),
        ("nu", "rm -r ~", 'rm -r "$HOME"'),
        ("nu", "if true { git push -f }", PUSH),
        ("elvish", "git push -f", PUSH),
        ("elvish", "e:git push -f", PUSH),
        ("elvish", "var x = (git push -f)", PUSH),
        ("elvish", "each {|b| git push -f origin $b } [main dev]", f"git push -f origin {RUNTIME}"),
        ("elvish", "eval 'git push -f'", PUSH),
    ],
)
def test_the_commands_of_the_program_are_read(language: str, code: str, expected: str) -> None:
    found = read(language, code, {})
    assert [launch.shell for launch in found] == [expected], found
    assert not found[0].unknown


@pytest.mark.parametrize(
    ("language", "code"),
    [
        ("fish", "echo 'git push -f'"),
        ("fish", "set -l msg 'git push -f'; echo $msg"),
        ("fish", "string match -q 'git push -f' $x"),
        ("fish", "for f in *.txt; echo $f; end"),
        ("fish", "# git push -f"),
        ("csh", "echo 'git push -f'"),
        ("csh", "set msg = 'git push -f'"),
        ("csh", "foreach f (*.c)\n  echo $f\nend"),
        ("powershell", "Write-Output 'git push -f'"),
        ("powershell", 'Write-Host "git push -f"; Get-ChildItem'),
        ("powershell", "$PSVersionTable"),
        ("powershell", "'git push -f'"),
        ("powershell", "Get-ChildItem | Where-Object { $_.Length -gt 1kb } | Select-Object Name"),
        ("powershell", "<# git push -f #> Get-Date"),
        ("powershell", "[Math]::Pi"),
        ("nu", "print 'git push -f'"),
        ("nu", "ls | where size > 10kb"),
        ("nu", "let msg = 'git push -f'"),
        ("elvish", "echo 'git push -f'"),
        ("elvish", "put (str:to-upper 'git push -f')"),
    ],
)
def test_data_launches_nothing(language: str, code: str) -> None:
    assert read(language, code, {}) == ()


@pytest.mark.parametrize(
    ("language", "code", "unknown"),
    [
        ("fish", "eval $cmd", "evaluates code built at run time"),
        ("fish", "$cmd push -f", "name is built at run time"),
        ("csh", "eval $cmd", "evaluates code built at run time"),
        ("powershell", "Invoke-Expression $cmd", "evaluates code built at run time"),
        ("powershell", "& $tool push", "name is built at run time"),
        ("powershell", "[System.Diagnostics.Process]::Start('git', 'push -f')", ".NET"),
        ("powershell", "Start-Process $prog", ""),
        ("elvish", "eval $code", "evaluates code built at run time"),
    ],
)
def test_what_rein_cannot_follow_is_unknown(language: str, code: str, unknown: str) -> None:
    found = read(language, code, {})
    assert found and found[0].unknown and unknown in found[0].unknown, found


@pytest.mark.parametrize(
    ("code", "expected"),
    [
        ("git push -f", [PUSH]),
        ('print("git push -f")', []),
        ('import os\nos.system("git push -f")', [PUSH]),
        ("x = $(git push -f)", [PUSH]),
        ("for i in range(3):\n    print(i)", []),
    ],
)
def test_xonsh_lines_are_commands_or_python(code: str, expected: list[str]) -> None:
    assert [launch.shell for launch in read("xonsh", code, {})] == expected


@settings(max_examples=150, deadline=None)
@given(
    st.sampled_from(["fish", "csh", "powershell", "nu", "elvish"]),
    st.text(alphabet="ab $()'\"{}[]|&;`~*\\\n#<>", max_size=50),
)
def test_any_text_reads_without_raising(language: str, text: str) -> None:
    read(language, text, {})
