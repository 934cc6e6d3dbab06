"""`analyze`: the one entry point. Pure, and it never raises: failures become problems."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from functools import lru_cache

from rein.steering.bash import commands
from rein.steering.bash._disk import Disk, DiskView
from rein.steering.bash._effects import join_path
from rein.steering.bash._frame import TEMP, Ctx, Frame, Value
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
    disk: Disk | None = None,
) -> Analysis:
    """Every command `source` would execute, in order, each with the shell state at its position.

    `cwd` is the absolute starting directory (anything else is taken as unknown), `home` the user's
    home (the default for HOME, so `~` and a bare `cd` resolve), `env` the variables known at start
    (PWD is always `cwd`; anything missing is unknown when expanded), `values` each tracker's starting
    value by name (missing ones start UNKNOWN), `trackers` the extra state dimensions to follow, and
    `known` command names to treat as known besides the command model's own (the names the policy's
    rules are about), so an unknown wrapper cannot hide them. `disk` reads the files the line runs
    (scripts, package.json scripts, makefiles, git's configuration and hooks) at check time; without
    it only what the line itself wrote is read.

    `Analysis.comments` holds the text of the command line's own comments (`# ...`, not a `#` inside
    quotes or a word, nor one inside a `bash -c` string or heredoc).

    Never raises, whatever the input: anything not understood (a parse error, a construct the walker
    does not model) is listed in `Analysis.problems`, with the refs found anyway; a walk past rein's
    budget (nesting too deep, too much work) stops and says why in `Analysis.exhausted`.
    """
    walker = Walker(
        trackers, _known(known), disk=DiskView(disk, cwd if isinstance(cwd, str) else None) if disk else None
    )
    comments: list[str] = []
    start = _start(cwd, home, env, values, trackers)
    try:
        src = source.encode("utf-8", "surrogatepass")
        walker.problems.extend(_input_problems(source, src))
        block = _harness(source) if len(src) <= MAX_SOURCE else None
        if block is not None:
            _harness_block(walker, start, block, comments)
        elif len(src) <= MAX_SOURCE:
            walker.source(start, (), Ctx(src), comments)
    except RecursionError:
        walker.problems.append("the command nests too deeply to analyse")
    except Exception as error:  # the contract is to never raise: fail closed with what was found
        walker.problems.append(f"internal error while analysing the command: {type(error).__name__}: {error}")
    problems = tuple(dict.fromkeys(walker.problems)) if walker.problems else ()
    files = start.files
    writes = tuple(path for path in files if path != TEMP)
    return Analysis(
        source=source, refs=tuple(walker.refs), problems=problems, comments=tuple(comments),
        exhausted=walker.exhausted, writes=writes, writes_unnamed=start.files_unknown,
        contents=tuple((path, text) for path in writes if isinstance(text := files[path], str)),
    )  # fmt: skip


_HEAD = re.compile(r"[A-Za-z_][\w-]*")
_END = re.compile(r"end_of_[a-z_]+")


def _harness(source: str) -> tuple[str, str, str, str] | None:
    """An agent harness's multi-line command (SWE-agent's `edit 12:14` ... `end_of_edit`): its name,
    the rest of its first line, the lines between (text the harness hands its own command; they reach
    a shell only if no harness reads them) and the closing line. Split by hand: no regex runs over a
    long input."""
    if "end_of_" not in source:  # nearly every line: no harness block
        return None
    head, newline, rest = source.rstrip(" \t\n").partition("\n")
    body, newline_end, last = rest.rpartition("\n")
    name = _HEAD.match(head)
    if not newline or not newline_end or name is None or _END.fullmatch(last.strip()) is None:
        return None
    return name.group(0), head[name.end() :], body, last.strip()


def _harness_block(
    walker: Walker, start: Frame, block: tuple[str, str, str, str], comments: list[str]
) -> None:
    """The command line of the block as a command; its body as a guess at commands: only a definite
    finding there blocks (text that is not shell, source code, is no problem)."""
    name, rest, text, end = block
    walker.source(start, (), Ctx((name + rest).encode("utf-8", "surrogatepass")), comments)
    why = f"the body of a `{name} ... {end}` harness block, checked in case a shell runs it"
    body = Ctx(
        text.encode("utf-8", "surrogatepass"), via="harness block", why=why, speculative=True, lenient=True
    )
    problems = len(walker.problems)
    walker.tolerate(lambda: walker.source(start.copy(), (), body), ())
    del walker.problems[problems:]


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
