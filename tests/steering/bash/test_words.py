"""Canonical words: quote removal, escapes, `$'...'`, joining, braces, tilde, globs, dynamic parts."""

from __future__ import annotations

import pytest

from rein.steering.bash import UNKNOWN, Expansion, Unknown, Word
from rein.steering.bash._ansi import decode_ansi_c
from rein.steering.bash._parse import parse
from rein.steering.bash._words import assigned, lookup, resolve, split_assignment, tail, words
from tests.steering.bash.helpers import argvs, run


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("\\rm -rf /", ["rm", "-rf", "/"]),
        ("r\\m x", ["rm", "x"]),
        ("'r''m' x", ["rm", "x"]),
        ("'g'\"it\" status", ["git", "status"]),
        ("$'\\x72m' x", ["rm", "x"]),
        ("$'\\162m' x", ["rm", "x"]),
        ("$'\\u0072m' x", ["rm", "x"]),
        ("echo $'a\\nb\\tc'", ["echo", "a\nb\tc"]),
        (
            "echo $'it\\'s' $'a\\\\b' $'\\cA' $'\\q' $'\\U0001F600'",
            ["echo", "it's", "a\\b", "\x01", "\\q", "😀"],
        ),
        ('echo "a\\"b\\$c\\\\d\\e"', ["echo", 'a"b$c\\d\\e']),
        ("echo 'x'\\''y'", ["echo", "x'y"]),
        ('echo "" a""b', ["echo", "", "ab"]),
        ('echo $"tr" x$"y"', ["echo", "tr", "xy"]),
        ("echo a\\\nb", ["echo", "ab"]),
        ("r\\\nm -rf /", ["rm", "-rf", "/"]),
        ('echo "a\\\nb"', ["echo", "ab"]),
        ("echo 'a\\\nb'", ["echo", "a\\\nb"]),
        ("echo x\\ y", ["echo", "x y"]),
        ("echo a=b --flag=1 -- -", ["echo", "a=b", "--flag=1", "--", "-"]),
        ("echo x # a comment", ["echo", "x"]),
        ('echo "a$" ~"x" "$"', ["echo", "a$", "~x", "$"]),
    ],
)
def test_quotes_and_escapes_are_resolved(source: str, expected: list[str]) -> None:
    assert argvs(source) == [expected]


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("echo x{a,b}y", ["echo", "xay", "xby"]),
        ("echo {1..3} {a..c}", ["echo", "1", "2", "3", "a", "b", "c"]),
        ("echo {01..03} {3..1} {1..10..4}", ["echo", "01", "02", "03", "3", "2", "1", "1", "5", "9"]),
        ("echo {a,b}{c,d}", ["echo", "ac", "ad", "bc", "bd"]),
        ("echo {a,{b,c}}", ["echo", "a", "b", "c"]),
        ("r{m,} -rf /", ["rm", "r", "-rf", "/"]),
        ("echo '{a,b}' \\{a,b\\} {a} {} a{b", ["echo", "{a,b}", "{a,b}", "{a}", "{}", "a{b"]),
    ],
)
def test_brace_expansion(source: str, expected: list[str]) -> None:
    assert argvs(source) == [expected]


def test_huge_brace_expansion_is_dynamic_not_expanded() -> None:
    (ref,) = run("echo {1..100000}").refs
    assert len(ref.argv) == 2 and ref.argv[1].dynamic


@pytest.mark.parametrize(
    ("raw", "value", "parts"),
    [
        ("$HOME", "$HOME", (Expansion(kind="var", raw="$HOME", name="HOME"),)),
        ("${HOME}/x", "${HOME}/x", (Expansion(kind="var", raw="${HOME}", name="HOME"), "/x")),
        ("${x:-y}", "${x:-y}", (Expansion(kind="var", raw="${x:-y}"),)),
        ('"a  $x  b"', "a  $x  b", ("a  ", Expansion(kind="var", raw="$x", name="x", quoted=True), "  b")),
        ("$(pwd)", "$(pwd)", (Expansion(kind="command", raw="$(pwd)"),)),
        ("`pwd`", "`pwd`", (Expansion(kind="command", raw="`pwd`"),)),
        ("$((1+2))", "$((1+2))", (Expansion(kind="arith", raw="$((1+2))"),)),
        ("<(ls)", "<(ls)", (Expansion(kind="process", raw="<(ls)"),)),
        ("*.txt", "*.txt", (Expansion(kind="glob", raw="*.txt"),)),
        ("a[bc]", "a[bc]", (Expansion(kind="glob", raw="a[bc]"),)),
        ('"src/"*.py', "src/*.py", ("src/", Expansion(kind="glob", raw="*.py"))),
        ("~", "~", (Expansion(kind="var", raw="~", name="HOME"),)),
        ("~/x", "~/x", (Expansion(kind="var", raw="~", name="HOME"), "/x")),
        ("~+/x", "~+/x", (Expansion(kind="var", raw="~+", name="PWD"), "/x")),
        ("~-", "~-", (Expansion(kind="var", raw="~-", name="OLDPWD"),)),
        ("~root/x", "~root/x", (Expansion(kind="other", raw="~root"), "/x")),
    ],
)
def test_dynamic_parts_are_marked(raw: str, value: str, parts: tuple[object, ...]) -> None:
    """The word as written, before the walk puts known values in (`$HOME` is known there)."""
    src = f"echo {raw}".encode()
    command = parse(src).children[0]
    (word,) = words([child for child in command.children if child.type != "command_name"], src, [])
    assert (word.value, word.raw, word.parts, word.dynamic) == (value, raw, parts, True)


