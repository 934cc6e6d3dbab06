"""`analyze`: the one entry point. Pure, and it never raises: failures become problems."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache

from rein.steering.bash import commands
from rein.steering.bash._effects import join_path
from rein.steering.bash._frame import Ctx, Frame, Value
from rein.steering.bash._walker import Walker
from rein.steering.bash.model import EMPTY_ENV, UNKNOWN, Analysis, Env, Tracker, Unknown

MAX_SOURCE = 1_000_000
"""Longer command lines are not analysed (a problem says so)."""


def analyze(
    source: str,
    *,
    cwd: str | Unknown,
    home: str,
    env: Env = EMPTY_ENV,
    values: Mapping[str, object] | None = None,
    trackers: Sequence[Tracker] = (),
    known: frozenset[str] = frozenset(),
) -> Analysis:
    """Every command `source` would execute, in order, each with the shell state at its position.

    `cwd` is the absolute starting directory (anything else is taken as unknown), `home` the user's
    home (the default for HOME, so `~` and a bare `cd` resolve), `env` the variables known at start
    (PWD is always `cwd`; anything missing is unknown when expanded), `values` each tracker's starting
    value by name (missing ones start UNKNOWN), `trackers` the extra state dimensions to follow, and
    `known` command names to treat as known besides the command model's own (the names the policy's
    rules are about), so an unknown wrapper cannot hide them.

    `Analysis.comments` holds the text of the command line's own comments (`# ...`, not a `#` inside
    quotes or a word, nor one inside a `bash -c` string or heredoc).

    Never raises, whatever the input: anything not understood (a parse error, a construct the walker
    does not model) is listed in `Analysis.problems`, with the refs found anyway; a walk past rein's
    budget (nesting too deep, too much work) stops and says why in `Analysis.exhausted`.
    """
    walker = Walker(trackers, _known(known))
    comments: list[str] = []
    try:
        src = source.encode("utf-8", "surrogatepass")
        walker.problems.extend(_input_problems(source, src))
        if len(src) <= MAX_SOURCE:
            walker.source(_start(cwd, home, env, values, trackers), (), Ctx(src), comments)
    except RecursionError:
        walker.problems.append("the command nests too deeply to analyse")
    except Exception as error:  # the contract is to never raise: fail closed with what was found
        walker.problems.append(f"internal error while analysing the command: {type(error).__name__}: {error}")
    problems = tuple(dict.fromkeys(walker.problems)) if walker.problems else ()
    return Analysis(
        source=source, refs=tuple(walker.refs), problems=problems, comments=tuple(comments),
        exhausted=walker.exhausted,
    )  # fmt: skip


@lru_cache(maxsize=8)
def _known(extra: frozenset[str]) -> frozenset[str]:
    """The model's command names and a policy's (one union per policy, not per call)."""
    return commands.KNOWN | extra


def _input_problems(source: str, src: bytes) -> list[str]:
    problems: list[str] = []
    if len(src) > MAX_SOURCE:
        problems.append(f"the command is longer than {MAX_SOURCE} bytes and was not analysed")
    if "\0" in source:
        problems.append("the command contains a NUL byte, which a shell does not run as written")
    if not source.isascii():
        try:
            source.encode("utf-8")
        except UnicodeEncodeError:
            problems.append("the command contains invalid unicode (a lone surrogate)")
    return problems


def _start(
    cwd: str | Unknown,
    home: str,
    env: Env,
    values: Mapping[str, object] | None,
    trackers: Sequence[Tracker],
) -> Frame:
    """The state before the first command: HOME defaults to `home`, PWD is `cwd`."""
    start: Value = UNKNOWN
    if isinstance(cwd, str) and cwd.startswith("/"):
        normal = "/." not in cwd and "//" not in cwd and (cwd == "/" or not cwd.endswith("/"))
        start = cwd if normal else join_path(UNKNOWN, cwd)
    variables: dict[str, Value] = {"HOME": home, **env, "PWD": start}
    known: dict[str, object] = {tracker.name: UNKNOWN for tracker in trackers}
    known.update(values or {})
    return Frame(start, variables, known)
