"""A command's ref: built from what the walk knows where it runs (state, wrappers, the file it comes
from), with the trackers' values; and a command recorded without being followed."""

from __future__ import annotations

from dataclasses import replace
from types import MappingProxyType

from rein.steering.bash import commands
from rein.steering.bash._frame import Ctx, Frame
from rein.steering.bash._walk_api import G, Walk, then
from rein.steering.bash.commands import Call
from rein.steering.bash.commands._queries import QUERY_CLIENTS, queries
from rein.steering.bash.model import UNKNOWN, Code, CommandKind, CommandRef, State, Word


def make_ref(
    walker: Walk,
    argv: tuple[Word, ...],
    raw: str,
    state: State,
    g: G,
    ctx: Ctx,
    kind: CommandKind,
    unknown: tuple[str, ...],
    why: str,
    code: Code | None = None,
) -> CommandRef:
    return CommandRef(
        index=len(walker.refs), argv=argv, raw=raw, state=state, wrappers=ctx.wrappers, via=ctx.via,
        code=code, unknown=unknown, after=g, kind=kind, why=why, background=ctx.background,
        origin=_origin(ctx, raw), lenient=ctx.lenient,
    )  # fmt: skip


def _origin(ctx: Ctx, raw: str) -> str:
    """Where a command from a file comes from: a label ending in `:` is a file whose text is being
    walked, so the command's line in it is added (`deploy.sh:3`)."""
    if not ctx.origin.endswith(":"):
        return ctx.origin
    at = ctx.src.find(raw.encode("utf-8", "surrogatepass"))
    line = ctx.src.count(b"\n", 0, at) + 1
    return f"{ctx.origin}{line}" if at >= 0 else ctx.origin[:-1]


def record(
    walker: Walk,
    argv: tuple[Word, ...],
    raw: str,
    state: State,
    g: G,
    ctx: Ctx,
    frame: Frame,
    kind: CommandKind,
    unknown: tuple[str, ...],
) -> G:
    """A command that is recorded but not followed: what it runs is not known."""
    ref = make_ref(walker, argv, raw, state, g, ctx, kind, unknown, ctx.why)
    if walker.trackers:
        ref = track(walker, ref, frame)
    walker.refs.append(ref)
    walker.output = UNKNOWN
    return then(g, ref.index)


def track(walker: Walk, ref: CommandRef, frame: Frame) -> CommandRef:
    seen: dict[str, object] = {}
    for tracker in walker.trackers:
        name = tracker.name
        value = frame.values.get(name, UNKNOWN)
        try:
            at, after = tracker.at(value, ref), tracker.after(value, ref)
        except Exception as error:  # a plugin's bug must not crash the analysis: fail closed
            walker.problems.append(f"tracker '{name}' failed on '{ref.text}': {type(error).__name__}")
            at = after = UNKNOWN
        if at is not value:
            seen[name] = at
        if after is not value:
            frame.set_value(name, after)
    if not seen:
        return ref
    return replace(ref, state=replace(ref.state, values=MappingProxyType({**ref.state.values, **seen})))


def code_of(call: Call) -> Code | None:
    """The program text of an interpreter one-liner or of what it reads on stdin, or the queries a
    database client runs, for rules to match."""
    if call.name in QUERY_CLIENTS:
        return queries(call)
    prog = commands.program(call.name, call.argv)
    if prog is None or prog.language == "shell":
        return None
    if prog.code:
        return Code(language=prog.language, text="\n".join(word.value for word in prog.code))
    stdin = call.stdin
    if prog.from_stdin and stdin is not None and isinstance(stdin.content, str):
        return Code(language=prog.language, text=stdin.content)
    return None
