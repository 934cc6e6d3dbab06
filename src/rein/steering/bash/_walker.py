"""The walk: every command the shell would execute, in order, each with the state at its position.

Extraction and state tracking happen in one pass over the tree: a command's substitutions are walked
before it, its ref is emitted, its effects are applied, then the commands its wrappers run. The
pieces live beside this module: `_chain` reshapes `&&`/`||`/pipes, `_control` scopes groups,
conditionals and loops, `_redirects` reads redirects and heredocs, `_run` runs one command.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from rein.steering.bash import _control, _redirects, _run
from rein.steering.bash._chain import REDIRECTS, Link, Member, chained, flatten, split_redirected
from rein.steering.bash._frame import Ctx, Frame, Value
from rein.steering.bash._parse import parse, syntax_problems
from rein.steering.bash._redirects import Stdin, node_text, raw
from rein.steering.bash._words import STATEMENT_NODES, Sub, assigned, words
from rein.steering.bash.model import UNKNOWN, CommandRef, Tracker, Word

if TYPE_CHECKING:
    from tree_sitter import Node

MAX_NESTING = 64
"""Statements nested inside statements (subshells, substitutions, groups) walked at most this deep."""

G = tuple[int, ...]
"""Indices of refs that certainly exited 0 whenever the current point is reached."""

_PLAIN = re.compile(rb"[A-Za-z0-9_./:,@%+=^-]+(?: +[A-Za-z0-9_./:,@%+=^-]+)*")
_LONE_DASH = re.compile(rb"(?:^|[\s;&|(])-(?=[\s;&|)<>]|$)")
_BLANK = re.compile(rb"(?:\s|\\\r?\n|\\[ \t\v\f])*")
"""Blanks, line continuations, and `\\ ` (tree-sitter skips an escaped blank between words)."""
_RESERVED = frozenset({"{", "}", "then", "fi", "do", "done", "esac", "elif", "else", "in"})


class Walker:
    """One analysis: collects refs and problems while walking. Not reusable."""

    emit = _run.emit
    inner = _run.inner
    redirects = _redirects.redirects

    def __init__(self, trackers: Sequence[Tracker]) -> None:
        self.trackers = tuple(trackers)
        self.refs: list[CommandRef] = []
        self.problems: list[str] = []
        self.calling: set[str] = set()
        """Functions whose effects are being applied (a recursive call stops there)."""
        self._nesting = 0
        self._repaired: set[tuple[bytes, int]] = set()

    # Sources and sequences

    def source(self, frame: Frame, g: G, ctx: Ctx, comments: list[str] | None = None) -> G:
        """Parse `ctx.src` and walk all of it; collect its comments into `comments` if given."""
        src = ctx.src
        root = parse(src)
        self.problems.extend(syntax_problems(root, src, ctx.where))
        if comments is not None and b"#" in src:
            comments.extend(_comments(root, src))
        ok = self.seq(root.children, frame, g, ctx)
        if _LONE_DASH.search(src) and not root.has_error:  # where tree-sitter is known to drop text
            self._report_dropped(root, ctx)
        return ok

    def _report_dropped(self, root: Node, ctx: Ctx) -> None:
        src = ctx.src
        for gap, end in _uncovered(root, src):
            if (src, gap) in self._repaired:
                continue
            chunk = src[gap:end]
            start = gap + len(chunk) - len(chunk.lstrip())
            row, column = src.count(b"\n", 0, start) + 1, start - src.rfind(b"\n", 0, start)
            what = chunk.strip().decode("utf-8", "replace")
            self.problems.append(f"could not parse near line {row}, column {column}{ctx.where}: '{what}'")

    def seq(self, children: Sequence[Node], frame: Frame, g: G, ctx: Ctx) -> G:
        """Statements in order; one followed by `&` runs in the background, apart from the rest."""
        if self._nesting >= MAX_NESTING:
            self.problems.append(f"commands nest deeper than {MAX_NESTING} levels; the rest is not analysed")
            return g
        self._nesting += 1
        try:
            ok = g
            last = len(children) - 1
            for index, child in enumerate(children):
                if not child.is_named or child.type == "comment":
                    continue
                if index < last and children[index + 1].type == "&":
                    apart = frame.copy()
                    self.stmt(child, apart, g, ctx)
                    frame.absorb(apart, exact=False)
                    ok = g
                else:
                    ok = self.stmt(child, frame, g, ctx)
            return ok
        finally:
            self._nesting -= 1

    def stmt(self, node: Node, frame: Frame, g: G, ctx: Ctx, piped: bool = False) -> G:
        """Walk one statement; returns the refs known to have exited 0 when it exits 0."""
        kind = node.type
        if kind == "command":
            return self.command(node, (), frame, g, ctx, piped)
        if kind in ("list", "pipeline") or (kind == "redirected_statement" and chained(node)):
            return self.chain(flatten(node), frame, g, ctx)
        if kind == "redirected_statement":
            return self.redirected(node, (), frame, g, ctx, piped)
        handler = _control.HANDLERS.get(kind)
        if handler is not None:
            return handler(self, node, frame, g, ctx)
        if kind in REDIRECTS:  # `$(< file)`
            self.redirects([node], frame, g, ctx)
        elif kind == "ERROR":  # already reported; still walk what was understood inside
            for child in node.children:
                if child.type in STATEMENT_NODES:
                    self.stmt(child, frame, g, ctx)
        elif kind != "comment":
            row = node.start_point.row + 1
            self.problems.append(f"unsupported shell construct '{kind}' at line {row}{ctx.where}")
        return g

    # && || | and &

    def chain(self, links: list[Link], frame: Frame, g: G, ctx: Ctx) -> G:
        ok = g
        for operator, members in links:
            result = self.pipeline(members, frame, g if operator == "||" else ok, ctx)
            ok = tuple(index for index in ok if index in result) if operator == "||" else result
        return ok

    def pipeline(self, members: list[Member], frame: Frame, g: G, ctx: Ctx) -> G:
        """A pipeline of several commands runs each in its own subshell; one command is not a pipeline."""
        if len(members) == 1:
            return self.member(members[0], frame, g, ctx, piped=False)
        result = g
        for index, member in enumerate(members):
            apart = frame.copy()
            result = self.member(member, apart, g, ctx, piped=index > 0)
            frame.absorb(apart, exact=False)
        return g if any(node.type == "negated_command" for node, _ in members) else result

    def member(self, member: Member, frame: Frame, g: G, ctx: Ctx, *, piped: bool) -> G:
        node, extra = member
        kind = node.type
        if kind == "redirected_statement":
            return self.redirected(node, extra, frame, g, ctx, piped)
        if kind == "command":
            return self.command(node, extra, frame, g, ctx, piped)
        if extra:
            self.redirects(extra, frame, g, ctx)
        return self.stmt(node, frame, g, ctx, piped)

    # Commands

    def redirected(self, node: Node, extra: Sequence[Node], frame: Frame, g: G, ctx: Ctx, piped: bool) -> G:
        body, redirects = split_redirected(node)
        redirects.extend(extra)
        if body is not None and body.type == "command":
            lost = self._lost_words(body, redirects, ctx)
            return self.command(body, redirects, frame, g, ctx, piped, lost)
        self.redirects(redirects, frame, g, ctx)
        return g if body is None else self.stmt(body, frame, g, ctx, piped)

    def _lost_words(self, body: Node, redirects: list[Node], ctx: Ctx) -> list[str]:
        """Words tree-sitter drops before a redirect (`python3 - <<EOF` and `cd - 2>&1` have no `-`
        node): plain ones are arguments again (the coverage check in `source` reports the rest)."""
        src = ctx.src
        lost: list[str] = []
        end = body.end_byte
        for redirect in redirects:
            start = redirect.start_byte
            if start > end:
                gap = src[end:start].strip()
                if gap and _PLAIN.fullmatch(gap):
                    lost.extend(gap.decode().split())
                    self._repaired.add((src, end))
            end = max(end, redirect.end_byte)
        return lost

    def command(
        self,
        node: Node,
        outer: Sequence[Node],
        frame: Frame,
        g: G,
        ctx: Ctx,
        piped: bool,
        lost: Sequence[str] = (),
    ) -> G:
        src = ctx.src
        text = src[node.start_byte : node.end_byte]
        if _PLAIN.fullmatch(text):  # most commands: plain words only, nothing to unquote or expand
            plain = text.decode()
            names = [*plain.split(), *lost]
            if "=" not in names[0] and names[0] not in _RESERVED:
                stdin = Stdin("pipe") if piped else None
                if outer:
                    stdin = self.redirects(outer, frame, g, ctx) or stdin
                    plain = raw(node, outer, src)
                plain_argv = tuple([Word(value=name, raw=name) for name in names])
                return self.emit(plain_argv, plain, frame, g, ctx, None, stdin)
        assignments: list[Node] = []
        literals: list[Node] = []
        redirects = list(outer)
        named = False
        name_node: Node | None = None
        bodies: list[Node] = []
        for child in node.children:
            kind = child.type
            if kind == "command_name":
                literals.extend(child.children)
                named = True
                name_node = child
            elif kind in REDIRECTS:
                redirects.append(child)
            elif kind == "variable_assignment" and not named:
                assignments.append(child)
            elif kind in STATEMENT_NODES:  # `time (make)`: tree-sitter makes the group an argument
                bodies.append(child)
            elif kind != "comment":
                literals.append(child)
        subs: list[Sub] = []
        argv = words(literals, src, subs) + [Word(value=word, raw=word) for word in lost]
        self.run_subs(subs, frame, g, ctx)
        stdin = Stdin("pipe") if piped else None
        if redirects:
            stdin = self.redirects(redirects, frame, g, ctx) or stdin
        env: dict[str, Value] | None = None
        if assignments:
            env = self.prefix(assignments, frame, g, ctx)
        if not argv or not argv[0].raw:  # nothing, or a command name tree-sitter made up (MISSING)
            return g
        if argv[0].raw in _RESERVED and name_node is not None and name_node.children[0].type == "word":
            row, column = name_node.start_point
            where = f"line {row + 1}, column {column + 1}{ctx.where}"
            self.problems.append(f"could not parse near {where}: '{argv[0].raw}'")
        ok = self.emit(tuple(argv), raw(node, redirects, src), frame, g, ctx, env, stdin)
        if bodies:
            inner = Ctx(src, (*ctx.wrappers, argv[0].value), ctx.via, ctx.depth, ctx.where)
            for body in bodies:  # `time` exits with the group's status
                done = self.stmt(body, frame, g, inner)
                ok += tuple(index for index in done if index not in ok)
        return ok

    def run_subs(self, subs: list[Sub], frame: Frame, g: G, ctx: Ctx, via: str = "") -> None:
        """Walk substitutions, each in a subshell; `$((x = 1))` assigns in this shell."""
        for kind, node in subs:
            if kind == "arith":
                for name in _control.arith_names(node, ctx.src):
                    frame.set_var(name, UNKNOWN)
                continue
            if kind == "stmt":
                apart = frame.copy()
                self.stmt(node, apart, g, ctx)
                frame.absorb(apart, exact=False)
                continue
            apart = frame.copy()
            self.seq(node.children, apart, g, Ctx(ctx.src, ctx.wrappers, via or kind, ctx.depth, ctx.where))
            frame.absorb(apart, exact=False)

    def prefix(self, assignments: list[Node], frame: Frame, g: G, ctx: Ctx) -> dict[str, Value]:
        """`X=1 cmd`: the variables cmd alone sees."""
        subs: list[Sub] = []
        parsed = [_control.assignment(node, ctx.src, subs) for node in assignments]
        self.run_subs(subs, frame, g, ctx, "assignment")
        env: dict[str, Value] = {}
        for name, value, append in parsed:
            env[name] = assigned(name, value, append, {**frame.env, **env})
        return env


def _uncovered(root: Node, src: bytes) -> list[tuple[int, int]]:
    """Byte ranges no token covers that hold more than blanks: text tree-sitter silently dropped."""
    found: list[tuple[int, int]] = []
    position = 0
    stack = [root]
    while stack:
        node = stack.pop()
        if node.child_count and node.type != "heredoc_body":
            stack.extend(reversed(node.children))
            continue
        start = node.start_byte
        if start > position and not _BLANK.fullmatch(src[position:start]):
            found.append((position, start))
        position = max(position, node.end_byte)
    if position < len(src) and not _BLANK.fullmatch(src[position:]):
        found.append((position, len(src)))
    return found


def _comments(root: Node, src: bytes) -> list[str]:
    """The text of every comment node, in source order (`#` inside quotes or words is no comment)."""
    found: list[str] = []
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "comment":
            found.append(node_text(node, src))
        else:
            stack.extend(reversed(node.children))
    return found
