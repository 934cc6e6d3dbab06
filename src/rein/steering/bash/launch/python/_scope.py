"""Python expressions evaluated without running them: what value an expression has when the program
builds it from literals (what a name refers to is `_resolve`'s).

A name a loop or a helper function's calls bind to several values takes each in turn: `outcomes`
evaluates once per way of binding the names an evaluation reads (`_choices` finds their values).
Anything else (a call rein does not model, a name bound more than once, a list the program mutates)
is a value built at run time. Recursion is bounded, and each constant is evaluated once.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import TypeVar

from rein.steering.bash.launch.python import _choices as choices
from rein.steering.bash.launch.python import _paths as paths
from rein.steering.bash.launch.python import _values as values
from rein.steering.bash.launch.python._calls import ATTRIBUTES, FUNCTIONS, attribute, method
from rein.steering.bash.launch.python._flow import Flow, parameters
from rein.steering.bash.launch.python._mutation import mutated
from rein.steering.bash.launch.python._names import Function, Names
from rein.steering.bash.launch.python._resolve import MODULES, Resolver
from rein.steering.bash.launch.python._values import Const, Dict, Glob, Home, Seq, Text, Value

__all__ = ["MODULES", "Scope"]

T = TypeVar("T")
_DEPTH = 60
_LEAVES = 256
"""The most ways of binding the names one evaluation reads: past them, they are built at run time."""
Binding = dict[str, Value]


class Scope(Resolver):
    """Evaluates the expressions of one program, given its names."""

    def __init__(self, names: Names, known: frozenset[str]) -> None:
        super().__init__(names, known)
        self.flow = Flow.of(names)
        self.mutated, self.appended = mutated(names, self.flow, known)
        self._consts: dict[str, Value] = {}  # constants whose value reads no name with several values
        self._local: dict[str, Value] = {}  # the others, for the binding evaluated now
        self._binding: Binding = {}
        self._needed: str | None = None
        self._recording = False
        self._options: dict[str, list[Binding] | None] = {}
        self._keys: dict[ast.Name, str] = {}
        self._owners: dict[str, Function | ast.Lambda] = {}
        self._settle()

    def outcomes(self, evaluate: Callable[[], T]) -> list[T]:
        """`evaluate()` once for each way of binding the names it reads that take several values (a
        loop's variable, a helper's parameter); once, with them built at run time, past `_LEAVES`."""
        saved = (self._binding, self._local, self._needed, self._recording)
        try:
            results: list[T] = []
            pending: list[Binding] = [{}]
            leaves = 0
            while pending:
                binding = pending.pop()
                self._enter(binding, recording=True)
                result = evaluate()
                needed = self._needed
                if needed is None:
                    results.append(result)
                    continue
                options = self._alternatives(needed)
                options = [{needed: None}] if options is None else options
                leaves += len(options)
                if leaves > _LEAVES:
                    self._enter({}, recording=False)
                    return [evaluate()]
                pending.extend({**binding, **option} for option in reversed(options))
            return results
        finally:
            self._binding, self._local, self._needed, self._recording = saved

    def _enter(self, binding: Binding, recording: bool) -> None:
        """Evaluate in `binding` next; `recording` which name with several values it reads unbound."""
        self._binding, self._local, self._needed, self._recording = binding, {}, None, recording

    def _alternatives(self, name: str) -> list[Binding] | None:
        """The bindings `name` takes, found once; None when rein cannot list them (or while listing
        them needs them: a recursive helper)."""
        if name not in self._options:
            self._options[name] = None
            self._options[name] = choices.alternatives(self, name)
        found = self._options[name]
        return None if found is None else [dict(option) for option in found]

    def string(self, node: ast.expr | None, depth: int = 0) -> str | None:
        """The string `node` evaluates to, when it is fully known."""
        value = None if node is None else self.value(node, depth)
        return value.known if isinstance(value, Text) else None

    def value(self, node: ast.expr, depth: int = 0) -> Value:
        """What `node` evaluates to; None when it is built at run time."""
        if depth > _DEPTH:
            return None
        depth += 1
        if isinstance(node, ast.Constant):
            return values.constant(node.value)
        if isinstance(node, ast.JoinedStr):
            return self._fstring(node, depth)
        if isinstance(node, ast.BinOp):
            left, right = self.value(node.left, depth), self.value(node.right, depth)
            if isinstance(node.op, ast.Add):
                return values.concat(left, right)
            if isinstance(node.op, ast.Mod) and isinstance(left, Text):
                return values.percent(left, right)
            if isinstance(node.op, ast.Div):  # pathlib's `/`
                return paths.pure_path([left, right])
            return None
        if isinstance(node, ast.List | ast.Tuple | ast.Set):
            return self.sequence(node.elts, depth)
        if isinstance(node, ast.Dict):
            return self._dict(node, depth)
        if isinstance(node, ast.Name):
            return self._const(node, depth)
        if isinstance(node, ast.Attribute):
            return self._attribute(node, depth)
        if isinstance(node, ast.Call):
            return self._call(node, depth)
        if isinstance(node, ast.Subscript):
            return self._subscript(node, depth)
        return None

    def sequence(self, nodes: list[ast.expr], depth: int = 0) -> Seq:
        """The items of a list display or of a call's positional arguments, `*x` spliced in; after a
        part of unknown length, only that more items may follow is kept."""
        items: list[Value] = []
        for node in nodes:
            if isinstance(node, ast.Starred):
                inner = self.value(node.value, depth)
                if not isinstance(inner, Seq) or len(items) + len(inner.items) > values.ITEMS:
                    return Seq(tuple(items), True)
                items.extend(inner.items)
                if inner.open:
                    return Seq(tuple(items), True)
            else:
                items.append(self.value(node, depth))
        return Seq(tuple(items))

    def _dict(self, node: ast.Dict, depth: int) -> Value:
        if any(key is None for key in node.keys) or len(node.keys) > values.ITEMS:
            return None  # `{**other}`
        return Dict(
            tuple(
                (self.value(key, depth), self.value(item, depth))
                for key, item in zip(node.keys, node.values, strict=True)
                if key is not None
            )
        )

    def _const(self, node: ast.Name, depth: int) -> Value:
        name = node.id
        if name in self.flow.choices:
            return self._choice(self.key(node), name)
        if name in self._consts:
            return self._consts[name]
        if name in self._local:
            self._reads += 1  # it read a name with several values, or is being evaluated
            return self._local[name]
        expr = self.names.consts.get(name)
        if expr is None:
            if name == "__name__" and name not in self.names.assigned:
                return Text(("__main__",))
            known = next((ATTRIBUTES[q] for q in self.resolve(node, depth) if q in ATTRIBUTES), None)
            return None if known is None else known(self.names.env)  # `from sys import executable`
        reads = self._reads
        self._local[name] = None  # a cycle is a NameError at run time: nothing is known
        result = self.value(expr, depth)
        result = self._kept(name, result)
        del self._local[name]
        (self._consts if self._reads == reads else self._local)[name] = result
        return result

    def _choice(self, key: str, name: str) -> Value:
        """A name with several values: its value in the binding evaluated now."""
        self._reads += 1
        if key in self._binding:
            return self._kept(name, self._binding[key])
        if self._recording and self._needed is None:
            self._needed = key
        return None

    def _kept(self, name: str, value: Value) -> Value:
        """What is left of `value` when the program changes it in place: nothing of a list changed
        (`c[2] = "--force"`), the items of one appended to (`c.append("-f")`) with more after them."""
        if name in self.mutated and isinstance(value, Seq | Dict):
            return None
        if name in self.appended and isinstance(value, Seq | Dict):
            return Seq(value.items, True) if isinstance(value, Seq) else None
        return value

    def key(self, node: ast.Name) -> str:
        """What binds a name read at `node`: a helper's parameter, read in the helper (`c@<helper>`),
        or the name (bound by loops, all alike)."""
        name = node.id
        if name not in self.flow.scoped:
            return name
        found = self._keys.get(node)
        if found is None:
            found = self._keys[node] = self._enclosing(node)
        return found

    def _enclosing(self, node: ast.Name) -> str:
        child: ast.AST = node
        parent = self.names.parents.get(node)
        while parent is not None:
            if isinstance(parent, Function | ast.Lambda) and node.id in parameters(parent.args):
                body = parent.body if isinstance(parent.body, list) else [parent.body]
                if any(child is statement for statement in body):  # not its defaults or decorators
                    return self.parameter(node.id, parent)
            child, parent = parent, self.names.parents.get(parent)
        return node.id

    def parameter(self, name: str, function: Function | ast.Lambda) -> str:
        """The key of a helper's parameter."""
        if name not in self.flow.scoped:
            return name
        key = f"{name}@{id(function)}"
        self._owners[key] = function
        return key

    def owner(self, key: str) -> Function | ast.Lambda | None:
        """The helper whose parameter `key` is."""
        return self._owners.get(key)

    def _attribute(self, node: ast.Attribute, depth: int) -> Value:
        for name in self.resolve(node, depth):
            known = ATTRIBUTES.get(name)
            if known is not None:
                return known(self.names.env)
        return attribute(self.value(node.value, depth), node.attr)

    def _fstring(self, node: ast.JoinedStr, depth: int) -> Value:
        """An f-string, its parts joined as `+` joins them: a glob or the home directory in it stays
        one (`f"/{name}"` over `os.listdir("/")` is every entry of `/`)."""
        out: Value = Text(("",))
        for part in node.values:
            piece: Value = values.RUNTIME_TEXT
            if isinstance(part, ast.Constant) and isinstance(part.value, str):
                piece = Text((part.value,))
            elif isinstance(part, ast.FormattedValue) and part.format_spec is None:
                conversion = chr(part.conversion) if part.conversion > 0 else "s"
                value = self.value(part.value, depth)
                plain = conversion == "s" and isinstance(value, Home | Glob)
                piece = value if plain else values.text(values.convert(value, conversion))
            out = values.concat(out, piece)
        return out if isinstance(out, Text | Home | Glob) else values.RUNTIME_TEXT

    def _call(self, call: ast.Call, depth: int) -> Value:
        func = call.func
        if any(isinstance(arg, ast.Starred) for arg in call.args):
            return None
        arguments = [self.value(arg, depth) for arg in call.args]
        if isinstance(func, ast.Attribute):
            receiver = self.value(func.value, depth)
            if receiver is not None:
                return method(receiver, func.attr, arguments, self._keywords(call, depth))
        for function in self.resolve(func, depth):
            modelled = FUNCTIONS.get(function)
            if modelled is not None:
                return modelled(arguments, self.names.env)
        return None

    def _keywords(self, call: ast.Call, depth: int) -> dict[str, Value]:
        return {kw.arg: self.value(kw.value, depth) for kw in call.keywords if kw.arg}

    def _subscript(self, node: ast.Subscript, depth: int) -> Value:
        if "os.environ" in self.resolve(node.value, depth):
            return values.environ(self.value(node.slice, depth), self.names.env)
        container, index = node.value, self.value(node.slice, depth)
        if isinstance(container, ast.Attribute) and container.attr == "parents" and isinstance(index, Const):
            levels = index.value  # `Path(p).parents[1]`
            if isinstance(levels, int) and not isinstance(levels, bool) and 0 <= levels < 64:
                return paths.parent(self.value(container.value, depth), levels + 1)
            return None
        sequence = self.value(container, depth)
        if isinstance(sequence, Dict):
            return sequence.get(index)
        if isinstance(sequence, Seq) and isinstance(index, Const):
            position = index.value
            within = isinstance(position, int) and -len(sequence.items) <= position < len(sequence.items)
            if within and isinstance(position, int) and (position >= 0 or not sequence.open):
                return sequence.items[position]
        return None
