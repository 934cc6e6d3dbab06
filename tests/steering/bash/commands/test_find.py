"""What a `find` action may get for a start point: the start point and all below it, unless the tests
before the action cannot match the start point (then only entries below it, named as `-name` says)."""

from __future__ import annotations

import pytest

from rein.steering.bash import Bounded, Word
from rein.steering.bash.commands._find import reach
from tests.steering.bash.helpers import run


def _reach(path: str, expression: str, *, follows: bool = False, given: str = "") -> str:
    words = tuple(Word.literal(word) for word in expression.split())
    action = next(index for index, word in enumerate(words) if word.value in ("-delete", "-exec"))
    return reach(given or path, path, words, action, follows=follows)


@pytest.mark.parametrize(
    ("path", "expression", "expected"),
    [
        ("/tmp", "-name tmp.* -mtime +1 -exec", "/tmp/*tmp.*"),
        ("/tmp", "-name tmp* -delete", "/tmp"),  # `/tmp` is named `tmp`, which `tmp*` matches
        ("/tmp", "-name TMP* -delete", "/tmp/*TMP*"),
        ("/tmp", "-iname TMP* -delete", "/tmp"),
        ("/home", "-iname DEV -delete", "/home/*[dD][eE][vV]"),
        ("/home/dev", "-name *.pyc -delete", "/home/dev/**.pyc"),
        ("/home/dev", "-type f -delete", "/home/dev/*"),
        ("/home/dev", "-type d -delete", "/home/dev"),
        ("/home/dev", "-type f,d -delete", "/home/dev"),
        ("/home/dev", "-mindepth 1 -delete", "/home/dev/*"),
        ("/home/dev", "-delete -mindepth 1", "/home/dev/*"),  # a global option wherever written
        ("/home/dev", "-delete -name *.pyc", "/home/dev"),  # the test comes after the action
        ("/home/dev", "-name *.pyc -o -delete", "/home/dev"),
        ("/home/dev", "! -name *.pyc -delete", "/home/dev"),
        ("/home/dev", "( -name a -o -name b ) -delete", "/home/dev"),
        ("/home/dev", "-name .* -delete", "/home/dev/*"),  # every hidden entry: no bound below
        ("/home/dev", "-name * -delete", "/home/dev"),
        ("/tmp", "-path */node_modules/* -delete", "/tmp/*"),
        ("/tmp", "-regex .*/tmp\\..* -delete", "/tmp/*"),
        ("/tmp", "-regex /tm\\(p\\) -delete", "/tmp"),
        ("/tmp", "-regextype posix-extended -regex x -delete", "/tmp"),
        ("/tmp", "-name tmp.* -follow -delete", "/tmp"),
    ],
)
def test_the_tests_before_an_action_bound_what_it_gets(path: str, expression: str, expected: str) -> None:
    assert _reach(path, expression) == expected


def test_find_l_follows_links_out_of_the_start_point() -> None:
    assert _reach("/tmp", "-name tmp.* -delete", follows=True) == "/tmp"


def test_the_start_point_is_matched_as_written() -> None:
    assert _reach("/home/dev/p", "-name *.pyc -delete", given=".") == "/home/dev/p/**.pyc"
    assert _reach("/home/dev/p", "-name . -delete", given=".") == "/home/dev/p"


def test_a_dynamic_word_in_the_expression_may_be_any_operator() -> None:
    words = (Word.literal("-name"), Word.literal("x"), run('a "$X"').refs[0].argv[1], Word.literal("-delete"))
    assert reach("/tmp", "/tmp", words, 3) == "/tmp"


def test_find_exec_gets_the_bound() -> None:
    refs = run("find /tmp -name 'tmp.*' -exec rm -rf {} +").refs
    part = refs[1].argv[2].parts[0]
    assert not isinstance(part, str) and part.value == Bounded("below", "/tmp/*tmp.*")
