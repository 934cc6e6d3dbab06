"""Running one command: its ref with state and trackers, its effects, and what its wrappers run."""

from __future__ import annotations

from dataclasses import replace
from types import MappingProxyType
from typing import TYPE_CHECKING

from rein.steering.bash._effects import BUILTINS, apply, command_cwd, resolve_path
from rein.steering.bash._frame import Ctx, Frame, Value
from rein.steering.bash._inner import NOTHING, Inner
from rein.steering.bash._interp import INTERPRETERS, Program, program
from rein.steering.bash._redirects import MAX_DEPTH, Stdin
from rein.steering.bash._words import resolve
from rein.steering.bash._wrappers import WRAPPERS, unwrap
from rein.steering.bash.model import UNKNOWN, Code, CommandRef, State, Word

if TYPE_CHECKING:
    from rein.steering.bash._walker import G, Walker

_CWD_COMMANDS = frozenset({"git", "make", "gmake"})
_SPECIAL = WRAPPERS | BUILTINS | INTERPRETERS | {".", "source"}
"""Command names whose ref needs more than its argv: wrappers, builtins with effects, interpreters."""
_PYTHONS = ("python", "pypy")


def emit(
    walker: Walker,
    argv: tuple[Word, ...],
    raw: str,
    frame: Frame,
    g: G,
    ctx: Ctx,
    env: dict[str, Value] | None = None,
    stdin: Stdin | None = None,
) -> G:
    """Record the command `argv`, apply its effects, then walk what it runs."""
    head = argv[0]
    name = head.value.rpartition("/")[2]
    state = frame.state()
    if env:
        state = State(cwd=state.cwd, env=MappingProxyType({**state.env, **env}), values=state.values)
    if name in _CWD_COMMANDS:
        cwd = command_cwd(name, argv, state.cwd, state.env)
        if cwd is not None:
            state = State(cwd=cwd, env=state.env, values=state.values)
    # Most commands are none of the names that need a closer look; they skip straight to the ref.
    special = bool(head.parts) or name in _SPECIAL or name in frame.funcs or name.startswith(_PYTHONS)
    unknown: list[str] = []
    wrapped, prog, code = NOTHING, None, None
    if special:
        if head.parts and head.dynamic:
            unknown.append(f"command name is dynamic: {head.raw}")
        else:
            wrapped = unwrap(name, argv)
            unknown.extend(wrapped.notes)
            walker.problems.extend(wrapped.problems)
        prog = program(name, argv)
        code = _code(name, prog, stdin, unknown) if prog is not None else None
        if name in (".", "source") and len(argv) > 1 and argv[1].dynamic:
            unknown.append(f"{name} runs a script that is not known statically: {argv[1].raw}")
    ref = CommandRef(
        index=len(walker.refs), argv=argv, raw=raw, state=state, wrappers=ctx.wrappers, via=ctx.via,
        code=code, unknown=tuple(unknown), after=g,
    )  # fmt: skip
    if walker.trackers:
        ref = _track(walker, ref, frame)
    walker.refs.append(ref)
    if not special:
        return (*g, ref.index)
    if name in frame.funcs and not head.parts:
        _call(walker, name, frame, ctx)
    else:
        apply(name, argv, frame)
    ok = (*g, ref.index)
    jobs = wrapped.inners
    if prog and prog.language == "shell" and prog.from_stdin and stdin and stdin.kind.startswith("here"):
        jobs = (*jobs, Inner(name, "child", script=stdin.text, via=stdin.kind))
        stdin = None
    for job in jobs:
        done = inner(walker, job, frame, g, ctx, None if job.mode == "maybe" else stdin, env)
        if job.mode != "maybe":  # the wrapper exits with the inner command's status (`sudo a && b`)
            ok += tuple(index for index in done if index not in ok)
    return ok


