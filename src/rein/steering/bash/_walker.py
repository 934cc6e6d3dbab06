"""The walk: every command the shell would execute, in order, each with the state at its position.

Extraction and state tracking happen in one pass over the tree: a command's substitutions are walked
before it, its ref is emitted, its effects are applied, then the commands its runners run. The walker
owns the recursion and calls handlers that live beside it and see it only as a `Walk`: `_chain`
reshapes `&&`/`||`/pipes, `_control` scopes groups, conditionals and loops, `_redirects` reads
redirects and heredocs, `_one_command` runs one command.

The walk is bounded: every statement, word and parsed byte spends from a budget, and a walk past it
stops and says so, so an adversarial line (nested `$(bash -c ...)`, a function calling itself) costs
at most a fixed amount of work and is blocked, well inside a host's hook time limit.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from rein.steering.bash import _control, _feeds, _heredocs, _one_command, _parse, _redirects, _subs
from rein.steering.bash._chain import REDIRECTS, Link, Member, chained, flatten, simple, split_redirected
from rein.steering.bash._disk import DiskView
from rein.steering.bash._effects import resolve_path
from rein.steering.bash._expand import fill
from rein.steering.bash._frame import Ctx, Frame, Value
from rein.steering.bash._parse import parse, syntax_problems, uncovered
from rein.steering.bash._redirects import raw
from rein.steering.bash._walk_api import G, Redirected, join, meet
from rein.steering.bash._words import STATEMENT_NODES, Sub, words
from rein.steering.bash.model import UNKNOWN, CommandRef, Stdin, Tracker, Word

if TYPE_CHECKING:
    from tree_sitter import Node

MAX_NESTING = 64
"""Statements nested inside statements (subshells, substitutions, groups) walked at most this deep."""
BUDGET = 40_000
"""Work units one analysis may spend: a statement is one, a command one per word, a parsed source
one per 64 bytes. Everyday commands spend under a hundred."""
TOLERATED = BUDGET // 2
"""Work units one file of the person's (a script, a makefile rein reads from disk) may spend."""
_SIMPLE = frozenset({"command", "redirected_statement"})

_PLAIN = re.compile(rb"[A-Za-z0-9_./:,@%+=^-]+(?: +[A-Za-z0-9_./:,@%+=^-]+)*")
_LONE_DASH = re.compile(rb"(?:^|[\s;&|(])-(?=[\s;&|)<>]|$)")
_RESERVED = frozenset({"{", "}", "then", "fi", "do", "done", "esac", "elif", "else", "in"})
_PROMPTS = frozenset({"PROMPT_COMMAND", "PS0", "PS1", "PS2", "PS3", "PS4"})
_NAME = re.compile(r"[A-Za-z_]\w*")


