"""Process substitutions a command writes into (`>(sh)`): what runs in one reads what is written to it.

A `>(...)` is a pipe: a shell or interpreter in it runs what the writer prints (`echo 'git push -f' >
>(bash)`), what `tee` copies (`... | tee >(sh)`), or, after `exec > >(zsh)`, whatever the rest of the
shell prints. The walker defers each one until the command that names it is read, then walks it with
that text on its stdin: known where the writer's output is known, unknown otherwise, so `>(sh)` fed by
something rein cannot read blocks while `>(cat)`, `>(tee log)` and `>(gzip > x)` run.
"""

from __future__ import annotations

import posixpath
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from rein.steering.bash import commands
from rein.steering.bash._chain import split_redirected
from rein.steering.bash._frame import Ctx, Frame, Value
from rein.steering.bash._redirects import node_text
from rein.steering.bash._walk_api import G, Redirected, Walk
from rein.steering.bash.model import UNKNOWN, CommandRef, Stdin, Word

if TYPE_CHECKING:
    from tree_sitter import Node

    from rein.steering.bash._walker import Walker

_WRITES = frozenset({">", ">>", ">|", "&>", "&>>"})
_WHOLE = frozenset({"program", "subshell", "command_substitution", "process_substitution"})
"""Sequences that are all a shell runs: output after `exec >` inside one goes nowhere else."""
_SILENT = frozenset({
    "variable_assignment", "variable_assignments", "declaration_command", "unset_command",
    "function_definition",
})  # fmt: skip
"""Statements that print nothing."""


@dataclass(frozen=True, slots=True)
class Rebound:
    """What `exec` with only redirects changes for the rest of its shell: stdin, and the `>(...)`
    readers stdout now goes to."""

    stdin: Stdin | None = None
    sinks: tuple[Node, ...] = ()
    moves_stdout: bool = False


@dataclass(slots=True)
class Sink:
    """A reader stdout goes to after `exec > >(reader)`, and what the shell printed since."""

    node: Node
    frame: Frame
    ctx: Ctx
    chunks: list[Value] = field(default_factory=list)
    open: bool = True
    """Still fed: a later `exec >` sends stdout elsewhere."""


def is_process(word: Word) -> bool:
    """A word that is one process substitution (`>(sh)`, `<(cmd)`): a pipe, not a file on disk."""
    parts = word.parts
    return len(parts) == 1 and not isinstance(parts[0], str) and parts[0].kind == "process"


def content(node: Node, src: bytes, output: Value, fed: Mapping[str, Value]) -> Value:
    """What the command writes into `node`: its stdout for `> >(...)` (`&>` too), what it copies
    into an operand (`tee >(sh)`), else unknown (`2> >(sh)`, an operand of a program rein does not
    model, tree-sitter's `2>&1 >(sh)`)."""
    target = _target(node, src)
    if target is not None:
        return output if target else UNKNOWN
    return fed.get(node_text(node, src), UNKNOWN)


def _target(node: Node, src: bytes) -> bool | None:
    """For the one target of a redirect, whether stdout goes to it; None for any other node."""
    parent = node.parent
    if parent is None or parent.type != "file_redirect":
        return None
    named = [child for child in parent.children if child.is_named and child.type != "file_descriptor"]
    return _stdout(parent, src) if named == [node] else None


def _stdout(redirect: Node, src: bytes) -> bool:
    """A redirect that sends stdout to its target: `>`, `>>`, `1>`, `&>`, `&>>`."""
    children = redirect.children
    descriptor = node_text(children[0], src) if children[0].type == "file_descriptor" else ""
    operator = next((child.type for child in children if not child.is_named), "")
    return operator in _WRITES and (descriptor in ("", "1") or operator.startswith("&"))


def feed(
    walker: Walker,
    fed: list[Node],
    done: Redirected,
    frame: Frame,
    g: G,
    ctx: Ctx,
    first: int,
    stdin: Stdin | None,
    *,
    exec_only: bool = False,
) -> None:
    """Walk the `>(...)` a command writes into, now that what it writes is known (the command's
    first ref is `walker.refs[first]`). An `exec` with only redirects leaves its stdout readers and
    its stdin to the sequence it is in, which sees what the rest of the shell prints and reads."""
    if exec_only and (fed or done.stdin is not None or done.writes):
        if walker.rebound is not None:  # two in one statement (`exec > >(sh) && exec > f`)
            stale(walker, walker.rebound, frame, g, ctx)
        moves = any(stdout for _, _, stdout in done.writes)
        walker.rebound = rebound(fed, ctx.src, done.stdin, moves)
        fed = [node for node in fed if node not in walker.rebound.sinks]
    if not fed:
        return
    output = walker.output
    into = written(walker.refs[first] if first < len(walker.refs) else None, stdin, frame)
    for node in fed:
        read(walker, node, content(node, ctx.src, output, into), frame, g, ctx)
    walker.output = output