def inner(
    walker: Walker,
    job: Inner,
    frame: Frame,
    g: G,
    ctx: Ctx,
    stdin: Stdin | None,
    env: dict[str, Value] | None,
) -> G:
    """Walk a command a wrapper runs, in the state the wrapper gives it (with the wrapper's own
    `X=1` prefix variables when it starts a new process); returns the refs certain to have exited
    0 when it does."""
    if ctx.depth >= MAX_DEPTH:
        walker.problems.append(f"wrappers nest deeper than {MAX_DEPTH} levels; the rest is not analysed")
        return g
    if job.mode == "same":
        target = frame
    elif job.mode == "remote":
        target = Frame(UNKNOWN, {}, dict.fromkeys(frame.values, UNKNOWN))
    else:
        target = frame.child()
    if env and target is not frame:
        for name, prefixed in env.items():
            target.set_var(name, prefixed, export=True)
    if job.env_clear:
        target.forget_env(cleared=True)
    for name in job.env_unset:
        target.unset_var(name)
    for name, value in job.env_set:
        target.set_var(name, resolve(value, frame.env), export=True)
    if job.cwd_unknown:
        target.move(UNKNOWN)
    elif job.cwd is not None:
        target.move(resolve_path(job.cwd, frame.cwd, frame.env))
    wrappers = (*ctx.wrappers, job.label) if job.label else ctx.wrappers
    sub = Ctx(ctx.src, wrappers, job.via or ctx.via, ctx.depth + 1, ctx.where)
    ok = g
    if job.argv:
        ok = emit(walker, job.argv, " ".join(word.raw for word in job.argv), target, g, sub, stdin=stdin)
    elif job.script is not None:
        if job.mode != "same":  # a new shell starts with PWD set to where it runs
            target.env = {**target.env, "PWD": target.cwd}
        src = job.script.encode("utf-8", "surrogatepass")
        where = f" in the '{job.label or job.via}' string"
        ok = walker.source(target, g, Ctx(src, wrappers, sub.via, sub.depth, where))
    if job.mode in ("child", "maybe"):
        frame.absorb(target, exact=job.mode == "child")
    return ok


def _code(name: str, prog: Program, stdin: Stdin | None, unknown: list[str]) -> Code | None:
    """The program text of an interpreter one-liner or of the heredoc it reads; notes what is unknown.

    A program piped in (`curl ... | sh`) is produced at run time, so it is unknown; a script file
    (`bash x.sh`, `python3 < x.py`) is named in the command and rules can match it.
    """
    if prog.script is not None and prog.script.dynamic:
        unknown.append(f"{name} runs a script that is not known statically: {prog.script.raw}")
    piped = prog.from_stdin and stdin is not None and stdin.kind == "pipe"
    if prog.language == "shell":
        if piped:
            unknown.append(f"{name} reads commands from a pipe")
        return None
    if prog.code:
        unknown.extend(f"{name} code is dynamic: {word.raw}" for word in prog.code if word.dynamic)
        return Code(language=prog.language, text="\n".join(word.value for word in prog.code))
    if piped:
        unknown.append(f"{name} reads its program from a pipe")
    elif prog.from_stdin and stdin is not None and stdin.kind.startswith("here"):
        return Code(language=prog.language, text=stdin.text)
    return None


def _track(walker: Walker, ref: CommandRef, frame: Frame) -> CommandRef:
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
    state = ref.state
    values = MappingProxyType({**state.values, **seen})
    return replace(ref, state=State(cwd=state.cwd, env=state.env, values=values))


def _call(walker: Walker, name: str, frame: Frame, ctx: Ctx) -> None:
    """Apply a function's effects where it is called; its commands were reported where it was defined."""
    if name in walker.calling or ctx.depth >= MAX_DEPTH:
        return
    body, defined = frame.funcs[name]
    refs, problems = len(walker.refs), len(walker.problems)
    walker.calling.add(name)
    try:
        walker.stmt(body, frame, (), defined)
    finally:
        walker.calling.discard(name)
        del walker.refs[refs:]
        del walker.problems[problems:]