@pytest.mark.parametrize("raw", ['"*.txt"', "\\*", "'$HOME'", '"~"', "x~", "[", "a]b", "'a[bc]'"])
def test_quoted_or_plain_text_is_literal(raw: str) -> None:
    word = run(f"echo {raw}").refs[-1].argv[1]
    assert word.parts == () and not word.dynamic


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("plain", "plain"),
        ("\\a\\b\\e\\f\\n\\r\\t\\v", "\a\b\x1b\f\n\r\t\v"),
        ("\\x41\\x4", "A\x04"),
        ("\\0\\101\\1010", "\x00A" + "A0"),
        ("\\u00e9\\U0001F600", "é😀"),
        ("\\UFFFFFFFF", "\ufffd"),
        ("\\\"\\?\\'", "\"?'"),
        ("\\z", "\\z"),
    ],
)
def test_decode_ansi_c(body: str, expected: str) -> None:
    assert decode_ansi_c(body) == expected


@pytest.mark.parametrize(
    ("word", "env", "expected"),
    [
        (Word.literal("x"), {}, "x"),
        (
            Word(value="$A/b", raw="$A/b", parts=(Expansion(kind="var", raw="$A", name="A"), "/b")),
            {"A": "/a"},
            "/a/b",
        ),
        (Word(value="$A", raw="$A", parts=(Expansion(kind="var", raw="$A", name="A"),)), {}, UNKNOWN),
        (
            Word(value="$A", raw="$A", parts=(Expansion(kind="var", raw="$A", name="A"),)),
            {"A": UNKNOWN},
            UNKNOWN,
        ),
        (Word(value="*", raw="*", parts=(Expansion(kind="glob", raw="*"),)), {}, UNKNOWN),
    ],
)
def test_resolve(word: Word, env: dict[str, object], expected: object) -> None:
    assert resolve(word, env) == expected  # type: ignore[arg-type]


def test_lookup_reads_only_variables() -> None:
    env = {"A": "/a", "HOME": "/h"}
    assert lookup(Expansion(kind="var", raw="$A", name="A"), env) == "/a"
    assert lookup(Expansion(kind="var", raw="$B", name="B"), env) is UNKNOWN
    assert lookup(Expansion(kind="var", raw="${A:-x}"), env) is UNKNOWN
    assert lookup(Expansion(kind="glob", raw="*"), env) is UNKNOWN
    assert lookup(Expansion(kind="command", raw="$(pwd)"), env) is UNKNOWN


def test_assigned() -> None:
    dollar_a = Word(value="$A", raw="$A", parts=(Expansion(kind="var", raw="$A", name="A"),))
    env: dict[str, str | Unknown] = {"A": "/a", "X": "x", "U": UNKNOWN}
    assert assigned("X", Word.literal("1"), False, env) == "1"
    assert assigned("X", dollar_a, False, env) == "/a"
    assert assigned("X", dollar_a, True, env) == "x/a"
    assert assigned("NEW", Word.literal("1"), True, env) is UNKNOWN  # appending to an unknown value
    assert assigned("U", Word.literal("1"), True, env) is UNKNOWN
    assert assigned("X", None, False, env) is UNKNOWN  # an array or subscript
    assert assigned("X", None, True, env) is UNKNOWN


def test_split_assignment() -> None:
    dynamic = Word(
        value="X=$Y/z", raw="X=$Y/z", parts=("X=", Expansion(kind="var", raw="$Y", name="Y"), "/z")
    )
    assert split_assignment(Word.literal("X=1")) == ("X", Word(value="1", raw="X=1"), False)
    assert split_assignment(Word.literal("X+=1")) == ("X", Word(value="1", raw="X+=1"), True)
    name, value, append = split_assignment(dynamic) or ("", Word.literal(""), True)
    assert (name, value.value, value.parts, append) == ("X", "$Y/z", dynamic.parts[1:], False)
    assert split_assignment(Word.literal("1X=1")) is None
    assert split_assignment(Word.literal("plain")) is None


def test_tail() -> None:
    assert tail(Word.literal("-uroot"), 2) == Word(value="root", raw="-uroot")
    dynamic = Word(value="-C$D", raw="-C$D", parts=("-C", Expansion(kind="var", raw="$D", name="D")))
    assert tail(dynamic, 2).parts == (Expansion(kind="var", raw="$D", name="D"),)
    assert tail(Word(value="$X", raw="$X", parts=(Expansion(kind="var", raw="$X", name="X"),)), 1).dynamic
