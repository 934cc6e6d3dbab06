"""Running one command: its words expanded, aliases and functions followed, the command model's reading,
its ref with state and trackers, its effects, and then what it runs."""

from __future__ import annotations

import posixpath
import shlex
from dataclasses import replace
from types import MappingProxyType

from rein.steering.bash import commands
from rein.steering.bash._effects import apply, command_cwd, resolve_path
from rein.steering.bash._expand import expand as expand_words
from rein.steering.bash._frame import POSITIONAL, Ctx, Frame, Value
from rein.steering.bash._links import link, through_links
from rein.steering.bash._walk import G, Walk, join, then
from rein.steering.bash._words import resolve, split_assignment
from rein.steering.bash.commands import Call, Inner, Stdin
from rein.steering.bash.model import (
    UNKNOWN,
    Code,
    CommandKind,
    CommandRef,
    Env,
    State,
    Unknown,
    Word,
    named,
)

MAX_DEPTH = 16
"""Wrappers and re-parsed strings (`sudo bash -c "eval '...'"`) followed at most this deep."""
_CWD_COMMANDS = frozenset({"git", "make", "gmake"})
_NOT_FOUND = "command_not_found_handle"
"""The function bash runs in place of a command it cannot find."""
_MAX_CALLS = 2
"""A function calling itself is followed this deep; deeper, it is unknown."""


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
        return _alias(walker, argv, frame, g, ctx)
    state = _state(frame, argv, env, expand)
    name = posixpath.basename(head.value)
    if head.dynamic and not named(head):
        return _record(
            walker, argv, raw, state, g, ctx, frame, "unknown", (f"command name is dynamic: {head.raw}",)
        )
    if name in frame.funcs and "/" not in head.value:
        return _call(walker, name, argv, raw, state, frame, g, ctx._replace(stdin=stdin))
    call = Call(name, argv, state, stdin, frame.files, frame.files_unknown, frame.git_config, walker.known)
    reading = commands.read(call, scan=not ctx.speculative)
    call, found = reading.call, reading.runs
    walker.problems.extend(found.problems)
    why = "; ".join(filter(None, (ctx.why, *reading.whys)))
    ref = _ref(walker, call.argv, raw, state, g, ctx, reading.kind, found.notes, why, _code(call))
    if walker.trackers:
        ref = _track(walker, ref, frame)
    walker.refs.append(ref)
    walker.output = commands.output(call)
    _effects(call, frame, ctx.speculative or ctx.via == "argv suffix")
    if name in _DECLARES:  # `export PS4='$(...)'`
        for word in call.argv[1:]:
            split = split_assignment(word)
            if split is not None:
                walker.assigned(split[0], frame.env.get(split[0], UNKNOWN), frame, g, ctx)
    ok = then(g, ref.index)
    if reading.kind == "unknown" and _NOT_FOUND in frame.funcs:  # runs if no such program exists
        handler = (Word.literal(_NOT_FOUND), *call.argv)
        _call(walker, _NOT_FOUND, handler, raw, state, frame, g, ctx._replace(stdin=stdin))
    for job in found.inners:
        given = job.stdin or (stdin if job.mode in ("same", "child") else None)
        done = inner(walker, job, frame, g, ctx, given, env, state.expansion)
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


def _ref(
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
        origin=ctx.origin, lenient=ctx.lenient,
    )  # fmt: skip


