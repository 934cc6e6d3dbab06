"""Which names of a JavaScript program are constants, as far as the text says.

A name is a constant when it is declared once, with a value, and never written again; an array or
object constant only when every read of it leaves it as it is (`a.join(" ")`, `spawn(cmd, a)`; not
`a.push(x)`, `f(a)`) and no code runs from a string. Scopes are not modelled: a name written twice
anywhere is not a constant. A name may also be read, for a while, as one of several values it takes
(a loop's variable, see `_loops`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass

from rein.steering.bash.launch._tree import Node, text
from rein.steering.bash.launch.javascript._refs import Ref
from rein.steering.bash.launch.javascript._scan import IDENTIFIERS, Scan, callee_node
from rein.steering.bash.launch.javascript._values import Parts, decode

_KEEPING = frozenset({
    "", "child_process", "fs", "fs/promises", "fs-extra", "bun", "deno", "execa", "cross-spawn", "shelljs",
    "zx", "os", "path", "util", "vm", "worker_threads", "process",
})  # fmt: skip
"""Modules whose functions leave the arrays and objects passed to them as they are."""
_READ_ONLY = frozenset({
    "join", "slice", "concat", "map", "filter", "forEach", "includes", "indexOf", "length", "toString", "at",
    "some", "every", "find", "flat", "reduce",
})  # fmt: skip
_WRITES = frozenset({"assignment_expression", "augmented_assignment_expression"})
_DYNAMIC = re.compile(
    r"\b(?:eval|Function|constructor|runIn\w*Context|compileFunction|Script|set(?:Timeout|Interval)|Worker)\b"
)
"""Code run from a string may write any name the program declares."""
_GLOBAL_NAMES = re.compile(
    r"\b(?:this|globalThis|global|window|self|frames|top|parent|Reflect|defineProperty)\b"
)
"""The global object: through it a program writes a top-level `var`, or a global a block hides."""


@dataclass(frozen=True, slots=True)
class Choice:
    """One of the values a name takes (see `_loops`): an expression of this program, the arguments a
    rest parameter collects, or a value computed outright."""

    node: Node | None = None
    nodes: tuple[Node, ...] | None = None
    parts: Parts | None = None
    site: tuple[int, int] | None = None
    """The helper and the call of it this value comes from: its parameters take one call's values."""


class Constants:
    """The constants of one program (and of the program an `eval` string is read in, its parent)."""

    __slots__ = (
        "_busy",
        "_dynamic",
        "_let",
        "_nodes",
        "_top_only",
        "_var",
        "env",
        "fixed",
        "global_object",
        "parent",
        "scan",
        "src",
    )
    # `_busy`: names being resolved; a cycle (`const a = a + 'x'`) resolves to nothing.

    def __init__(
        self, scan: Scan, src: bytes, source: str, env: Mapping[str, str], parent: Constants | None
    ) -> None:
        self.scan = scan
        self.src = src
        self.env = env
        self.parent = parent
        dynamic = _DYNAMIC.search(source) is not None
        global_object = _GLOBAL_NAMES.search(source) is not None
        self._dynamic = dynamic
        self._let = not dynamic
        self._var = not dynamic and not global_object
        self._top_only = dynamic or global_object
        self.global_object = global_object
        """The program names the global object, through which it may reach any global by a computed name."""
        self._nodes: dict[int, Ref | None] = {}
        self._busy: set[str] = set()
        self.fixed: dict[str, Choice] = {}
        """Names read, for now, as one of the values they take (a loop's variable): see `_loops`."""

    @property
    def dynamic(self) -> bool:
        """Code run from a string may read or write any name."""
        return self._dynamic

    @property
    def lets(self) -> bool:
        """A `let` written once stays as written: no code run from a string can write it."""
        return self._let

    @property
    def vars(self) -> bool:
        """A `var` written once stays as written: nothing writes it through the global object either."""
        return self._var

    @contextmanager
    def fixing(self, values: dict[str, Choice]) -> Iterator[None]:
        """Read the names in `values` as those values (what a node stands for may change with them)."""
        saved = self._nodes, self.fixed
        self._nodes, self.fixed = {}, values
        try:
            yield
        finally:
            self._nodes, self.fixed = saved

    def text(self, node: Node) -> str:
        """The source text of `node`; a name's escapes decoded (`\\u0065val` is `eval`)."""
        raw = text(node, self.src)
        return decode(raw) if "\\" in raw and node.type in IDENTIFIERS else raw

    def literal(self, node: Node) -> str | None:
        """The value of `node` when it is a known string (the subclass `Program` reads values)."""
        raise NotImplementedError

    def ref(self, node: Node | None) -> Ref | None:
        """What `node` stands for, a module or a member of one (the subclass `Names` reads that)."""
        raise NotImplementedError

    def key(self, node: Node) -> str | None:
        """The property name of a member access (the subclass `Names` reads that)."""
        raise NotImplementedError

    def const(self, name: str, mutable: bool = False) -> Node | None:
        """The initializer of `name` when it is a constant of this program; `mutable` for a value that
        can be changed in place (an array, an object), which every read must leave as it is, and which
        no code run from a string may reach."""
        writes = self.scan.writes.get(name)
        if writes is None or self.scan.has_with or len(writes) != 1:
            return None
        declarator = writes[0].parent
        if declarator is None or declarator.type != "variable_declarator":
            return None
        if declarator.child_by_field_name("name") != writes[0]:
            return None
        declaration = declarator.parent
        keyword = declaration.children[0].type if declaration is not None and declaration.children else ""
        top = (
            declaration is not None
            and declaration.parent is not None
            and declaration.parent.type == "program"
        )
        if (keyword == "let" and not self._let) or (keyword == "var" and not self._var):
            return None
        if (self._top_only and not top) or keyword not in ("const", "let", "var"):
            return None
        if mutable and not self.kept(name):
            return None
        return declarator.child_by_field_name("value")

    def kept(self, name: str) -> bool:
        """Whether an array or object `name` holds stays as it is: every read leaves it so, and no code
        run from a string may reach it."""
        return not self._dynamic and all(self._kept(read) for read in self.scan.reads.get(name, ()))

    def _kept(self, read: Node) -> bool:
        """Whether a read of an array or object leaves it as it is: a spread, a read-only method, an
        argument of a built-in or process API (none changes its arguments)."""
        node, parent = read, read.parent
        while parent is not None and parent.type in ("parenthesized_expression", "pair", "object"):
            if parent.type == "pair" and parent.child_by_field_name("value") != node:
                return False
            node, parent = parent, parent.parent  # `{args: a}`, `{args}`: as the object is kept
        if parent is None:
            return False
        if parent.type in ("spread_element", "template_substitution"):
            return True
        if parent.type == "for_in_statement":
            return parent.child_by_field_name("right") == node  # `for (const x of a)` reads `a`
        if parent.type == "arguments":
            call = parent.parent
            callee = callee_node(call) if call is not None else None
            target = self.ref(callee) if callee is not None else None
            return target is not None and target.module in _KEEPING
        if parent.type in ("member_expression", "subscript_expression") and node.type != "object":
            outer = parent.parent
            assigned = (
                outer is not None and outer.type in _WRITES and outer.child_by_field_name("left") == parent
            )
            key = self.key(parent)
            element = parent.type == "subscript_expression" and key is not None and key.isdigit()
            if element and outer is not None and outer.type in ("member_expression", "subscript_expression"):
                return False  # `a[0].push(x)` changes an element
            return (
                parent.child_by_field_name("object") == node
                and (key in _READ_ONLY or element)
                and not assigned
            )
        return False
