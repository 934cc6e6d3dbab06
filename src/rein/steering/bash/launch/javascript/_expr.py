"""The values of JavaScript expressions, as far as the text says: strings, arrays and option objects.

Known: string literals (escapes decoded), templates, `+` concatenation, `[...].join(sep)`,
`"a b".split(" ")`, `String(x)`, `x.toString()`, `x.concat(...)`, constants, `os.homedir()`,
`process.env.HOME` (home), `path.join`/`path.resolve` of those, other `process.env.X` from the
environment rein knows. Anything else is a part built at run time. Numbers are their source text.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from rein.steering.bash.launch._tree import Node
from rein.steering.bash.launch.javascript._paths import dirname, join_path
from rein.steering.bash.launch.javascript._refs import Ref
from rein.steering.bash.launch.javascript._scan import arguments, last, unwrap
from rein.steering.bash.launch.javascript._scope import Names
from rein.steering.bash.launch.javascript._values import (
    UNKNOWN,
    Hole,
    Items,
    Parts,
    concat,
    decode,
    literal,
)

T = TypeVar("T")
_NAMES = frozenset({"identifier", "shorthand_property_identifier"})
"""A name read: `x`, or `{x}` in an object."""
_HOMEDIR = Ref("os", "homedir")
_PATHS = {Ref("path", "join"): False, Ref("path", "resolve"): True}
_KNOWN_CALLS: dict[Ref, Parts] = {
    _HOMEDIR: (Hole.HOME,), Ref("process", "cwd"): (Hole.CWD,), Ref("deno", "cwd"): (Hole.CWD,),
    Ref("os", "tmpdir"): ("/tmp",),
}  # fmt: skip
"""Calls whose value rein knows: the home, working and temporary directories."""
_KNOWN_MEMBERS: dict[Ref, Parts] = {Ref("process", "execPath"): ("node",), Ref("deno", "execPath"): ("deno",)}
"""The running interpreter is `node` (rein reads node's code), or `deno`."""


class Program(Names):
    """The names of a program, and the values of its expressions."""

    __slots__ = ()

    def literal(self, node: Node) -> str | None:
        return literal(self.string(node))

    def string(self, node: Node | None) -> Parts:
        """The value of `node` as text."""
        if node is None:
            return UNKNOWN
        node = unwrap(node)
        kind = node.type
        if kind == "string":
            return (decode(self.text(node)[1:-1]),)
        if kind == "template_string":
            return self.template(node, raw=False)
        if kind == "number":
            number = self.text(node)
            return (str(int(number)) if number.isdigit() else number,)
        if kind in ("true", "false", "null"):
            return (kind,)
        if kind in _NAMES:
            return self._name_value(self.text(node))
        if kind == "binary_expression":
            return self._plus(node)
        if kind == "call_expression":
            return self._call_value(node)
        if kind in ("member_expression", "subscript_expression"):
            ref = self.ref(node)
            if ref in _KNOWN_MEMBERS:
                return _KNOWN_MEMBERS[ref]
            if self._argv0(node):
                return ("node",)
            return self._element(node) if kind == "subscript_expression" else self._env(ref)
        return UNKNOWN

    def _element(self, node: Node) -> Parts:
        """`a[1]` of a known array (`process.env["X"]` is an environment variable)."""
        index = self.key(node)
        items = self.array(node.child_by_field_name("object"))
        if items is None or index is None or not index.isdigit():
            return self._env(self.ref(node))
        return items.items[int(index)] if int(index) < len(items.items) else UNKNOWN

    def _argv0(self, node: Node) -> bool:
        """`process.argv[0]`: the running interpreter."""
        if node.type != "subscript_expression" or self.key(node) != "0":
            return False
        return self.ref(node.child_by_field_name("object")) == Ref("process", "argv")

    def template(self, node: Node, raw: bool) -> Parts:
        """A template's text, each `${...}` replaced by its value; `raw` keeps escapes (`String.raw`)."""
        parts: list[Parts] = []
        start = node.start_byte + 1
        for child in node.named_children:
            if child.type == "template_substitution":
                parts.append((self._piece(start, child.start_byte, raw),))
                inner = last(child)
                parts.append(self.string(inner) if inner is not None else UNKNOWN)
                start = child.end_byte
        parts.append((self._piece(start, max(start, node.end_byte - 1), raw),))
        return concat(parts)

    def array(self, node: Node | None) -> Items | None:
        """The elements of an array value; None when `node` is not a known array."""
        if node is None:
            return None
        node = unwrap(node)
        if node.type == "array":
            items: list[Parts] = []
            open_ = False
            for child in node.named_children:
                if child.type == "spread_element":
                    inner = self.array(last(child))
                    items.extend(inner.items if inner is not None else ())
                    open_ = open_ or inner is None or inner.open
                elif child.type != "comment":
                    items.append(self.string(child))
            return Items(tuple(items), open_)
        if node.type in _NAMES:
            choice = self.fixed.get(self.text(node))
            if choice is not None and choice.nodes is not None:
                return self._collected(choice.nodes)
            return self.through(self.text(node), True, Program.array)
        if node.type == "call_expression":
            return self._split(node)
        return None

    def _collected(self, nodes: tuple[Node, ...]) -> Items:
        """The array a rest parameter collects: the arguments of one call (a spread of unknown length
        leaves it open)."""
        items: list[Parts] = []
        open_ = False
        for child in nodes:
            if child.type == "spread_element":
                inner = self.array(last(child))
                items.extend(inner.items if inner is not None else ())
                open_ = open_ or inner is None or inner.open
            else:
                items.append(self.string(child))
        return Items(tuple(items), open_)

    def is_array(self, node: Node) -> bool | None:
        """Whether an argument is an array (True), an options object or nothing (False), or unknown."""
        node = unwrap(node)
        if node.type == "array" or self.array(node) is not None:
            return True
        if node.type in ("object", "arrow_function", "function_expression", "null", "undefined"):
            return False
        if node.type in _NAMES:
            choice = self.fixed.get(self.text(node))
            if choice is not None and choice.nodes is not None:
                return True
            return self.through(self.text(node), True, Program.is_array)
        return None

    def resolve(self, name: str, mutable: bool = False) -> tuple[Program, Node] | None:
        """The initializer of the constant `name`, and the program it is in: this one, or the one an
        `eval` runs this program in; for a name read as one of its values (`fixed`), that value."""
        choice = self.fixed.get(name)
        if choice is not None:
            if choice.node is None or (mutable and not self.kept(name)):
                return None
            return self, choice.node
        if name not in self.scan.writes and isinstance(self.parent, Program):
            return self.parent.resolve(name, mutable)
        value = self.const(name, mutable)
        return (self, value) if value is not None else None

    def through(self, name: str, mutable: bool, evaluate: Callable[[Program, Node], T]) -> T | None:
        """`evaluate` of the constant `name`'s initializer, in its program; None when it is no
        constant, or in a cycle (`const a = a + 'x'`)."""
        found = self.resolve(name, mutable)
        if found is None or name in found[0]._busy:
            return None
        owner, value = found
        owner._busy.add(name)
        try:
            return evaluate(owner, value)
        finally:
            owner._busy.discard(name)

    def _name_value(self, name: str) -> Parts:
        choice = self.fixed.get(name)
        if choice is not None and choice.parts is not None:
            return choice.parts
        value = self.through(name, False, Program.string)
        return self._env(self.name_ref(name)) if value is None else value

    def _env(self, ref: Ref | None) -> Parts:
        """`process.env.NAME`: home, or the value rein knows for it."""
        if ref is None or ref.module not in ("process.env", "deno.env") or not ref.name:
            return UNKNOWN
        if ref.name in ("HOME", "PWD"):
            return (Hole.HOME,) if ref.name == "HOME" else (Hole.CWD,)
        value = self.env.get(ref.name)
        return (value,) if value is not None else UNKNOWN

    def _plus(self, node: Node) -> Parts:
        operands: list[Node] = []
        while node.type == "binary_expression":
            operator = node.child_by_field_name("operator")
            right = node.child_by_field_name("right")
            left = node.child_by_field_name("left")
            if operator is None or operator.type != "+" or right is None or left is None:
                return UNKNOWN
            operands.append(right)
            node = left
        operands.append(node)
        return concat(self.string(operand) for operand in reversed(operands))

    def _call_value(self, call: Node) -> Parts:
        target, function, args = self.callee(call)
        template = call.child_by_field_name("arguments")
        if function is None or template is None:
            return UNKNOWN
        function = unwrap(function)
        if template.type == "template_string":
            raw = self.text(function) == "String.raw"
            return self.template(template, raw=True) if raw else UNKNOWN
        if target in _KNOWN_CALLS and not args:
            return _KNOWN_CALLS[target]
        if target in _PATHS:
            return join_path([self.string(arg) for arg in args], resolve=_PATHS[target])
        if target == Ref("path", "dirname") and len(args) == 1:
            return dirname(self.string(args[0]))
        if target == Ref("deno.env", "get") and args:
            name = self.literal(args[0])
            return self._env(Ref("deno.env", name)) if name else UNKNOWN
        if (
            function.type == "identifier"
            and self.text(function) == "String"
            and "String" not in self.scan.writes
        ):
            return self.string(args[0]) if args else ("",)
        if function.type != "member_expression":
            return UNKNOWN
        key = self.key(function)
        subject = function.child_by_field_name("object")
        if key == "join":
            items = self.array(subject)
            separator = self.literal(args[0]) if args else ","
            if items is None or separator is None:
                return UNKNOWN
            joined = [
                part for index, item in enumerate(items.items) for part in ((separator,) * (index > 0), item)
            ]
            return concat([*joined, (separator, *UNKNOWN) if items.open else ()])
        if key in ("toString", "valueOf") and not args:
            return self.string(subject)
        if key == "concat":
            return concat([self.string(subject), *(self.string(arg) for arg in args)])
        return UNKNOWN

    def _split(self, call: Node) -> Items | None:
        """`"git push -f".split(" ")`, and `a.slice(1)` of a known array."""
        function = call.child_by_field_name("function")
        if function is None or function.type != "member_expression":
            return None
        if self.key(function) == "slice":
            return self._slice(function.child_by_field_name("object"), arguments(call))
        if self.key(function) != "split":
            return None
        subject_node = function.child_by_field_name("object")
        subject = self.literal(subject_node) if subject_node is not None else None
        args = arguments(call)
        separator = self.literal(args[0]) if args else None
        if subject is None or (args and separator is None):
            return None
        if separator is None:
            return Items(((subject,),))
        pieces = list(subject) if separator == "" else subject.split(separator)
        return Items(tuple((piece,) for piece in pieces))

    def _slice(self, subject: Node | None, args: tuple[Node, ...]) -> Items | None:
        items = self.array(subject)
        bounds = [self.literal(arg) for arg in args[:2]]
        if items is None or any(bound is None or not bound.isdigit() for bound in bounds):
            return None
        start = int(bounds[0] or 0) if bounds else 0
        stop = int(bounds[1] or 0) if len(bounds) > 1 else None
        open_ = items.open and (stop is None or stop > len(items.items))
        return Items(items.items[start:stop], open_)

    def _piece(self, start: int, end: int, raw: bool) -> str:
        body = self.src[start:end].decode("utf-8", "replace")
        return body if raw else decode(body)
