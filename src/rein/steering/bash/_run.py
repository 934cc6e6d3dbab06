"""Running one command: its ref with state and trackers, its effects, and what its wrappers run."""

from __future__ import annotations

from dataclasses import replace
from types import MappingProxyType
from typing import TYPE_CHECKING

from rein.steering.bash._effects import BUILTINS, apply, command_cwd, resolve_path
from rein.steering.bash._frame import Ctx, Frame, Value
from rein.steering.bash._inner import NOTHING, Inner
from rein.steering.bash._interp import INTERPRETERS, Program, program
from rein.steering.bash._redirects import MAX_DEPTH, Stdin, expanded
from rein.steering.bash._words import resolve
from rein.steering.bash._wrappers import WRAPPERS, unwrap
from rein.steering.bash.model import UNKNOWN, Code, CommandRef, Env, State, Word

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
    expand: Env | None = None,
) -> G:
    """Record the command `argv`, apply its effects, then walk what it runs.

    `frame` is the state the command runs in and `env` its prefix variables (`X=1 cmd`): both make
    the command's environment. Its words were expanded before either applied, by the shell running
    the command line: with `expand` (a wrapper's, for the command it runs), else with `frame.env`.
    """
    head = argv[0]
    name = head.value.rpartition("/")[2]
    state = frame.state()
    if env or expand is not None:
        own = MappingProxyType({**state.env, **env}) if env else state.env
        shell = state.env if expand is None else expand
        state = State(cwd=state.cwd, env=own, values=state.values, expand_env=shell)
    if name in _CWD_COMMANDS:
        cwd = command_cwd(name, argv, state.cwd, state.expansion)
        if cwd is not None:
            state = replace(state, cwd=cwd)
    # Most commands are none of the names that need a closer look; they skip straight to the ref.
    special = bool(head.parts) or name in _SPECIAL or name in frame.funcs or name.startswith(_PYTHONS)
    unknown: list[str] = []
    wrapped, prog, code, heredoc = NOTHING, None, None, None
    if special:
        if head.parts and head.dynamic:
            unknown.append(f"command name is dynamic: {head.raw}")
        else:
            wrapped = unwrap(name, argv)
            unknown.extend(wrapped.notes)
            walker.problems.extend(wrapped.problems)
        prog = program(name, argv)
        if prog is not None:
            code = _code(name, prog, stdin, unknown)
            if prog.language == "shell" and prog.from_stdin and stdin and stdin.kind.startswith("here"):
                heredoc = _script(name, stdin, unknown)
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
    if heredoc is not None and stdin is not None:
        jobs = (*jobs, Inner(name, "child", script=heredoc, via=stdin.kind))
        stdin = None
    shell = ref.state.expansion
    for job in jobs:
        done = inner(walker, job, frame, g, ctx, None if job.mode == "maybe" else stdin, env, shell)
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
    shell: Env,
) -> G:
    """Walk a command a wrapper runs, in the state the wrapper gives it (with the wrapper's own
    `X=1` prefix variables); returns the refs certain to have exited 0 when it does.

    `shell` holds the variables the wrapper's words were expanded with: the wrapper's own settings
    (`env D=$X`, `sudo -D $X`) and an inner argv (`env D=x rm "$D"`) read them, not the variables the
    wrapper sets. A script the wrapper starts a shell on (`bash -c '...'`) is expanded by that shell,
    with the variables the wrapper gives it."""
    if ctx.depth >= MAX_DEPTH:
        walker.problems.append(f"wrappers nest deeper than {MAX_DEPTH} levels; the rest is not analysed")
        return g
    if job.mode == "same":
        target = frame
    elif job.mode == "remote":
        target = Frame(UNKNOWN, {}, dict.fromkeys(frame.values, UNKNOWN))
    else:
        target = frame.child()
    held: list[tuple[str, Value | None, bool]] = []
    if env and target is frame and job.script is not None:  # `D=x eval '...'`: D=x while it runs
        held = [(name, frame.env.get(name), name in frame.local) for name in env]
    if env and (target is not frame or held):
        for name, prefixed in env.items():
            target.set_var(name, prefixed, export=True)
    if job.env_clear:
        target.forget_env(cleared=True)
    for name in job.env_unset:
        target.unset_var(name)
    for name, value in job.env_set:
        target.set_var(name, resolve(value, shell), export=True)
    if job.cwd_unknown:
        target.move(UNKNOWN)
    elif job.cwd is not None:
        target.move(resolve_path(job.cwd, frame.cwd, shell))
    wrappers = (*ctx.wrappers, job.label) if job.label else ctx.wrappers
    sub = Ctx(ctx.src, wrappers, job.via or ctx.via, ctx.depth + 1, ctx.where)
    ok = g
    if job.argv:
        text = " ".join(word.raw for word in job.argv)
        own = env if target is frame else None  # `X=1 command cmd`: cmd gets X=1 too
        ok = emit(walker, job.argv, text, target, g, sub, own, stdin, shell)
    elif job.script is not None:
        if job.mode != "same":  # a new shell starts with PWD set to where it runs
            target.env = {**target.env, "PWD": target.cwd}
        src = job.script.encode("utf-8", "surrogatepass")
        where = f" in the '{job.label or job.via}' string"
        ok = walker.source(target, g, Ctx(src, wrappers, sub.via, sub.depth, where))
    if job.mode in ("child", "maybe"):
        frame.absorb(target, exact=job.mode == "child")
    for name, old, local in held:
        _release(frame, name, old, local)
    return ok


def _release(frame: Frame, name: str, old: Value | None, local: bool) -> None:
    """After `D=x eval '...'`: bash puts back D's old value, a POSIX shell keeps the one it has now
    (`x`, or what the string set); what they disagree on is unknown. `old` None: D was unset."""
    now = frame.env.get(name)
    if old is None and now is None:
        return
    kept = old if old is not None and now is not None and (old is now or old == now) else UNKNOWN
    frame.set_var(name, kept, export=not local)


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


def _script(name: str, stdin: Stdin, unknown: list[str]) -> str:
    """The commands a shell reads from a heredoc or herestring, as the shell running the command line
    expanded them (`D=x bash <<EOF` reads that shell's `$D`, not `x`); notes it when that is unknown."""
    text = expanded(stdin)
    if text is None:
        unknown.append(f"{name} reads commands from a {stdin.kind} that is not known statically")
        return stdin.text
    return text


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
    return replace(ref, state=replace(ref.state, values=MappingProxyType({**ref.state.values, **seen})))


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
