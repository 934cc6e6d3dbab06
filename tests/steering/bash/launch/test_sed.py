"""The sed reader: GNU sed's `e command`, bare `e` and the `s///e` flag launch; everything else in a
script (text of `a`/`i`/`c`, file names, regexes, replacements without `e`) is data."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rein.steering.bash.launch import RUNTIME, Launch, launches

R = RUNTIME
S_E = "sed's e flag runs the pattern space after the substitution, which depends on the input"
BARE_E = "sed's e command runs the pattern space, which is the input"


def read(text: str) -> tuple[Launch, ...]:
    return launches("sed", text)


@pytest.mark.parametrize(
    ("script", "shell"),
    [
        ("e git stash clear", "git stash clear"),
        ("1e rm -rf /", "rm -rf /"),
        ("$e rm -rf /", "rm -rf /"),
        ("e   ls -l", "ls -l"),
        ("e ls; rm -rf /", "ls; rm -rf /"),
        ("e;p", ";p"),  # GNU sed's e takes the rest of the line
        ("e echo } # not a comment", "echo } # not a comment"),
        ("/x/e git push -f", "git push -f"),
        ("/x/I,/y/M e date", "date"),
        ("\\%x%e id", "id"),
        ("\\,a\\,b,e id", "id"),
        ("1~2e date", "date"),
        ("0,/re/e echo", "echo"),
        ("2,+3e echo", "echo"),
        ("2,~4e echo", "echo"),
        ("/a/,$!e echo", "echo"),
        ("1!e echo", "echo"),
        ("1 ! e echo", "echo"),
        ("p;e ls", "ls"),
        ("p\ne ls", "ls"),
        ("/x/{p;e ls\n}", "ls"),
        ("/x/ { e ls\n }", "ls"),
        ("b end; e ls", "ls"),
        (":a;e ls", "ls"),
        ("s/a/b/;e ls", "ls"),
        ("s/a/b/w out\ne ls", "ls"),
        ("y/abc/xyz/;e ls", "ls"),
        ("$a\\\nappended\ne ls", "ls"),
        ("a one-liner\ne ls", "ls"),
        ("#n\ne ls", "ls"),
        ("# e rm -rf /\ne ls", "ls"),
        ("q5;e ls", "ls"),
        ("l 40;e ls", "ls"),
        ("r /etc/hosts\ne ls", "ls"),
    ],
)
def test_the_e_command_runs_its_text(script: str, shell: str) -> None:
    assert [(launch.api, launch.shell, launch.unknown) for launch in read(script)] == [
        ("e command", shell, "")
    ]


def test_the_briefs_examples() -> None:
    assert read("e git stash clear") == (Launch(api="e command", shell="git stash clear", line=1),)
    assert read("1e rm -rf /") == (Launch(api="e command", shell="rm -rf /", line=1),)


def test_line_numbers() -> None:
    assert read("p\n\n2e ls\ns/x/y/e") == (
        Launch(api="e command", shell="ls", line=3),
        Launch(api="s///e", shell="y", unknown=S_E, line=4),
    )


@pytest.mark.parametrize("script", ["e", "1e", "$!e", "/x/e", "e\np", "/x/{e\n}", "e  ", "p;e"])
def test_a_bare_e_runs_the_input(script: str) -> None:
    found = read(script)
    assert [(launch.api, launch.shell, launch.unknown) for launch in found] == [("e", None, BARE_E)]


@pytest.mark.parametrize(
    ("script", "shell"),
    [
        ("s/x/y/e", "y"),
        ("s/.*/git push -f/e", "git push -f"),
        ("s/x/y/ge", "y"),
        ("s/x/y/eg", "y"),
        ("s/x/y/3e", "y"),
        ("s/x/y/Iep", "y"),
        ("s/x/y/ew out.txt", "y"),
        ("s/x/y/e ; p", "y"),
        ("1{s/x/y/e}", "y"),
        ("s|x|rm -rf /|e", "rm -rf /"),
        ("s,x,a\\,b,e", "a,b"),
        ("s|x|a\\|b|e", "a|b"),
        ("s/x/a\\/b/e", "a/b"),
        ("s/x/echo &/e", f"echo {R}"),
        ("s/\\(.*\\)/rm -rf \\1/e", f"rm -rf {R}"),
        ("s/x/\\0 \\9/e", f"{R} {R}"),
        ("s/x/a\\&b/e", "a&b"),
        ("s&x&a\\&b&e", "a&b"),
        ("s/x/a\\nb/e", "a\nb"),
        ("s/x/a\\\nb/e", "a\nb"),
        ("s/x/a\\tb/e", "a\tb"),
        ("s/x/\\x72m -rf \\//e", "rm -rf /"),
        ("s/x/\\o162m/e", "rm"),
        ("s/x/\\d114m/e", "rm"),
        ("s/x/a\\\\b/e", "a\\b"),
        ("s/x/\\qz/e", "qz"),
        ("s/x/\\UGIT push/e", "GIT PUSH"),
        ("s/x/\\LGIT PUSH --FORCE/e", "git push --force"),
        ("s/x/\\LGIT\\E PUSH/e", "git PUSH"),
        ("s/x/\\uls/e", "Ls"),
        ("s/x/\\U\\lGIT/e", "gIT"),
        ("s/[a]/y/e", "y"),
    ],
)
def test_the_e_flag_runs_the_replacement_and_the_input(script: str, shell: str) -> None:
    found = read(script)
    assert [(launch.api, launch.shell, launch.unknown) for launch in found] == [("s///e", shell, S_E)]


@pytest.mark.parametrize(
    "script",
    [
        "s/a/b/g",
        "1d",
        "/x/p",
        "$a\\text",
        "$a\\\ne rm -rf /",
        "1i\\  foo\\\ne bar",
        "a hello; e ls",
        "i\\\nmulti\\\nline e ls\\\ne ls",
        "c\\e ls",
        ":a;N;$!ba;s/\\n/ /g",
        "s/x/y/w e",
        "s/x/y/w /tmp/e ls",
        "w e ls",
        "r e ls",
        "R e",
        "W e",
        "y/e/f/",
        "s/e/e/g",
        "s/x/e/",
        "s/e x/y/",
        "/e/p",
        "\\e x ep",
        "p # e ls",
        "# e ls",
        "=;l;q;Q;n;N;g;G;h;H;x;D;P;z;F",
        "b e",
        "t e;T e",
        ":e",
        "v 4.2",
        "s/a/b/;s/c/d/2;y/ab/cd/",
        "",
        "\n;\n",
        "1~3{/x/!{p;d}}",
        "-n",
    ],
)
def test_scripts_that_launch_nothing(script: str) -> None:
    assert read(script) == ()


@pytest.mark.parametrize(
    "script",
    [
        "1{e ls}",  # the e command takes the rest of the line, `}` included: the block is not closed
        "s/x/y/e extra",
        "1,e",
        "e ls\n}",
        "{e ls",
        "s\\x\\y\\e",
        "s/x/y/;{p;e",
    ],
)
def test_a_script_that_does_not_parse_and_may_hold_an_e_is_unknown(script: str) -> None:
    (launch,) = read(script)
    assert launch.api == "sed"
    assert launch.shell is None and "does not parse" in launch.unknown


@pytest.mark.parametrize(
    "script", ["s/hello/world", "s/a/b", "s/x/y", "s/x/y/ke", "y/abc/", "1,p", "k", "}", "a", "r", "s/x/y/gk"]
)
def test_a_script_that_does_not_parse_without_an_e_launches_nothing(script: str) -> None:
    assert read(script) == ()


@settings(max_examples=400, deadline=None)
@given(
    st.lists(
        st.sampled_from([*"seyaicrwWRbtT:{}!;,/|\\$~+0123456789 \n\tgpIMxnq#&", "e ", "s/x/y/e", "1e ls"]),
        max_size=40,
    ).map("".join)
)
def test_read_never_raises(text: str) -> None:
    found = read(text)
    assert all(launch.api in ("e command", "e", "s///e", "sed") for launch in found)
    assert all(launch.unknown or launch.api == "e command" for launch in found)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=200))
def test_read_never_raises_on_any_text(text: str) -> None:
    read(text)
