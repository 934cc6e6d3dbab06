"""`default-branch-delete`: which `git push` deletes the remote's default branch, read with git's own
option table, and the remote's HEAD where git can be asked."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from rein.steering._pack_tests_hosting import deletes_default_branch
from rein.steering._types import GitResult
from rein.steering.bash import UNKNOWN, CommandRef
from tests.steering.bash.helpers import run
from tests.steering.conftest import make_context


class FakeGit:
    """Answers `git symbolic-ref ... refs/remotes/<remote>/HEAD` as a clone of a remote whose default
    branch is `production` would; records what it was asked."""

    def __init__(self, head: str | None = "origin/production") -> None:
        self.head = head
        self.calls: list[tuple[str, ...]] = []

    def run(self, args: Sequence[str], cwd: str) -> GitResult:
        self.calls.append(tuple(args))
        if self.head is None or args[-1] != "refs/remotes/origin/HEAD":
            return GitResult(code=1)
        return GitResult(code=0, stdout=self.head + "\n")


def _last(line: str) -> CommandRef:
    return run(line).refs[-1]


def _answer(line: str, git: FakeGit | None = None) -> object:
    return deletes_default_branch(_last(line), make_context(git=git))


@pytest.mark.parametrize(
    "line",
    [
        "git push origin --delete main",
        "git push origin --delete master",
        "git push origin -d trunk",
        "git push --delete origin develop",
        "git push origin --delete refs/heads/main",
        "git push origin --delete feature-x main",
        "git push origin :main",
        "git push origin :refs/heads/master",
        "git push origin feature-x :main",
        "git -C ../site push origin --delete main",
        "git push -o ci.skip origin --delete main",
        "git push --dry-run --no-dry-run origin --delete main",
        "B=main; git push origin --delete $B",
    ],
)
def test_deleting_a_default_name_is(line: str) -> None:
    assert _answer(line) is True


@pytest.mark.parametrize(
    "line",
    [
        "git push origin --delete feature-x",
        "git push origin -d fix/login-main",
        "git push origin --delete main-backup",
        "git push origin :feature-x",
        "git push origin main",
        "git push origin main:main",
        "git push origin HEAD:main",
        "git push origin --delete main --dry-run",
        "git push -n origin :main",
        "git push origin --delete feature-$N",
        "git push origin --delete refs/heads/wip-$N",
        "git push --delete origin",
        "git push",
        "git fetch origin --delete main",
        "git branch -d main",
    ],
)
def test_a_feature_branch_pushes_and_other_commands_are_not(line: str) -> None:
    assert _answer(line) is False


@pytest.mark.parametrize(
    "line",
    [
        'git push origin --delete "$BRANCH"',
        "git push origin --delete $(git branch --show-current)",
        "git push origin --delete ma$X",
        "git push origin --delete refs/$X",
    ],
)
def test_a_branch_rein_cannot_read_may_be_the_default(line: str) -> None:
    assert _answer(line) is UNKNOWN


def test_the_remotes_head_is_a_default_branch_too() -> None:
    git = FakeGit()
    assert _answer("git push origin --delete production", git) is True
    assert _answer("git push origin :refs/heads/production", git) is True
    assert _answer("git push origin --delete staging", git) is False
    assert _answer("git push origin --delete prod-$N", git) is False
    assert _answer("git push origin --delete prod$N", git) is UNKNOWN
    assert _answer("git push upstream --delete production", git) is False  # another remote's HEAD unknown


def test_git_is_asked_only_when_a_static_name_does_not_decide() -> None:
    git = FakeGit()
    assert _answer("git push origin --delete main", git) is True
    assert _answer("git push origin main", git) is False
    assert git.calls == []
    assert _answer("git push origin --delete feature-x", git) is False
    assert git.calls == [("symbolic-ref", "--quiet", "--short", "refs/remotes/origin/HEAD")]


def test_without_a_remote_head_only_the_usual_names_count() -> None:
    assert _answer("git push origin --delete production", FakeGit(head=None)) is False
    assert _answer("git push origin --delete production") is False
