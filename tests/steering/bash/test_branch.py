"""BranchTracker: git checkout and switch, through scoping and wrappers."""

from __future__ import annotations

import pytest

from rein.steering.bash import UNKNOWN, BranchTracker, CommandRef, State, Tracker, Word
from tests.steering.bash.helpers import CWD, branch_run

U = UNKNOWN


def branches(source: str, start: object = "feature") -> list[object]:
    """The branch seen by each `git push` in `source`."""
    return [ref.state.branch for ref in branch_run(source, start).refs if ref.text == "git push"]


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("git push", ["feature"]),
        ("git checkout main && git push", ["main"]),
        ("git switch main; git push", ["main"]),
        ("git checkout -b new; git push; git checkout -B other; git push", ["new", "other"]),
        ("git checkout -b new origin/main; git push", ["new"]),
        ("git checkout -fb new; git push", ["new"]),
        ("git checkout --orphan o; git push; git checkout --orphan=p; git push", ["o", "p"]),
        (
            "git switch -c new; git push; git switch -C x; git push; git switch --create=y; git push",
            ["new", "x", "y"],
        ),
        ("git checkout --detach; git push", [None]),
        ("git checkout --detach main; git push; git switch -d v1.0; git push", [None, None]),
        ("git checkout v1.0; git push", ["v1.0"]),
        ("git checkout -t origin/topic; git push", ["topic"]),
        ("git checkout -; git push", [U]),
        ("git checkout $B; git push; git checkout main; git push", [U, "main"]),
        ("git checkout -- file; git push", ["feature"]),
        ("git checkout main -- file; git push", ["feature"]),
        ("git checkout main file1 file2; git push", ["feature"]),
        ("git checkout -p; git push; git checkout --pathspec-from-file=f; git push", ["feature", "feature"]),
        ("git checkout; git push; git checkout -q; git push", ["feature", "feature"]),
        ("git -C . checkout main; git push", ["main"]),
        ("git -c core.x=1 --no-pager checkout main; git push", ["main"]),
        ("git -C /other checkout main; git push", ["feature"]),
        ("git -C $D checkout main; git push", [U]),
        (f"git -C {CWD} checkout main; git push", ["main"]),
        ("git --git-dir=/x/.git checkout main; git push", [U]),
        ("env -C /other git checkout main; git push", ["feature"]),
        ("git branch -m renamed; git push; git branch -m renamed again; git push", ["renamed", "again"]),
        ("git branch -m other x; git push; git branch new; git push", ["feature", "feature"]),
        ("git stash branch fix; git push", ["fix"]),
        ("git bisect start; git push; git bisect log; git push", [U, U]),
        ("git log; git status; git push", ["feature"]),
        ("(git checkout main); git push", [U]),
        ("git checkout main | cat; git push", [U]),
        ("echo $(git checkout main); git push", [U]),
        ("git checkout main & git push", [U]),
        ("{ git checkout main; }; git push", ["main"]),
        ("if x; then git checkout main; fi; git push", [U]),
        ("if x; then git checkout main; else git switch main; fi; git push", ["main"]),
        ("sudo git checkout main; git push", ["main"]),
        ("bash -c 'git checkout main'; git push", ["main"]),
        ("xargs git checkout; git push", [UNKNOWN]),  # xargs may give it a branch
        ("find . -exec git checkout main \\;; git push", [U]),
        ("ssh host git checkout main; git push", ["feature"]),
        ("cd /elsewhere && git checkout main && git push", ["main"]),
    ],
)
def test_branch(source: str, expected: list[object]) -> None:
    assert branches(source) == expected


def test_a_command_elsewhere_sees_an_unknown_branch() -> None:
    analysis = branch_run("git -C /other status; env -C /x git push; git status")
    assert [ref.state.branch for ref in analysis.refs] == [U, "feature", U, "feature"]


def test_start_value_defaults_to_unknown_and_other_values_pass_through() -> None:
    from tests.steering.bash.helpers import run

    analysis = run("git push", values={"other": 1}, trackers=(BranchTracker(),))
    assert analysis.refs[0].state.values == {"other": 1, "branch": U}


def test_ssh_values_are_unknown() -> None:
    analysis = branch_run("ssh h git push")
    assert analysis.refs[-1].state.branch is U


class _Counter:
    """A tracker counting commands, to check the walker's contract with trackers."""

    name = "count"

    def at(self, value: object, ref: CommandRef) -> object:
        return value

    def after(self, value: object, ref: CommandRef) -> object:
        return value + 1 if isinstance(value, int) else U


class _Broken:
    name = "broken"

    def at(self, value: object, ref: CommandRef) -> object:
        raise RuntimeError("bug")

    def after(self, value: object, ref: CommandRef) -> object:
        return value


def test_trackers_see_their_incoming_value_and_scoping_applies() -> None:
    from tests.steering.bash.helpers import run

    trackers: tuple[Tracker, ...] = (_Counter(),)
    analysis = run("a; b && c; (d); e", values={"count": 0}, trackers=trackers)
    assert [ref.state.values["count"] for ref in analysis.refs] == [0, 1, 2, 3, U]


def test_a_failing_tracker_is_a_problem_not_a_crash() -> None:
    from tests.steering.bash.helpers import run

    analysis = run("ls", trackers=(_Broken(),))
    assert analysis.refs[0].state.values["broken"] is U
    assert analysis.problems == ("tracker 'broken' failed on 'ls': RuntimeError",)


def test_branch_tracker_without_pwd() -> None:
    ref = CommandRef(
        index=0,
        argv=(Word.literal("git"), Word.literal("checkout"), Word.literal("x")),
        raw="",
        state=State(cwd="/a"),
    )
    assert BranchTracker().after("main", ref) is U
    assert BranchTracker().at("main", ref) is U
    unknown = CommandRef(index=0, argv=ref.argv, raw="", state=State(cwd=U, env={"PWD": U}))
    assert BranchTracker().after("main", unknown) == "x"
