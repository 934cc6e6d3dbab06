"""Options read as getopt_long and git's parse-options read them: abbreviations, clusters, values."""

from __future__ import annotations

import pytest

from rein.steering.bash import Word
from rein.steering.bash.commands import Options, long_options, parse
from rein.steering.bash.commands._options import expand_long, normalize

RM = Options(
    long=long_options("force", "interactive?", "recursive", "dir", "no-preserve-root", "preserve-root?")
)
PUSH = Options(
    short_value="o",
    long=long_options("force", "force-with-lease?", "force-if-includes", "repo=", "mirror"),
    negate=True,
)
RUNNER = Options(short_value="sk", long=long_options("signal=", "kill-after="), permute=False)


def argv(text: str) -> tuple[Word, ...]:
    return tuple(Word.literal(word) for word in text.split())


@pytest.mark.parametrize(
    ("name", "options", "expected"),
    [
        ("recu", RM, ("recursive",)),
        ("forc", RM, ("force",)),
        ("force", PUSH, ("force",)),  # exact beats a longer option it prefixes
        ("forc", PUSH, ("force", "force-with-lease", "force-if-includes")),  # ambiguous, as in git
        ("force-w", PUSH, ("force-with-lease",)),
        ("no-force", PUSH, ("no-force",)),
        ("no-forc", PUSH, ("no-force", "no-force-if-includes")),
        ("bogus", RM, ()),
    ],
)
def test_long_options_expand_like_the_tool(name: str, options: Options, expected: tuple[str, ...]) -> None:
    assert expand_long(name, options) == expected


def test_clusters_values_and_operands() -> None:
    parsed = parse(argv("rm -rf --recu -- -x /"), 1, RM)
    assert [name for name, _ in parsed.options] == ["-r", "-f", "--recursive"]
    assert [word.value for word in parsed.operands] == ["-x", "/"]
    pushed = parse(argv("git push -ofoo --repo=o --repo p origin +main"), 2, PUSH)
    assert [(name, value.value if value else None) for name, value in pushed.options] == [
        ("-o", "foo"),
        ("--repo", "o"),
        ("--repo", "p"),
    ]
    assert [word.value for word in pushed.operands] == ["origin", "+main"]


def test_a_runner_stops_at_its_first_operand() -> None:
    parsed = parse(argv("timeout -s KILL --kill-after 1 5 rm -rf /"), 1, RUNNER)
    assert parsed.rest == 5 and parsed.has("-s", "--kill-after")


def test_ambiguous_and_unknown_options_are_reported() -> None:
    assert parse(argv("git push --forc"), 2, PUSH).unknown == (
        "--forc (could be --force or --force-with-lease or --force-if-includes)",
    )
    assert parse(argv("rm --bogus x"), 1, RM).unknown == ("--bogus",)


def test_normalize_writes_abbreviations_out_and_marks_ambiguous_ones() -> None:
    words = normalize(argv("rm --recu --forc=x /"), 1, RM)
    assert [word.value for word in words] == ["rm", "--recursive", "--force=x", "/"]
    ambiguous = normalize(argv("git push --forc"), 2, PUSH)[2]
    assert ambiguous.dynamic and ambiguous.value == "--forc"
    untouched = argv("git push --repo --forc")  # `--forc` is the value of --repo
    assert normalize(untouched, 2, PUSH) == untouched
