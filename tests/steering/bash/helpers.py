"""Shared helpers for the bash analysis tests: one fixed home and cwd, and short ways to read refs."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from rein.steering.bash import EMPTY_ENV, Analysis, BranchTracker, CommandRef, Env, Tracker, Unknown, analyze

HOME = "/home/dev"
CWD = "/home/dev/project"


def run(
    source: str,
    *,
    cwd: str | Unknown = CWD,
    env: Env = EMPTY_ENV,
    values: Mapping[str, object] | None = None,
    trackers: Sequence[Tracker] = (),
    known: frozenset[str] = frozenset(),
) -> Analysis:
    return analyze(source, cwd=cwd, home=HOME, env=env, values=values, trackers=trackers, known=known)


def branch_run(
    source: str, branch: object = "feature", *, cwd: str | Unknown = CWD, env: Env = EMPTY_ENV
) -> Analysis:
    """Analyse with the BranchTracker starting on `branch`."""
    return run(source, cwd=cwd, env=env, values={"branch": branch}, trackers=(BranchTracker(),))


def texts(analysis: Analysis) -> list[str]:
    """Each ref's canonical command line, in order."""
    return [ref.text for ref in analysis.refs]


def argvs(source: str) -> list[list[str]]:
    return [[word.value for word in ref.argv] for ref in run(source).refs]


def only(analysis: Analysis, text: str) -> CommandRef:
    """The single ref whose canonical text is `text`."""
    found = [ref for ref in analysis.refs if ref.text == text]
    assert len(found) == 1, (text, texts(analysis))
    return found[0]


def cwds(source: str, *, env: Env = EMPTY_ENV) -> list[str | Unknown]:
    """The cwd of each ref, in order."""
    return [ref.state.cwd for ref in run(source, env=env).refs]
