"""What the names and expressions of a JavaScript program stand for, as far as the text says.

A name stands for a module or a member of one (a `Ref`) when the program binds it so: `const cp =
require(...)`, `import * as cp`, `const {spawn: s} = ...`, `import {execSync as run}`,
`util.promisify(exec)`, `exec.bind(cp)`, `Reflect.get(cp, "exec")`; else for the global of that name,
if any. `Constants` (in `_consts`) says which names are constants, `Program` (in `_expr`) adds the
values. Scopes are not modelled: a name bound to a module anywhere stands for it everywhere.
"""

from __future__ import annotations

from collections.abc import Mapping

from rein.steering.bash.launch._tree import Node
from rein.steering.bash.launch.javascript._consts import Constants
from rein.steering.bash.launch.javascript._refs import GLOBALS, REQUIRE, Ref, member, module_name
from rein.steering.bash.launch.javascript._scan import (
    Scan,
    arguments,
    callee_node,
    last,
    tagged,
    unwrap,
)
from rein.steering.bash.launch.javascript._values import decode

_LOADER_KEYS = frozenset({"require", "_load", "getBuiltinModule"})


class Names(Constants):
    """The names of one program, and what they stand for."""

    __slots__ = ("_refs",)

    def __init__(
        self, scan: Scan, src: bytes, source: str, env: Mapping[str, str], parent: Constants | None
    ) -> None:
        super().__init__(scan, src, source, env, parent)
        self._refs: dict[str, Ref | None] = {}

    def name_ref(self, name: str) -> Ref | None:
        """What the name `name` stands for: the first module (member) any of its writes binds it to,
        else the global of that name (a parameter `child_process` hides the global in its function
        only, and scopes are not modelled)."""
        if name in self._refs:
            return self._refs[name]
        if name in self._busy:
            return None
        self._busy.add(name)
        writes = self.scan.writes.get(name, ())
        result = next((ref for write in writes if (ref := self._bound(write)) is not None), None)
        if result is None:
            result = self.parent.name_ref(name) if isinstance(self.parent, Names) else GLOBALS.get(name)
        self._busy.discard(name)
        self._refs[name] = result
        return result

    def ref(self, node: Node | None) -> Ref | None:
        """What the expression `node` stands for, when it is a module or a member of one."""
        if node is None:
            return None
        node = unwrap(node)
        kind = node.type
        if kind == "identifier":
            return self.name_ref(self.text(node))
        if node.id in self._nodes:
            return self._nodes[node.id]
        result = None
        if kind in ("member_expression", "subscript_expression"):
            key = self.key(node)
            result = None if key is None else member(self.ref(node.child_by_field_name("object")), key)
        elif kind == "call_expression" and tagged(node) is None:
            result = self._call_ref(node)
        self._nodes[node.id] = result
        return result

    def callee(self, call: Node) -> tuple[Ref | None, Node | None, tuple[Node, ...]]:
        """What a call calls, its callee node and its arguments, through `f.call(this, ...)`,
        `f.apply(this, [...])` and `Reflect.apply(f, this, [...])`."""
        function = callee_node(call)
        args = arguments(call)
        if function is not None and function.type == "member_expression" and tagged(call) is None:
            key = self.key(function)
            inner = function.child_by_field_name("object")
            if key == "apply" and self.reflect(inner) and args:
                inner, args = args[0], args[1:]
                key = "apply"
            target = self.ref(inner) if key in ("call", "apply") else None
            if inner is not None and target is not None and target.name:
                if key == "call":
                    return target, inner, args[1:]
                spread = unwrap(args[1]) if len(args) > 1 else None
                if spread is not None and spread.type == "array":
                    return target, inner, tuple(c for c in spread.named_children if c.type != "comment")
                return target, inner, args[1:2]  # an argument list built at run time: read as unknown
        return self.ref(function), function, args

    def reflect(self, node: Node | None) -> bool:
        """Whether `node` is the global `Reflect`."""
        return (
            node is not None
            and node.type == "identifier"
            and self.text(node) == "Reflect"
            and ("Reflect" not in self.scan.writes)
        )

    def loads(self, target: Ref | None, function: Node | None) -> bool:
        """Whether a call with this callee loads a module by name: `require`, `import()`,
        `module.require`, `process.mainModule.require`, `createRequire(...)`, `Module._load`,
        `process.getBuiltinModule`."""
        if target in (REQUIRE, Ref("module", "require")):
            return True
        if function is None:
            return False
        function = unwrap(function)
        if function.type == "import":
            return True
        kind = function.type
        return kind in ("member_expression", "subscript_expression") and self.key(function) in _LOADER_KEYS

    def key(self, node: Node) -> str | None:
        """The property name of `a.b`, `a["b"]`, or a destructuring `{b: x}`; None when built at run time."""
        if node.type == "member_expression":
            prop = node.child_by_field_name("property")
            return self.text(prop) if prop is not None else None
        field = "index" if node.type == "subscript_expression" else "key"
        index = node.child_by_field_name(field)
        if index is None:
            return None
        if index.type in ("property_identifier", "identifier") and field == "key":
            return self.text(index)
        if index.type == "computed_property_name":
            index = last(index)
        return self.literal(index) if index is not None else None

    def _call_ref(self, call: Node) -> Ref | None:
        target, function, args = self.callee(call)
        if self.loads(target, function) and args:
            spec = self.literal(args[0])
            return Ref(module_name(spec)) if spec is not None else None
        if function is None or (not args and function.type != "member_expression"):
            return None
        function = unwrap(function)
        name = self.text(function) if function.type == "identifier" else None
        key = self.key(function) if function.type == "member_expression" else name
        if key == "createRequire":  # `createRequire(import.meta.url)` is a `require`
            return REQUIRE
        if key == "promisify" and args:  # util.promisify(exec) runs exec
            inner = self.ref(args[0])
            return inner if inner is not None and inner.name else None
        if key == "bind" and function.type == "member_expression":
            inner = self.ref(function.child_by_field_name("object"))
            return inner if inner is not None and inner.name else None
        if key == "get" and len(args) > 1 and self.reflect(function.child_by_field_name("object")):
            name = self.literal(args[1])  # `Reflect.get(cp, "execSync")` is `cp.execSync`
            return member(self.ref(args[0]), name) if name is not None else None
        return None

    def _bound(self, write: Node) -> Ref | None:
        """What a write of a name binds it to."""
        parent = write.parent
        if parent is None:
            return None
        kind = parent.type
        if kind == "variable_declarator":
            return self.ref(parent.child_by_field_name("value"))
        if kind == "assignment_expression":
            return self.ref(parent.child_by_field_name("right"))
        if kind in ("import_clause", "namespace_import", "import_specifier"):
            module = _import_source(self, parent)
            if module is None:
                return None
            if kind != "import_specifier":
                return Ref(module)
            imported = parent.child_by_field_name("name")
            return member(Ref(module), self.text(imported)) if imported is not None else None
        if kind in ("object_assignment_pattern", "assignment_pattern"):  # `{exec = fallback}`
            write, parent = parent, parent.parent
            if parent is None:
                return None
        if parent.type == "object_pattern":
            if write.type == "rest_pattern":  # `{...rest}`: the rest of the module
                return self._pattern_source(parent)
            return member(self._pattern_source(parent), self.text(write))
        if parent.type == "pair_pattern":
            key = self.key(parent)
            return member(self._pattern_source(parent.parent), key) if key is not None else None
        if (
            parent.type == "rest_pattern"
            and parent.parent is not None
            and parent.parent.type == "object_pattern"
        ):
            return self._pattern_source(parent.parent)
        return None

    def _pattern_source(self, pattern: Node | None) -> Ref | None:
        """What a destructuring pattern takes apart."""
        parent = pattern.parent if pattern is not None else None
        if pattern is None or parent is None:
            return None
        if parent.type == "variable_declarator" and parent.child_by_field_name("name") == pattern:
            return self.ref(parent.child_by_field_name("value"))
        if parent.type == "assignment_expression" and parent.child_by_field_name("left") == pattern:
            return self.ref(parent.child_by_field_name("right"))
        if parent.type == "pair_pattern":
            key = self.key(parent)
            return member(self._pattern_source(parent.parent), key) if key is not None else None
        return None


def _import_source(names: Names, node: Node) -> str | None:
    statement: Node | None = node
    while statement is not None and statement.type != "import_statement":
        statement = statement.parent
    source = statement.child_by_field_name("source") if statement is not None else None
    return module_name(decode(names.text(source)[1:-1])) if source is not None else None
