"""Substitutions and assignments: `$( )`, `<( )` and `$(( ))` walked before the command they are in,
`X=1 cmd` prefixes, and the variables a shell runs later (`PROMPT_COMMAND`, the prompts, arithmetic).
The walker binds these as its methods."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from rein.steering.bash import _control, _feeds
from rein.steering.bash._chain import simple
from rein.steering.bash._expand import fill
from rein.steering.bash._frame import Ctx, Frame, Value
from rein.steering.bash._redirects import as_double_quoted, node_text
from rein.steering.bash._walk_api import G, Outputs, Walk
from rein.steering.bash._words import Sub
from rein.steering.bash._words import assigned as assigned_value
from rein.steering.bash.model import UNKNOWN

if TYPE_CHECKING:
    from tree_sitter import Node

_PROMPTS = frozenset({"PROMPT_COMMAND", "PS0", "PS1", "PS2", "PS3", "PS4"})
_NAME = re.compile(r"[A-Za-z_]\w*")


def run_subs(walker: Walk, subs: list[Sub], frame: Frame, g: G, ctx: Ctx, via: str = "") -> Outputs:
    """Walk substitutions, each in a subshell; `$((x = 1))` assigns in this shell. Returns what
    rein can tell of each `$( )` and `<( )` output, by its text. The `>( )` of a command being
    read wait for `_feed`; any other reads what rein cannot tell."""
    outputs: Outputs = {}
    deferred, walker.deferred = walker.deferred, None
    for kind, node in subs:
        if kind == ">()":
            if deferred is not None:
                deferred.append(node)
            else:
                _feeds.read(walker, node, UNKNOWN, frame, g, ctx)
            continue
        if kind == "arith":
            walker.arithmetic(node, frame, g, ctx)
            for name in _control.arith_names(node, ctx.src):
                frame.set_var(name, UNKNOWN)
            continue
        apart = frame.copy()
        if kind == "stmt":
            walker.stmt(node, apart, g, ctx)
        else:
            walker.output = UNKNOWN
            walker.seq(node.children, apart, g, ctx._replace(via=via or kind))
            statements = [child for child in node.children if child.is_named and child.type != "comment"]
            output = walker.output if len(statements) == 1 and simple(statements[0]) else UNKNOWN
            text = node_text(node, ctx.src)
            outputs[text] = output.rstrip("\n") if isinstance(output, str) and kind != "<()" else output
        frame.absorb(apart, exact=False)
    walker.deferred = deferred
    return outputs


def prefix(walker: Walk, assignments: list[Node], frame: Frame, g: G, ctx: Ctx) -> dict[str, Value]:
    """`X=1 cmd`: the variables cmd alone sees."""
    subs: list[Sub] = []
    parsed = [_control.assignment(node, ctx.src, subs) for node in assignments]
    outputs = walker.run_subs(subs, frame, g, ctx, "assignment")
    env: dict[str, Value] = {}
    for name, value, append in parsed:
        filled = fill((value,), outputs)[0] if value is not None and outputs else value
        env[name] = assigned_value(name, filled, append, {**frame.env, **env})
        walker.assigned(name, env[name], frame, g, ctx)
    return env


def assigned(walker: Walk, name: str, value: Value, frame: Frame, g: G, ctx: Ctx) -> None:
    """What a shell runs later because of a variable: `PROMPT_COMMAND` runs as a command line
    before each prompt, and the prompts (`PS4` under `set -x`, `PS1`, ...) run their
    substitutions each time they are shown. Each may run, so each is checked now."""
    if name not in _PROMPTS or not isinstance(value, str) or not value:
        return
    if name == "PROMPT_COMMAND":
        apart = frame.copy()
        src = value.encode("utf-8", "surrogatepass")
        where = f" in the value of {name}{ctx.where}"
        walker.source(apart, g, ctx._replace(src=src, via=name, depth=ctx.depth + 1, where=where))
        frame.absorb(apart, exact=False)
    else:
        walker.expand_text(value, frame, g, ctx, name)


def expand_text(walker: Walk, text: str, frame: Frame, g: G, ctx: Ctx, via: str) -> None:
    """Walk what runs when bash expands `text` as it does a double-quoted string."""
    if "$(" not in text and "`" not in text:
        return
    apart = frame.copy()
    src = b': "' + as_double_quoted(text.encode("utf-8", "surrogatepass")) + b'"'
    where = f" in the value expanded by {via}{ctx.where}"
    walker.source(apart, g, ctx._replace(src=src, via=via, depth=ctx.depth + 1, where=where))
    frame.absorb(apart, exact=False)


def arithmetic(walker: Walk, node: Node, frame: Frame, g: G, ctx: Ctx) -> None:
    """Bash evaluates a variable named in arithmetic as an expression in turn: one holding
    `a[$(cmd)]` runs cmd (`x='a[$(cmd)]'; (( x ))`)."""
    text = ctx.src[node.start_byte : node.end_byte].decode("utf-8", "replace")
    for name in dict.fromkeys(_NAME.findall(text)):
        value = frame.env.get(name)
        if isinstance(value, str):
            walker.expand_text(value, frame, g, ctx, "arithmetic")