class Walker:
    """One analysis: collects refs and problems while walking. Not reusable."""

    emit = _one_command.emit
    redirects = _redirects.redirects
    run_subs = _subs.run_subs
    prefix = _subs.prefix
    assigned = _subs.assigned
    expand_text = _subs.expand_text
    arithmetic = _subs.arithmetic

    def __init__(
        self,
        trackers: Sequence[Tracker],
        known: frozenset[str],
        budget: int = BUDGET,
        disk: DiskView | None = None,
    ) -> None:
        self.trackers = tuple(trackers)
        self.known = known
        self.disk = disk
        self.refs: list[CommandRef] = []
        self.problems: list[str] = []
        self.output: Value = UNKNOWN
        self.calling: list[str] = []
        self.aliasing: set[str] = set()
        self.memo: dict[tuple[object, ...], Frame] = {}
        self.exhausted = ""
        """Why the walk stopped early, past its budget; empty when it read everything."""
        self._left = budget
        self._nesting = 0
        self._repaired: set[tuple[bytes, int]] = set()
        self.deferred: list[Node] | None = None
        """The `>(...)` of the command being read, walked once what it writes into them is known."""
        self.rebound: _feeds.Rebound | None = None
        """What an `exec` with only redirects just changed for the rest of its shell."""

    def spend(self, units: int) -> bool:
        self._left -= units
        if self._left < 0 and not self.exhausted:
            self.exhausted = f"the command needs more than {BUDGET} steps to analyse"
        return not self.exhausted

    def exhaust(self, reason: str) -> None:
        self.exhausted = self.exhausted or reason

    def tolerate(self, walk: Callable[[], G], g: G) -> G:
        """Walk a file of the person's: at most `TOLERATED` of the budget, and a walk past it (or too
        deep) stops only there. What was read is checked; what was not is the person's, as before."""
        if self.exhausted:
            return g
        left = self._left
        self._left = min(left, TOLERATED)
        start = self._left
        try:
            return walk()
        finally:
            self._left = left - (start - self._left)
            self.exhausted = ""

    # Sources and sequences

    def source(self, frame: Frame, g: G, ctx: Ctx, comments: list[str] | None = None) -> G:
        """Parse `ctx.src` and walk all of it; collect its comments into `comments` if given."""
        src = ctx.src
        if not self.spend(len(src) // 64 + 1):
            return g
        root = parse(src)
        if b"<<" in src and _heredocs.misread(root):  # a heredoc line tree-sitter cannot place
            lifted = _heredocs.lift(src)
            again = parse(lifted) if lifted is not None and self.spend(len(lifted) // 64 + 1) else None
            if lifted is not None and again is not None and not again.has_error:
                src, root, ctx = lifted, again, ctx._replace(src=lifted)
        self.problems.extend(syntax_problems(root, src, ctx.where))
        if comments is not None and b"#" in src:
            comments.extend(_parse.comments(root, src))
        ok = self.seq(root.children, frame, g, ctx)
        if _LONE_DASH.search(src) and not root.has_error:  # where tree-sitter is known to drop text
            self._report_dropped(root, ctx)
        return ok

    def _report_dropped(self, root: Node, ctx: Ctx) -> None:
        src = ctx.src
        for gap, end in uncovered(root, src):
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
            self.exhaust(f"commands nest more than {MAX_NESTING} levels deep")
            return g
        self._nesting += 1
        sinks: list[_feeds.Sink] = []
        try:
            ok = g
            last = len(children) - 1
            for index, child in enumerate(children):
                if not child.is_named or child.type == "comment":
                    continue
                if self.exhausted:
                    return g
                if ctx.speculative and _not_shell(children, index):
                    continue  # a guess: what bash would reject there is no command
                self.output = UNKNOWN
                if index < last and children[index + 1].type == "&":
                    apart = frame.copy()
                    self.stmt(child, apart, g, ctx._replace(background=True))
                    frame.absorb(apart, exact=False)
                    ok = g
                else:
                    ok = self.stmt(child, frame, g, ctx)
                found, self.rebound = self.rebound, None
                if found is not None:  # `exec < f`, `exec > >(sh)`: the rest of the shell reads, prints there
                    ctx = _feeds.rebind(found, child, frame, ctx, sinks)
                elif sinks:
                    _feeds.printed(sinks, child, ctx.src, self.output, simple(child))
            return ok
        finally:
            self._nesting -= 1
            if sinks and not self.exhausted:
                _feeds.drain(self, sinks, children, g)

    def stmt(self, node: Node, frame: Frame, g: G, ctx: Ctx, pipe: Stdin | None = None) -> G:
        """Walk one statement; returns the refs known to have exited 0 when it exits 0."""
        if not self.spend(1):
            return g
        kind = node.type
        if kind == "command":
            return self.command(node, (), frame, g, ctx, pipe)
        if kind in ("list", "pipeline") or (kind == "redirected_statement" and chained(node)):
            return self.chain(flatten(node), frame, g, ctx)
        if kind == "redirected_statement":
            return self.redirected(node, (), frame, g, ctx, pipe)
        handler = _control.HANDLERS.get(kind)
        if handler is not None:  # a group or loop reads what it is fed, as its commands do
            return handler(self, node, frame, g, ctx if pipe is None else ctx._replace(stdin=pipe))
        if kind in REDIRECTS:  # `$(< file)`
            self.redirects([node], frame, g, ctx)
        elif kind == "ERROR" and not ctx.speculative:  # already reported; walk what was understood inside
            for child in node.children:  # (a guess that does not parse there is not shell there)
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
            ok = meet(ok, result) if operator == "||" else result
        return ok

    def pipeline(self, members: list[Member], frame: Frame, g: G, ctx: Ctx) -> G:
        """A pipeline of several commands runs each in its own subshell; one command is not a pipeline.
        Each member reads what the one before it prints, as far as rein can tell."""
        if len(members) == 1:
            return self.member(members[0], frame, g, ctx, None)
        result = g
        pipe: Stdin | None = None
        for member in members:
            apart = frame.copy()
            self.output = UNKNOWN
            result = self.member(member, apart, g, ctx, pipe)
            pipe = Stdin("pipe", content=self.output if simple(member[0]) else UNKNOWN)
            frame.absorb(apart, exact=False)
        return g if any(node.type == "negated_command" for node, _ in members) else result

    def member(self, member: Member, frame: Frame, g: G, ctx: Ctx, pipe: Stdin | None) -> G:
        node, extra = member
        kind = node.type
        if kind == "redirected_statement":
            return self.redirected(node, extra, frame, g, ctx, pipe)
        if kind == "command":  # `a && python - <<EOF`: the redirect tree-sitter hung on the whole list
            lost = self._lost_words(node, list(extra), ctx) if extra else []
            return self.command(node, extra, frame, g, ctx, pipe, lost)
        if extra:
            self.redirects(extra, frame, g, ctx)
        return self.stmt(node, frame, g, ctx, pipe)

    # Commands

    def redirected(
        self, node: Node, extra: Sequence[Node], frame: Frame, g: G, ctx: Ctx, pipe: Stdin | None
    ) -> G:
        body, redirects = split_redirected(node)
        redirects.extend(extra)
        if body is not None and body.type == "command":
            lost = self._lost_words(body, redirects, ctx)
            return self.command(body, redirects, frame, g, ctx, pipe, lost)
        done = self.redirects(redirects, frame, g, ctx)
        ok = g if body is None else self.stmt(body, frame, g, ctx, done.stdin or pipe)
        self._write(done, frame, UNKNOWN)
        return ok

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
        pipe: Stdin | None,
        lost: Sequence[str] = (),
    ) -> G:
        src = ctx.src
        text = src[node.start_byte : node.end_byte]
        extra = _redirects.trailing(outer) if outer else ()
        if _PLAIN.fullmatch(text) and not extra:  # most commands: plain words, nothing to expand
            plain = text.decode()
            names = [*plain.split(), *lost]
            if "=" not in names[0] and names[0] not in _RESERVED:
                fed: list[Node] = []
                held, self.deferred = self.deferred, fed
                done = self.redirects(outer, frame, g, ctx) if outer else Redirected()
                self.deferred = held
                if outer:
                    plain = raw(node, outer, src)
                plain_argv = tuple([Word(value=name, raw=name) for name in names])
                stdin = done.stdin or pipe or ctx.stdin
                first = len(self.refs)
                ok = self.emit(plain_argv, plain, frame, g, ctx, None, stdin)
                self._own_writes(first, plain, self._write(done, frame, self.output))
                _feeds.feed(self, fed, done, frame, g, ctx, first, stdin, exec_only=names == ["exec"])
                return ok
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
        extra = _redirects.trailing(redirects)
        if extra:  # in source order: a redirect inside the command may come before its arguments
            literals = sorted([*literals, *extra], key=lambda literal: literal.start_byte)
        if outer and len(redirects) > len(outer):  # in the order written: the last stdin wins
            redirects.sort(key=lambda redirect: redirect.start_byte)
        subs: list[Sub] = []
        fed = []
        held, self.deferred = self.deferred, fed
        argv = words(literals, src, subs) + [Word(value=word, raw=word) for word in lost]
        outputs = self.run_subs(subs, frame, g, ctx)
        argv = fill(argv, outputs)
        done = self.redirects(redirects, frame, g, ctx) if redirects else Redirected()
        env: dict[str, Value] | None = None
        if assignments:
            env = self.prefix(assignments, frame, g, ctx)
        self.deferred = held
        if not argv or not argv[0].raw:  # nothing, or a command name tree-sitter made up (MISSING)
            self._write(done, frame, "")
            self.output = ""
            _feeds.feed(self, fed, done, frame, g, ctx, len(self.refs), None)
            return g
        if argv[0].raw in _RESERVED and name_node is not None and name_node.children[0].type == "word":
            row, column = name_node.start_point
            where = f"line {row + 1}, column {column + 1}{ctx.where}"
            self.problems.append(f"could not parse near {where}: '{argv[0].raw}'")
        stdin = done.stdin or pipe or ctx.stdin
        first = len(self.refs)
        source = raw(node, redirects, src)
        ok = self.emit(tuple(argv), source, frame, g, ctx, env, stdin)
        self._own_writes(first, source, self._write(done, frame, self.output))
        exec_only = len(argv) == 1 and argv[0].value == "exec"
        _feeds.feed(self, fed, done, frame, g, ctx, first, stdin, exec_only=exec_only)
        if bodies:
            inner = ctx._replace(wrappers=(*ctx.wrappers, argv[0].value))
            for body in bodies:  # `time` exits with the group's status
                finished = self.stmt(body, frame, g, inner)
                ok = join(ok, finished)
        return ok

    def _own_writes(self, first: int, text: str, wrote: list[str]) -> None:
        """A command's redirects are files it writes: added to its ref (the one emitted at `first`
        for this text; an alias or a function call emits others)."""
        if wrote and first < len(self.refs) and self.refs[first].raw == text:
            ref = self.refs[first]
            self.refs[first] = replace(ref, writes=(*ref.writes, *wrote))

    def _write(self, done: Redirected, frame: Frame, output: Value) -> list[str]:
        """The files a command's redirects write: its output where stdout goes, else unknown text.
        Returns the paths rein can name."""
        wrote: list[str] = []
        for word, append, stdout in done.writes:
            if _feeds.is_process(word):  # `> >(cmd)`: a pipe, walked by `_feed`
                continue
            path = resolve_path(word, frame.cwd, frame.env) if word.value not in _DEVICES else None
            if path is not None:
                frame.write(path, output if stdout else UNKNOWN, append=append)
                if isinstance(path, str):
                    wrote.append(path)
        return wrote


def _not_shell(children: Sequence[Node], index: int) -> bool:
    """A statement bash rejects that tree-sitter reads anyway: one with a parse error in it, or a
    command and a `(...)` on the same line with nothing between (`list.add(next)` in source code)."""
    child = children[index]
    if child.has_error:
        return True
    glued = [(index, index + 1), (index - 1, index)]
    return any(
        a >= 0 and b < len(children) and children[a].type == "command" and children[b].type == "subshell"
        and children[a].end_point.row == children[b].start_point.row
        for a, b in glued
    )  # fmt: skip


_DEVICES = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty"})