def _record(
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
    ref = _ref(walker, argv, raw, state, g, ctx, kind, unknown, ctx.why)
    if walker.trackers:
        ref = _track(walker, ref, frame)
    walker.refs.append(ref)
    walker.output = UNKNOWN
    return then(g, ref.index)


def _effects(call: Call, frame: Frame, guess: bool) -> None:
    """What the command changes for the commands after it: shell state, files, git configuration.

    A command rein only guesses runs (an argv-suffix scan, a string that may be shell) may write
    anything to the files it names: their content becomes unknown, never the guessed content."""
    apply(call.name, call.argv, frame, call.state.env)
    written, unnamed = commands.writes(call)
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
        ok = walker.source(target, g, sub._replace(src=src, where=where))
        if job.speculative:  # only a guess that it is shell: what does not parse is not a problem
            del walker.problems[problems:]
    if job.mode == "child":
        frame.absorb(target, exact=True)
    elif job.mode in ("maybe", "later"):
        frame.absorb(target, exact=False)
    for name, old, local in held:
        _release(frame, name, old, local)
    return ok


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


def _code(call: Call) -> Code | None:
    """The program text of an interpreter one-liner or of what it reads on stdin, for rules to match."""
    prog = commands.program(call.name, call.argv)
    if prog is None or prog.language == "shell":
        return None
    if prog.code:
        return Code(language=prog.language, text="\n".join(word.value for word in prog.code))
    stdin = call.stdin
    if prog.from_stdin and stdin is not None and isinstance(stdin.content, str):
        return Code(language=prog.language, text=stdin.content)
    return None


def _track(walker: Walk, ref: CommandRef, frame: Frame) -> CommandRef:
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


def _call(
    walker: Walk, name: str, argv: tuple[Word, ...], raw: str, state: State, frame: Frame, g: G, ctx: Ctx
) -> G:
    """A shell function runs its body here, in this shell, with the caller's variables and its
    arguments as `$1`, `$@`: the body is checked at each call, not where it was defined."""
    depth = walker.calling.count(name)
    unknown = (
        (f"function {name} calls itself more than {_MAX_CALLS} levels deep",) if depth >= _MAX_CALLS else ()
    )
    ok = _record(walker, argv, raw, state, g, ctx, frame, "runner", unknown)
    if unknown or ctx.depth >= MAX_DEPTH or walker.exhausted:
        return ok
    body, defined = frame.funcs[name]
    words = tuple(word.value for word in argv)
    key = (
        id(body), words, id(frame.env), id(frame.arrays), frame.cwd, id(frame.values), id(frame.files), g,
        ctx.stdin,
    )  # fmt: skip
    done = walker.memo.get(key)
    if done is not None:  # the same body in the same state: its commands were checked already
        frame.load(done.copy())
        return ok
    saved = frame.arrays.get(POSITIONAL, UNKNOWN)
    frame.set_args(tuple(UNKNOWN if word.dynamic else word.value for word in argv[1:]))
    walker.calling.append(name)
    why = f"the body of function {name}, where it is called"
    sub = ctx._replace(
        src=defined.src, wrappers=(*ctx.wrappers, name), via="function", depth=ctx.depth + 1,
        where=defined.where, why=why,
    )  # fmt: skip
    try:
        done_ok = walker.stmt(body, frame, g, sub)
    finally:
        walker.calling.pop()
    frame.set_args(saved if isinstance(saved, tuple) else UNKNOWN)
    walker.memo[key] = frame.copy()
    return join(ok, done_ok)


def _alias(walker: Walk, argv: tuple[Word, ...], frame: Frame, g: G, ctx: Ctx) -> G:
    """An alias is replaced by its text, and the line read again (aliases are followed whether or not
    `shopt -s expand_aliases` is on: rein does not know which shell reads the line)."""
    name = argv[0].value
    value = frame.aliases[name]
    if isinstance(value, Unknown):
        state = frame.state()
        return _record(
            walker, argv, name, state, g, ctx, frame, "unknown", (f"alias {name} is not known statically",)
        )
    texts = [value]
    rest = list(argv[1:])
    while rest and texts[-1].endswith(" ") and rest[0].raw == rest[0].value:  # `alias g='git '`: the
        follow = frame.aliases.get(rest[0].value)  # word after an alias ending in a blank is one too
        if not isinstance(follow, str) or rest[0].value in walker.aliasing or len(texts) > _MAX_CALLS * 8:
            break
        texts.append(follow)
        rest.pop(0)
    text = " ".join([*texts, *(shlex.quote(word.value) for word in rest)])
    walker.aliasing.add(name)
    try:
        src = text.encode("utf-8", "surrogatepass")
        where = f" in the alias '{name}'"
        return walker.source(frame, g, ctx._replace(src=src, via="alias", depth=ctx.depth + 1, where=where))
    finally:
        walker.aliasing.discard(name)
