"""Running one command: its words expanded, aliases and functions followed, the command model's reading,
its ref with state and trackers, its effects, and then what it runs."""

from __future__ import annotations

import posixpath
from dataclasses import replace
from types import MappingProxyType

from rein.steering.bash import commands
from rein.steering.bash._effects import apply, command_cwd, resolve_path
from rein.steering.bash._expand import expand as expand_words
from rein.steering.bash._frame import Ctx, Frame, Value
from rein.steering.bash._funcs import MAX_DEPTH, call_function, expand_alias
from rein.steering.bash._links import link, through_links
from rein.steering.bash._refs import code_of, make_ref, record, track
from rein.steering.bash._walk_api import G, Walk, join, then
from rein.steering.bash._words import resolve, split_assignment
from rein.steering.bash.commands import Call, Inner, Stdin
from rein.steering.bash.model import (
    UNKNOWN,
    Env,
    State,
    Word,
    named,
)

_CWD_COMMANDS = frozenset({"git", "make", "gmake"})
_NOT_FOUND = "command_not_found_handle"
"""The function bash runs in place of a command it cannot find."""


def emit(
    walker: Walk,
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
    if not walker.spend(len(argv)):
        return g
    shell = frame.env if expand is None else expand
    argv = through_links(expand_words(argv, shell, frame.arrays), frame)
    if not argv:
        return g
    head = argv[0]
    if head.value == commands.PLACEHOLDER:  # a name only known at run time: its runner is unknown already
        return g
    if head.raw == head.value and head.value in frame.aliases and head.value not in walker.aliasing:
        return expand_alias(walker, argv, frame, g, ctx)
    state = _state(frame, argv, env, expand)
    name = posixpath.basename(head.value)
    if head.dynamic and not named(head):
        return record(
            walker, argv, raw, state, g, ctx, frame, "unknown", (f"command name is dynamic: {head.raw}",)
        )
    if name in frame.funcs and "/" not in head.value:
        return call_function(walker, name, argv, raw, state, frame, g, ctx._replace(stdin=stdin))
    files, unnamed, config = frame.files, frame.files_unknown, frame.git_config
    call = Call(name, argv, state, stdin, files, unnamed, config, walker.known, walker.disk)
    reading = commands.read(call, scan=not ctx.speculative)
    call, found = reading.call, reading.runs
    walker.problems.extend(found.problems)
    why = "; ".join(filter(None, (ctx.why, *reading.whys)))
    ref = make_ref(walker, call.argv, raw, state, g, ctx, reading.kind, found.notes, why, code_of(call))
    if found.tolerated or reading.whys:
        ref = replace(ref, tolerated=found.tolerated, rewritten=reading.whys)
    if walker.trackers:
        ref = track(walker, ref, frame)
    written, unnamed = commands.writes(call)
    if written:
        paths = (resolve_path(word, frame.cwd, frame.env) for word, _, _ in written)
        ref = replace(ref, writes=tuple(path for path in paths if isinstance(path, str)))
    walker.refs.append(ref)
    walker.output = commands.output(call)
    _effects(call, frame, ctx.speculative or ctx.via == "argv suffix", (written, unnamed))
    if name in _DECLARES:  # `export PS4='$(...)'`
        for word in call.argv[1:]:
            split = split_assignment(word)
            if split is not None:
                walker.assigned(split[0], frame.env.get(split[0], UNKNOWN), frame, g, ctx)
    ok = then(g, ref.index)
    if reading.kind == "unknown" and _NOT_FOUND in frame.funcs:  # runs if no such program exists
        handler = (Word.literal(_NOT_FOUND), *call.argv)
        call_function(walker, _NOT_FOUND, handler, raw, state, frame, g, ctx._replace(stdin=stdin))
    here = ctx._replace(origin=ref.origin) if ref.origin else ctx  # a script's line, not its file
    for job in found.inners:
        given = job.stdin or (stdin if job.mode in ("same", "child") else None)
        done = inner(walker, job, frame, g, here, given, env, state.expansion)
        if job.mode in ("same", "child", "remote"):  # the runner exits with the inner command's status
            ok = join(ok, done)
    return ok


def _state(frame: Frame, argv: tuple[Word, ...], env: dict[str, Value] | None, expand: Env | None) -> State:
    state = frame.state()
    if env or expand is not None:
        own = MappingProxyType({**state.env, **env}) if env else state.env
        shell = state.env if expand is None else expand
        state = State(cwd=state.cwd, env=own, values=state.values, expand_env=shell)
    name = posixpath.basename(argv[0].value)
    if name in _CWD_COMMANDS:
        cwd = command_cwd(name, argv, state.cwd, state.expansion)
        if cwd is not None:
            state = replace(state, cwd=cwd)
    return state


def _effects(call: Call, frame: Frame, guess: bool, writes: commands.Writes) -> None:
    """What the command changes for the commands after it: shell state, files, git configuration.

    A command rein only guesses runs (an argv-suffix scan, a string that may be shell) may write
    anything to the files it names: their content becomes unknown, never the guessed content."""
    apply(call.name, call.argv, frame, call.state.env)
    written, unnamed = writes
    for word, content, append in written:
        frame.write(resolve_path(word, frame.cwd, frame.env), UNKNOWN if guess else content, append=append)
    if unnamed:
        frame.files_unknown = True
    change = commands.git_config_change(call)
    if change is not None:
        frame.set_git_config(*change)
    if call.name == "ln":
        link(call, frame)


def inner(
    walker: Walk,
    job: Inner,
    frame: Frame,
    g: G,
    ctx: Ctx,
    stdin: Stdin | None,
    env: dict[str, Value] | None,
    shell: Env,
) -> G:
    """Walk a command a runner runs, in the state the runner gives it (with the runner's own `X=1`
    prefix variables); returns the refs certain to have exited 0 when it does.

    `shell` holds the variables the runner's words were expanded with: the runner's own settings
    (`env D=$X`, `sudo -D $X`) and an inner argv (`env D=x rm "$D"`) read them, not the variables the
    runner sets. A script the runner starts a shell on (`bash -c '...'`) is expanded by that shell,
    with the variables the runner gives it."""
    if ctx.depth >= MAX_DEPTH:
        walker.exhaust(f"commands nest more than {MAX_DEPTH} levels deep")
        return g
    target = _target(job, frame)
    held: list[tuple[str, Value | None, bool]] = []
    if env and target is frame and job.script is not None:  # `D=x eval '...'`: D=x while it runs
        held = [(name, frame.env.get(name), name in frame.local) for name in env]
    if env and (target is not frame or held):
        for name, prefixed in env.items():
            target.set_var(name, prefixed, export=True)
    _environment(job, target, frame, shell)
    job = _from_disk(walker, job)
    wrappers = (*ctx.wrappers, job.label) if job.label else ctx.wrappers
    speculative = ctx.speculative or job.speculative
    passed = job.stdin is not None or job.mode in ("same", "child")
    fed = stdin if job.script is not None and passed and not _reads_stdin(job) else None
    sub = ctx._replace(
        wrappers=wrappers, via=job.via or ctx.via, depth=ctx.depth + 1, why=job.why or ctx.why,
        speculative=speculative, stdin=fed, background=ctx.background or job.background,
        origin=job.origin or ctx.origin, lenient=ctx.lenient or job.lenient,
    )  # fmt: skip
    ok = g
    if job.argv:
        text = " ".join(word.raw for word in job.argv)
        own = env if target is frame else None  # `X=1 command cmd`: cmd gets X=1 too
        ok = emit(walker, job.argv, text, target, g, sub, own, stdin, shell)
    elif job.script is not None:
        if job.mode not in ("same", "later"):  # a new shell starts with PWD set to where it runs
            target.env = {**target.env, "PWD": target.cwd}
        if job.args is not None:
            target.set_args(job.args[1:], zero=job.args[0] if job.args else None)
        src = job.script.encode("utf-8", "surrogatepass")
        where = f" in the '{job.label or job.via}' string"
        problems = len(walker.problems)
        walked = sub._replace(src=src, where=where)
        if sub.lenient and not ctx.lenient:  # a person's file: its own share of the budget
            ok = walker.tolerate(lambda: walker.source(target, g, walked), g)
        else:
            ok = walker.source(target, g, walked)
        if job.speculative or sub.lenient:  # a guess, or a person's file: what does not parse is no problem
            del walker.problems[problems:]
    if job.mode == "child":
        frame.absorb(target, exact=True)
    elif job.mode in ("maybe", "later"):
        frame.absorb(target, exact=False)
    for name, old, local in held:
        _release(frame, name, old, local)
    return ok


def _from_disk(walker: Walk, job: Inner) -> Inner:
    """A script that is the whole text of a file read from disk (`bash x.sh`, `source env.sh`, `sh <
    x.sh`) comes from that file: its commands say so by line, and a file of the person's is read
    leniently."""
    if walker.disk is None or job.script is None or job.origin:
        return job
    read = walker.disk.of(job.script)
    if read is None:
        return job
    why = f"{job.label or job.via} runs {read.label}, read from disk"
    return replace(job, origin=f"{read.label}:", lenient=read.lenient, why=why)


def _reads_stdin(job: Inner) -> bool:
    """A script that is itself what the shell read on stdin (`curl x | bash`), not a `-c` string."""
    return job.via in ("heredoc", "herestring", "pipe", "file", "stdin")


def _target(job: Inner, frame: Frame) -> Frame:
    """The frame the inner command runs in."""
    if job.mode == "same":
        return frame
    if job.mode == "later":  # this shell, later (`trap`): its functions, not its exact state
        return frame.copy()
    if job.mode == "remote":
        return Frame(UNKNOWN, {}, dict.fromkeys(frame.values, UNKNOWN))
    return frame.child()


_DECLARES = frozenset({"export", "declare", "typeset", "local", "readonly"})


def _environment(job: Inner, target: Frame, frame: Frame, shell: Env) -> None:
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


def _release(frame: Frame, name: str, old: Value | None, local: bool) -> None:
    """After `D=x eval '...'`: bash puts back D's old value, a POSIX shell keeps the one it has now
    (`x`, or what the string set); what they disagree on is unknown. `old` None: D was unset."""
    now = frame.env.get(name)
    if old is None and now is None:
        return
    kept = old if old is not None and now is not None and (old is now or old == now) else UNKNOWN
    frame.set_var(name, kept, export=not local)