def written(ref: CommandRef | None, stdin: Stdin | None, frame: Frame) -> dict[str, Value]:
    """What the command `ref` writes into each `>(...)` operand, by its text (`tee >(sh)`)."""
    if ref is None or not ref.argv:
        return {}
    name = posixpath.basename(ref.argv[0].value)
    call = commands.Call(name, ref.argv, ref.state, stdin, frame.files, frame.files_unknown)
    return commands.feeds(call)


def read(walker: Walk, node: Node, text: Value, frame: Frame, g: G, ctx: Ctx) -> None:
    """Walk the commands of `>(...)` in a subshell, reading `text` on stdin."""
    apart = frame.copy()
    walker.seq(node.children, apart, g, ctx._replace(via=">()", stdin=Stdin("pipe", content=text)))
    frame.absorb(apart, exact=False)


def rebound(fed: Sequence[Node], src: bytes, stdin: Stdin | None, moves_stdout: bool) -> Rebound:
    """`exec` with only redirects: the `>(...)` on its stdout read what the shell prints next."""
    return Rebound(stdin, tuple(node for node in fed if _target(node, src)), moves_stdout)


def rebind(found: Rebound, child: Node, frame: Frame, ctx: Ctx, sinks: list[Sink]) -> Ctx:
    """After `exec` redirected the shell: later statements read its stdin, and its `>(...)` readers
    collect what they print (unknown from the start when the `exec` was inside a list or a group,
    whose later members rein does not follow here)."""
    if found.moves_stdout:
        for sink in sinks:
            sink.open = False
    direct = child.type == "redirected_statement" and _is_exec(child, ctx.src)
    for node in found.sinks:
        sinks.append(Sink(node, frame.copy(), ctx, [] if direct else [UNKNOWN]))
    return ctx if found.stdin is None else ctx._replace(stdin=found.stdin)


def printed(sinks: list[Sink], child: Node, src: bytes, output: Value, simple: bool) -> None:
    """Add what a statement after `exec > >(reader)` printed to each reader still fed."""
    if child.type in _SILENT:
        return
    text = ("" if _moves_stdout(child, src) else output) if simple else UNKNOWN
    for sink in sinks:
        if sink.open:
            sink.chunks.append(text)


def drain(walker: Walk, sinks: list[Sink], children: Sequence[Node], g: G) -> None:
    """At the end of a sequence, walk each `exec` reader with all that was printed into it; a
    sequence that is not all its shell runs (a group, a branch) goes on printing: unknown."""
    whole = bool(children) and children[0].parent is not None and children[0].parent.type in _WHOLE
    output = walker.output
    for sink in sinks:
        chunks = sink.chunks if whole else [*sink.chunks, UNKNOWN]
        known = all(isinstance(chunk, str) for chunk in chunks)
        text: Value = "".join(chunk for chunk in chunks if isinstance(chunk, str)) if known else UNKNOWN
        read(walker, sink.node, text, sink.frame, g, sink.ctx)
    walker.output = output


def stale(walker: Walk, found: Rebound, frame: Frame, g: G, ctx: Ctx) -> None:
    """An `exec` no sequence took up (a statement where a word was expected): its readers read
    what rein cannot follow."""
    for node in found.sinks:
        read(walker, node, UNKNOWN, frame, g, ctx)


def _is_exec(node: Node, src: bytes) -> bool:
    body, _ = split_redirected(node)
    return body is not None and body.type == "command" and node_text(body, src).strip() == "exec"


def _moves_stdout(node: Node, src: bytes) -> bool:
    """A statement whose stdout goes to a file (`echo x > notes.txt`), not to the shell's stdout."""
    if node.type != "redirected_statement":
        return False
    redirects = split_redirected(node)[1]
    return any(redirect.type == "file_redirect" and _stdout(redirect, src) for redirect in redirects)
