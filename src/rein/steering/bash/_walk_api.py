"""What the statement, redirect and command handlers may ask of the walk.

The walker owns the recursion: it walks sources, sequences and statements, and calls a handler for each
kind of statement, for redirects and for each command. The handlers live in their own modules and see
the walker only through `Walk`, so imports point one way: the walker imports its handlers, never the
reverse.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from rein.steering.bash._disk import DiskView
from rein.steering.bash._frame import Ctx, Frame, Value
from rein.steering.bash.model import CommandRef, Env, Stdin, Tracker, Word

if TYPE_CHECKING:
    from tree_sitter import Node

    from rein.steering.bash._words import Sub

G = tuple[int, ...]
"""Indices of refs that certainly exited 0 whenever the current point is reached: the most recent
`MAX_AFTER` of them, so a long `&&` chain costs linear work, not quadratic. (Fewer indices can only
make a `when.happened` rule see fewer entries: it blocks rather than allows.)"""
MAX_AFTER = 64


def join(ok: G, more: G) -> G:
    """`ok` and then the indices of `more` it lacks, the most recent `MAX_AFTER` kept."""
    if not more:
        return ok
    seen = set(ok)
    joined = ok + tuple(index for index in more if index not in seen)
    return joined[-MAX_AFTER:] if len(joined) > MAX_AFTER else joined


def meet(ok: G, other: G) -> G:
    """The indices in both."""
    kept = set(other)
    return tuple(index for index in ok if index in kept)


def then(g: G, index: int) -> G:
    """`g` and one more index."""
    return (*g[1 - MAX_AFTER :], index) if len(g) >= MAX_AFTER else (*g, index)


Outputs = dict[str, Value]
"""What rein could tell of the output of each command substitution just run, by its source text."""


@dataclass(frozen=True, slots=True)
class Redirected:
    """What a command's redirects do: where its stdin comes from, and the files its output goes to."""

    stdin: Stdin | None = None
    writes: tuple[tuple[Word, bool, bool], ...] = ()
    """(path, appends, gets stdout) for each file written: `> f`, `>> f`, `2> f`, `&> f`."""


class Walk(Protocol):
    """The walker as its handlers see it. None of these raise for any input: what is not understood
    is recorded in `problems`, and a walk past the budget stops with `exhausted` set."""

    refs: list[CommandRef]
    problems: list[str]
    trackers: tuple[Tracker, ...]
    known: frozenset[str]
    """Command names whose suffixes in an unknown command's argv are checked as if they ran."""
    output: Value
    """What the command just recorded prints, as far as rein can tell (for pipes, `$( )`, `> f`)."""
    calling: list[str]
    """The functions whose bodies are being walked, innermost last."""
    aliasing: set[str]
    """The aliases being expanded (an alias is not expanded inside itself)."""
    memo: dict[tuple[object, ...], Frame]
    """Function bodies already walked, by body, arguments and state: the frame they left."""
    exhausted: str
    """Why the walk stopped early (past its budget); empty while it goes on."""
    disk: DiskView | None
    """The files on disk the line runs, read at check time; None when the host gives none."""
    deferred: list[Node] | None
    """The `>(...)` of the command being read, walked once what it writes into them is known."""

    def spend(self, units: int) -> bool:
        """Count work; False (and the walk stops) once the budget is spent."""
        ...

    def exhaust(self, reason: str) -> None:
        """Stop the walk: the command is past what rein analyses (too deep, too much work)."""
        ...

    def tolerate(self, walk: Callable[[], G], g: G) -> G:
        """Walk a file of the person's within its own share of the budget; running past it stops
        only that file's walk."""
        ...

    def source(self, frame: Frame, g: G, ctx: Ctx, comments: list[str] | None = None) -> G:
        """Parse `ctx.src` and walk all of it."""
        ...

    def seq(self, children: Sequence[Node], frame: Frame, g: G, ctx: Ctx) -> G:
        """Walk statements in order."""
        ...

    def stmt(self, node: Node, frame: Frame, g: G, ctx: Ctx, pipe: Stdin | None = None) -> G:
        """Walk one statement; the refs known to have exited 0 when it exits 0."""
        ...

    def run_subs(self, subs: list[Sub], frame: Frame, g: G, ctx: Ctx, via: str = "") -> Outputs:
        """Walk substitutions, each in a subshell; what rein knows of their output."""
        ...

    def redirects(self, nodes: Sequence[Node], frame: Frame, g: G, ctx: Ctx) -> Redirected:
        """Walk what redirect targets and heredocs run; where stdin comes from, where stdout goes."""
        ...

    def assigned(self, name: str, value: Value, frame: Frame, g: G, ctx: Ctx) -> None:
        """Check what a shell runs later because `name` was set to `value` (`PROMPT_COMMAND`, `PS4`)."""
        ...

    def expand_text(self, text: str, frame: Frame, g: G, ctx: Ctx, via: str) -> None:
        """Walk what runs when bash expands `text` as it does a double-quoted string."""
        ...

    def arithmetic(self, node: Node, frame: Frame, g: G, ctx: Ctx) -> None:
        """Check what an arithmetic expression runs through the variables it names."""
        ...

    def emit(
        self,
        argv: tuple[Word, ...],
        raw: str,
        frame: Frame,
        g: G,
        ctx: Ctx,
        env: dict[str, Value] | None = None,
        stdin: Stdin | None = None,
        expand: Env | None = None,
    ) -> G:
        """Record one command, apply its effects and walk what it runs."""
        ...
