"""A string argument of an unknown program is read as a command line only when it parses as bash and
the first command it runs is a program rein knows (or one named by its path, or shell syntax)."""

from __future__ import annotations

import pytest

from rein.steering.bash.commands import KNOWN
from rein.steering.bash.commands._guess import command_line, parses
from tests.steering.bash.helpers import run, texts


@pytest.mark.parametrize(
    "text",
    [
        "git push -f",
        "X=1 git push -f",
        "sudo git push -f",
        "bash -c 'git push -f'",
        "\\git push -f",
        '"git" push -f',
        "/usr/bin/git push -f",
        "./deploy.sh --prod",
        "cd /tmp && rm -rf x",
        "(git push -f)",
        "{ git push -f; }",
        "! git diff --quiet",
        "if true; then git push -f; fi",
        "for f in *; do rm -rf $f; done",
        "$(git push -f) x",
        "ran $(git push -f)",
        "X=$(date) frob",
        "[[ -d x ]] && git push -f",
        "export A=1; git push -f",
        "f () { git push -f; }; f",
        "# a comment\ngit push -f",
    ],
)
def test_shell_that_starts_with_a_known_command_is_a_command_line(text: str) -> None:
    assert command_line(text, KNOWN)


@pytest.mark.parametrize(
    "text",
    [
        "int(a() / b())",
        "ran git reset --hard",
        "a | b",
        "deploy: git push -f done",
        "Fix the bug (urgent)",
        "select * from t where a > 1",
        "$CMD --force",
        "'unterminated",
        "git (x",
        "- fix bug\n- add test",
        "x | length",
    ],
)
def test_anything_else_is_data(text: str) -> None:
    assert not command_line(text, KNOWN)


def test_the_policys_own_names_are_known_too() -> None:
    assert command_line("deploy-prod --now", KNOWN | {"deploy-prod"})


def test_parses() -> None:
    assert parses("echo hi && ls") and not parses("echo 'hi")


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("mytool 'int(a() / b())'", ["mytool int(a() / b())"]),
        ("logger -t deploy 'ran git reset --hard'", ["logger -t deploy ran git reset --hard"]),
        ("submit 'echo a | sed s/a/b/'", ["submit echo a | sed s/a/b/", "echo a", "sed s/a/b/"]),
        ("mytool --cmd='git status'", ["mytool --cmd=git status", "git status"]),
        ("mytool 'X=1 git status'", ["mytool X=1 git status", "git status"]),
    ],
)
def test_only_command_lines_are_walked(source: str, expected: list[str]) -> None:
    analysis = run(source)
    assert analysis.understood, analysis.problems
    assert texts(analysis) == expected
