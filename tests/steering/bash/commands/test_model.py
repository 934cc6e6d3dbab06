"""The command model: every command is inert, a runner, or unknown; an unknown one's argv suffixes and
string arguments are checked as if they ran; runners say where their inner command is."""

from __future__ import annotations

import pytest

from rein.steering.bash.commands import KNOWN, RUNNERS, kind_of
from rein.steering.bash.commands._examples import EXAMPLES
from tests.steering.bash.helpers import run, texts


@pytest.mark.parametrize(
    ("name", "kind"),
    [
        ("echo", "inert"),
        ("grep", "inert"),
        ("jq", "inert"),
        ("rm", "inert"),
        ("sudo", "runner"),
        ("xargs", "runner"),
        ("python3.12", "runner"),
        ("git", "runner"),  # by name; `git status` itself reads as inert (below)
        ("prlimit", "unknown"),
        ("./deploy.sh", "unknown"),
    ],
)
def test_every_name_has_a_kind(name: str, kind: str) -> None:
    assert kind_of(name) == kind


@pytest.mark.parametrize(
    ("source", "kinds"),
    [
        ("echo hi", ["inert"]),
        ("git status", ["inert"]),
        ("git rebase -x 'make test' main", ["runner", "inert"]),
        ("git -c alias.x='!ls' x", ["runner", "inert"]),
        ("sudo ls", ["runner", "inert"]),
        ("npm test", ["inert"]),
        ("npm exec -- eslint .", ["runner", "inert"]),
        ("mytool --flag", ["unknown"]),
    ],
)
def test_a_command_reads_as_runner_only_when_it_runs_something(source: str, kinds: list[str]) -> None:
    assert [ref.kind for ref in run(source).refs] == kinds


def test_an_unknown_commands_argv_suffixes_are_checked() -> None:
    analysis = run("prlimit --nofile=64 rm -rf ~ now; ionice -c3 git push -f")
    suffix = [ref for ref in analysis.refs if ref.via == "argv suffix"]
    assert [ref.text for ref in suffix] == ["rm -rf /home/dev now"]
    assert suffix[0].wrappers == ("prlimit",) and "prlimit is not a command rein knows" in suffix[0].why
    assert "git push -f" in texts(analysis)  # ionice is a runner: exact, not a guess


def test_only_suffixes_that_start_with_a_known_name_count() -> None:
    assert texts(run("mytool build --verbose now")) == ["mytool build --verbose now"]
    assert texts(run("mytool a b acme destroy")) == ["mytool a b acme destroy"]
    analysis = run("mytool a b acme destroy", known=frozenset({"acme"}))  # a name the policy's rules use
    assert "acme destroy" in texts(analysis)


def test_string_arguments_that_read_as_commands_are_checked() -> None:
    analysis = run("hyperfine 'git push --force' --prepare='rm -rf /tmp/x' plain")
    assert [ref.text for ref in analysis.refs if ref.via == "string argument"] == [
        "git push --force",
        "rm -rf /tmp/x",
    ]


def test_guesses_do_not_compound_and_do_not_fail_to_parse() -> None:
    analysis = run('mynotify "Run npm run dev to start, don\'t wait"')
    assert analysis.understood  # prose that is not shell is no problem
    assert [ref.name for ref in analysis.refs] == ["mynotify"]  # `Run` is no program rein knows
    guessed = run("mynotify 'ls; frob git push -f'")
    assert [ref.name for ref in guessed.refs] == ["mynotify", "ls", "frob"]  # frob is not scanned again


def test_too_many_guesses_make_the_command_unknown() -> None:
    ref = run("mytool " + " ls" * 40).refs[0]
    assert ref.unknown and "more than 32 arguments that may be commands" in ref.unknown[0]


def test_inert_commands_run_nothing_they_are_given() -> None:
    for source in ("echo git push --force", "grep -r 'rm -rf /' .", "git commit -m 'rm -rf /'", "jq '.x' f"):
        assert len(run(source).refs) == 1, source


def test_every_runner_is_a_known_name() -> None:
    assert set(RUNNERS) <= KNOWN and set(EXAMPLES) - {"python"} <= KNOWN
