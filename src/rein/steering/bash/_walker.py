"""The walk: every command the shell would execute, in order, each with the state at its position.

Extraction and state tracking happen in one pass over the tree: a command's substitutions are walked
before it, its ref is emitted, its effects are applied, then the commands its runners run. The walker
owns the recursion and calls handlers that live beside it and see it only as a `Walk`: `_chain`
reshapes `&&`/`||`/pipes, `_control` scopes groups, conditionals and loops, `_redirects` reads
redirects and heredocs, `_run` runs one command.

The walk is bounded: every statement, word and parsed byte spends from a budget, and a walk past it
stops and says so, so an adversarial line (nested `$(bash -c ...)`, a function calling itself) costs
at most a fixed amount of work and is blocked, well inside a host's hook time limit.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from rein.steering.bash import _control, _parse, _redirects, _run
from rein.steering.bash._chain import REDIRECTS, Link, Member, chained, flatten, split_redirected
from rein.steering.bash._effects import resolve_path
from rein.steering.bash._expand import fill
from rein.steering.bash._frame import Ctx, Frame, Value
from rein.steering.bash._parse import parse, syntax_problems, uncovered
from rein.steering.bash._redirects import as_double_quoted, node_text, raw
from rein.steering.bash._walk import G, Outputs, Redirected, join, meet
from rein.steering.bash._words import STATEMENT_NODES, Sub, assigned, words
from rein.steering.bash.model import UNKNOWN, CommandRef, Stdin, Tracker, Word

if TYPE_CHECKING:
    from tree_sitter import Node

MAX_NESTING = 64
"""Statements nested inside statements (subshells, substitutions, groups) walked at most this deep."""
BUDGET = 40_000
"""Work units one analysis may spend: a statement is one, a command one per word, a parsed source
one per 64 bytes. Everyday commands spend under a hundred."""
_SIMPLE = frozenset({"command", "redirected_statement"})

_PLAIN = re.compile(rb"[A-Za-z0-9_./:,@%+=^-]+(?: +[A-Za-z0-9_./:,@%+=^-]+)*")
_LONE_DASH = re.compile(rb"(?:^|[\s;&|(])-(?=[\s;&|)<>]|$)")
_RESERVED = frozenset({"{", "}", "then", "fi", "do", "done", "esac", "elif", "else", "in"})
_PROMPTS = frozenset({"PROMPT_COMMAND", "PS0", "PS1", "PS2", "PS3", "PS4"})
_NAME = re.compile(r"[A-Za-z_]\w*")


class Walker:
    """One analysis: collects refs and problems while walking. Not reusable."""

    emit = _run.emit
    redirects = _redirects.redirects

    def __init__(self, trackers: Sequence[Tracker], known: frozenset[str], budget: int = BUDGET) -> None:
        self.trackers = tuple(trackers)
        self.known = known
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

    def spend(self, units: int) -> bool:
        self._left -= units
        if self._left < 0 and not self.exhausted:
            self.exhausted = f"the command needs more than {BUDGET} steps to analyse"
        return not self.exhausted

    def exhaust(self, reason: str) -> None:
        self.exhausted = self.exhausted or reason

    # Sources and sequences

    def source(self, frame: Frame, g: G, ctx: Ctx, comments: list[str] | None = None) -> G:
        """Parse `ctx.src` and walk all of it; collect its comments into `comments` if given."""
        src = ctx.src
        if not self.spend(len(src) // 64 + 1):
            return g
        root = parse(src)
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
        try:
            ok = g
            last = len(children) - 1
            for index, child in enumerate(children):
                if not child.is_named or child.type == "comment":
                    continue
                if self.exhausted:
                    return g
                if index < last and children[index + 1].type == "&":
                    apart = frame.copy()
                    self.stmt(child, apart, g, ctx._replace(background=True))
                    frame.absorb(apart, exact=False)
                    ok = g
                else:
                    ok = self.stmt(child, frame, g, ctx)
            return ok
        finally:
            self._nesting -= 1

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
            pipe = Stdin("pipe", content=self.output if _simple(member[0]) else UNKNOWN)
            frame.absorb(apart, exact=False)
        return g if any(node.type == "negated_command" for node, _ in members) else result

    def member(self, member: Member, frame: Frame, g: G, ctx: Ctx, pipe: Stdin | None) -> G:
        node, extra = member
        kind = node.type
        if kind == "redirected_statement":
            return self.redirected(node, extra, frame, g, ctx, pipe)
        if kind == "command":
            return self.command(node, extra, frame, g, ctx, pipe)
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
        if _PLAIN.fullmatch(text):  # most commands: plain words only, nothing to unquote or expand
            plain = text.decode()
            names = [*plain.split(), *lost]
            if "=" not in names[0] and names[0] not in _RESERVED:
                done = self.redirects(outer, frame, g, ctx) if outer else Redirected()
                if outer:
                    plain = raw(node, outer, src)
                plain_argv = tuple([Word(value=name, raw=name) for name in names])
                ok = self.emit(plain_argv, plain, frame, g, ctx, None, done.stdin or pipe or ctx.stdin)
                self._write(done, frame, self.output)
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
        subs: list[Sub] = []
        argv = words(literals, src, subs) + [Word(value=word, raw=word) for word in lost]
        outputs = self.run_subs(subs, frame, g, ctx)
        argv = fill(argv, outputs)
        done = self.redirects(redirects, frame, g, ctx) if redirects else Redirected()
        env: dict[str, Value] | None = None
        if assignments:
            env = self.prefix(assignments, frame, g, ctx)
        if not argv or not argv[0].raw:  # nothing, or a command name tree-sitter made up (MISSING)
            self._write(done, frame, "")
            return g
        if argv[0].raw in _RESERVED and name_node is not None and name_node.children[0].type == "word":
            row, column = name_node.start_point
            where = f"line {row + 1}, column {column + 1}{ctx.where}"
            self.problems.append(f"could not parse near {where}: '{argv[0].raw}'")
        stdin = done.stdin or pipe or ctx.stdin
        ok = self.emit(tuple(argv), raw(node, redirects, src), frame, g, ctx, env, stdin)
        self._write(done, frame, self.output)
        if bodies:
            inner = ctx._replace(wrappers=(*ctx.wrappers, argv[0].value))
            for body in bodies:  # `time` exits with the group's status
                finished = self.stmt(body, frame, g, inner)
                ok = join(ok, finished)
        return ok

    def _write(self, done: Redirected, frame: Frame, output: Value) -> None:
        """The files a command's redirects write: its output where stdout goes, else unknown text."""
        for word, append, stdout in done.writes:
            path = resolve_path(word, frame.cwd, frame.env) if word.value not in _DEVICES else None
            if path is not None:
                frame.write(path, output if stdout else UNKNOWN, append=append)

    def run_subs(self, subs: list[Sub], frame: Frame, g: G, ctx: Ctx, via: str = "") -> Outputs:
        """Walk substitutions, each in a subshell; `$((x = 1))` assigns in this shell. Returns what
        rein can tell of each `$( )` and `<( )` output, by its text."""
        outputs: Outputs = {}
        for kind, node in subs:
            if kind == "arith":
                self.arithmetic(node, frame, g, ctx)
                for name in _control.arith_names(node, ctx.src):
                    frame.set_var(name, UNKNOWN)
                continue
            apart = frame.copy()
            if kind == "stmt":
                self.stmt(node, apart, g, ctx)
            else:
                self.output = UNKNOWN
                self.seq(node.children, apart, g, ctx._replace(via=via or kind))
                statements = [child for child in node.children if child.is_named and child.type != "comment"]
                output = self.output if len(statements) == 1 and _simple(statements[0]) else UNKNOWN
                text = node_text(node, ctx.src)
                outputs[text] = output.rstrip("\n") if isinstance(output, str) and kind != "<()" else output
            frame.absorb(apart, exact=False)
        return outputs

    def prefix(self, assignments: list[Node], frame: Frame, g: G, ctx: Ctx) -> dict[str, Value]:
        """`X=1 cmd`: the variables cmd alone sees."""
        subs: list[Sub] = []
        parsed = [_control.assignment(node, ctx.src, subs) for node in assignments]
        outputs = self.run_subs(subs, frame, g, ctx, "assignment")
        env: dict[str, Value] = {}
        for name, value, append in parsed:
            filled = fill((value,), outputs)[0] if value is not None and outputs else value
            env[name] = assigned(name, filled, append, {**frame.env, **env})
            self.assigned(name, env[name], frame, g, ctx)
        return env

    def assigned(self, name: str, value: Value, frame: Frame, g: G, ctx: Ctx) -> None:
        """What a shell runs later because of a variable: `PROMPT_COMMAND` runs as a command line
        before each prompt, and the prompts (`PS4` under `set -x`, `PS1`, ...) run their
        substitutions each time they are shown. Each may run, so each is checked now."""
        if name not in _PROMPTS or not isinstance(value, str) or not value:
            return
        if name == "PROMPT_COMMAND":
            apart = frame.copy()
            src = value.encode("utf-8", "surrogatepass")
            where = f" in the value of {name}{ctx.where}"
            self.source(apart, g, ctx._replace(src=src, via=name, depth=ctx.depth + 1, where=where))
            frame.absorb(apart, exact=False)
        else:
            self.expand_text(value, frame, g, ctx, name)

    def expand_text(self, text: str, frame: Frame, g: G, ctx: Ctx, via: str) -> None:
        """Walk what runs when bash expands `text` as it does a double-quoted string."""
        if "$(" not in text and "`" not in text:
            return
        apart = frame.copy()
        src = b': "' + as_double_quoted(text.encode("utf-8", "surrogatepass")) + b'"'
        where = f" in the value expanded by {via}{ctx.where}"
        self.source(apart, g, ctx._replace(src=src, via=via, depth=ctx.depth + 1, where=where))
        frame.absorb(apart, exact=False)

    def arithmetic(self, node: Node, frame: Frame, g: G, ctx: Ctx) -> None:
        """Bash evaluates a variable named in arithmetic as an expression in turn: one holding
        `a[$(cmd)]` runs cmd (`x='a[$(cmd)]'; (( x ))`)."""
        text = ctx.src[node.start_byte : node.end_byte].decode("utf-8", "replace")
        for name in dict.fromkeys(_NAME.findall(text)):
            value = frame.env.get(name)
            if isinstance(value, str):
                self.expand_text(value, frame, g, ctx, "arithmetic")


def _simple(node: Node) -> bool:
    """A plain command (with redirects), or a pipeline ending in one: what it prints is what rein
    reads from it."""
    if node.type == "pipeline":
        members = [child for child in node.children if child.is_named and child.type != "comment"]
        return bool(members) and _simple(members[-1])
    if node.type == "redirected_statement":
        body = node.children[0] if node.children else None
        return body is not None and body.type == "command"
    return node.type == "command"


_DEVICES = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty"})
