"""Shell functions and aliases where they are used: a function's body runs at each call with that
call's arguments, an alias is replaced by its text and the line read again."""

from __future__ import annotations

import shlex

from rein.steering.bash._frame import POSITIONAL, Ctx, Frame
from rein.steering.bash._refs import record
from rein.steering.bash._walk_api import G, Walk, join
from rein.steering.bash.model import UNKNOWN, State, Unknown, Word

MAX_DEPTH = 16
"""Wrappers and re-parsed strings (`sudo bash -c "eval '...'"`) followed at most this deep."""
_MAX_CALLS = 2
"""A function calling itself is followed this deep; deeper, it is unknown."""


def call_function(
    walker: Walk, name: str, argv: tuple[Word, ...], raw: str, state: State, frame: Frame, g: G, ctx: Ctx
) -> G:
    """A shell function runs its body here, in this shell, with the caller's variables and its
    arguments as `$1`, `$@`: the body is checked at each call, not where it was defined."""
    depth = walker.calling.count(name)
    unknown = (
        (f"function {name} calls itself more than {_MAX_CALLS} levels deep",) if depth >= _MAX_CALLS else ()
    )
    ok = record(walker, argv, raw, state, g, ctx, frame, "runner", unknown)
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


def expand_alias(walker: Walk, argv: tuple[Word, ...], frame: Frame, g: G, ctx: Ctx) -> G:
    """An alias is replaced by its text, and the line read again (aliases are followed whether or not
    `shopt -s expand_aliases` is on: rein does not know which shell reads the line)."""
    name = argv[0].value
    value = frame.aliases[name]
    if isinstance(value, Unknown):
        state = frame.state()
        return record(
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
