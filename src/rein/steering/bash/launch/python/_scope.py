"""Python expressions evaluated without running them: what a name or attribute chain refers to
(`sp.run` is `subprocess.run` after `import subprocess as sp`, `getattr(os, "system")` is
`os.system`), and what value an expression has when the program builds it from literals.

Anything else (a call rein does not model, a parameter, a name bound more than once) is a value
built at run time. Recursion is bounded, and each constant is evaluated once.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterable

from rein.steering.bash.launch.python import _values as values
from rein.steering.bash.launch.python._calls import FUNCTIONS, method
from rein.steering.bash.launch.python._names import Names
from rein.steering.bash.launch.python._values import Const, Seq, Text, Value

MODULES = frozenset({
    "os", "posix", "nt", "subprocess", "shutil", "pty", "asyncio", "commands", "pathlib", "importlib",
    "builtins", "__builtins__", "sys", "ctypes", "shlex", "platform", "timeit", "cProfile", "profile",
    "pdb", "_posixsubprocess", "operator",
})  # fmt: skip
"""Modules a program may name without importing them, as `python -c` code rein sees part of may."""
_SAME = {"posix": "os", "nt": "os", "__builtins__": "builtins"}
_BUILTINS = frozenset({
    "exec", "eval", "compile", "__import__", "getattr", "vars", "globals", "locals", "str", "chr", "list",
    "tuple", "isinstance", "issubclass",
})  # fmt: skip
_ALWAYS = frozenset({"exec", "eval", "__import__"})
IMPORTS = frozenset({"builtins.__import__", "importlib.import_module", "importlib.__import__"})
_LIBRARIES = frozenset({"ctypes.CDLL", "ctypes.PyDLL", "ctypes.cdll.LoadLibrary", "ctypes.pydll.LoadLibrary"})
LIBC = "ctypes.libc"
"""What a shared library loaded with ctypes is called: its `system` is libc's."""
_KNOWN = frozenset({
    *IMPORTS, *_LIBRARIES, "builtins.getattr", "builtins.eval", "builtins.vars", "builtins.globals",
    "builtins.locals", "builtins.isinstance", "builtins.issubclass", "sys.modules", "operator.attrgetter",
})  # fmt: skip
_DEPTH = 60
_OTHERS = 4
_TURNS = 16


class Scope:
    """Evaluates the expressions of one program, given its names."""

    __slots__ = ("_aliases", "_consts", "_known", "_names", "_star", "names", "settled")

    def __init__(self, names: Names, known: frozenset[str]) -> None:
        """`known` are the qualified names that matter (the process APIs): a name that cannot lead to
        one is kept only for a few candidates, so a name assigned many things stays cheap."""
        self.names = names
        self._known = _prefixes(known)
        self._consts: dict[str, Value] = {}
        self._aliases: dict[str, tuple[str, ...]] = {}
        # What each assigned name refers to, to a fixed point (`a = os; b = a` makes `b` `os`).
        self._names: dict[str, tuple[str, ...]] = {}
        # Modules imported with `*` through which a name may lead to a known one, and a few others.
        self._star = self._keep(names.star)
        # What each assigned name refers to, to a fixed point (`a = os; b = a` makes `b` `os`), the
        # assignments taken in both orders in turn so a chain in either order settles at once.
        self.settled = False
        assigned = list(names.assigned.items())
        for turn in range(_TURNS):
            before = dict(self._aliases)
            self._names = {}
            for name, exprs in assigned if turn % 2 == 0 else reversed(assigned):
                self._aliases[name] = self._keep(q for expr in exprs for q in self.resolve(expr))
            if self._aliases == before:
                self.settled = True
                break

    def resolve(self, node: ast.expr, depth: int = 0) -> tuple[str, ...]:
        """The qualified names `node` may refer to (`os.system`, `builtins.exec`), most likely first."""
        if depth > _DEPTH:
            return ()
        if isinstance(node, ast.Name):
            found = self._names.get(node.id)
            if found is None:
                found = self._names[node.id] = self._keep(self._name(node.id))
            return found
        if isinstance(node, ast.Attribute):
            return self._keep(_member(base, node.attr) for base in self.resolve(node.value, depth + 1))
        if isinstance(node, ast.Call):
            return self._keep(self._returned(node, depth + 1))
        if isinstance(node, ast.Subscript):
            return self._keep(self._item(node, depth + 1))
        return ()

    def _keep(self, names: Iterable[str]) -> tuple[str, ...]:
        """Distinct names, spelled canonically (`posix.system` is `os.system`): every one that may lead
        to a known name (through a module that imports another: `mylib.os.system`), and a few others."""
        useful: dict[str, None] = {}
        others: dict[str, None] = {}
        for name in names:
            head, dot, rest = name.partition(".")
            canonical = _SAME.get(head, head) + dot + rest
            known = self._useful(canonical)
            if known or len(others) < _OTHERS:
                (useful if known else others)[canonical] = None
        return (*useful, *others)

    def _useful(self, name: str) -> bool:
        parts = name.split(".")
        return any(".".join(parts[start:]) in self._known for start in range(len(parts)))

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
                return values.pure_path([left, right])
            return None
        if isinstance(node, ast.List | ast.Tuple):
            return self.sequence(node.elts, depth)
        if isinstance(node, ast.Name):
            return self._const(node.id, depth)
        if isinstance(node, ast.Call):
            return self._call(node, depth)
        if isinstance(node, ast.Subscript):
            return self._subscript(node, depth)
        return None

    def sequence(self, nodes: list[ast.expr], depth: int = 0) -> Seq:
        """The items of a list display or of a call's positional arguments, `*x` spliced in."""
        items: list[Value] = []
        open_ = False
        for node in nodes:
            if isinstance(node, ast.Starred):
                inner = self.value(node.value, depth)
                if isinstance(inner, Seq) and len(items) + len(inner.items) <= values.ITEMS:
                    items.extend(inner.items)
                open_ = open_ or not isinstance(inner, Seq) or inner.open or len(items) >= values.ITEMS
            else:
                items.append(self.value(node, depth))
        return Seq(tuple(items), open_)

    def _name(self, name: str) -> list[str]:
        found = [*self.names.imports.get(name, ()), *self._aliases.get(name, ())]
        found += [f"{module}.{name}" for module in self._star]
        found += [name] if name in MODULES else []
        # A builtin imported under its own name is the module's (`from re import compile`), but for
        # those that run code or load modules: an import in a branch that never runs would hide them.
        if name in _BUILTINS and (name in _ALWAYS or name not in self.names.imports):
            found.append(f"builtins.{name}")
        return found

    def _returned(self, call: ast.Call, depth: int) -> list[str]:
        """What a call returns, when that is a module or a function: `__import__("os")`,
        `getattr(os, "system")`, `eval("os.system")`, `ctypes.CDLL(None)`."""
        found: list[str] = []
        first = call.args[0] if call.args else None
        getter = call.func
        if isinstance(getter, ast.Call) and getter.args and call.args:  # `operator.attrgetter("system")(os)`
            attribute = self.string(getter.args[0], depth)
            if attribute and "operator.attrgetter" in self.resolve(getter.func, depth):
                found += [f"{base}.{attribute}" for base in self.resolve(call.args[0], depth)]
        for function in self.resolve(call.func, depth):
            if function in IMPORTS:
                module = self.string(first, depth)
                found += [module, module.split(".")[0]] if module else []
            elif function == "builtins.getattr" and len(call.args) >= 2 and first is not None:
                attribute = self.string(call.args[1], depth)
                found += (
                    [_member(base, attribute) for base in self.resolve(first, depth)] if attribute else []
                )
            elif function == "builtins.eval":
                code = self.string(first, depth)
                expression = _expression(code) if code else None
                found += self.resolve(expression, depth + 1) if expression else []
            elif function in _LIBRARIES:
                found.append(LIBC)
        return found

    def _item(self, node: ast.Subscript, depth: int) -> list[str]:
        """`sys.modules["os"]`, `os.__dict__["system"]`, `vars(os)["system"]`; and a generic alias,
        which calls its class (`subprocess.Popen[bytes](...)`)."""
        key = self.string(node.slice, depth)
        if key is None:
            return [] if isinstance(node.slice, ast.Constant) else list(self.resolve(node.value, depth))
        found: list[str] = []
        for base in self.namespaces(node.value, depth):
            found += (
                self._name(key)
                if base == "__main__"
                else [key]
                if base == "sys.modules"
                else [f"{base}.{key}"]
            )
        return found

    def namespaces(self, node: ast.expr, depth: int = 0) -> tuple[str, ...]:
        """The modules whose namespace `node` is (`os.__dict__`, `vars(os)`, `__builtins__`), the
        program's own (`globals()`: `__main__`), or `sys.modules`."""
        if isinstance(node, ast.Attribute) and node.attr == "__dict__":
            return self.resolve(node.value, depth + 1)
        if isinstance(node, ast.Call):
            functions = self.resolve(node.func, depth + 1)
            if "builtins.vars" in functions and node.args:
                return self.resolve(node.args[0], depth + 1)
            own = {"builtins.vars", "builtins.globals", "builtins.locals"}
            return ("__main__",) if not node.args and own & set(functions) else ()
        names = self.resolve(node, depth + 1)
        return tuple(name for name in ("sys.modules", "builtins") if name in names)

    def exports(self, module: str) -> frozenset[str]:
        """The names of the program through which it reaches a process API, when `module` is the
        program's own namespace."""
        if module != "__main__":
            return frozenset()
        names = {*self.names.imports, *self.names.assigned, *_ALWAYS, "__builtins__"}
        return frozenset(name for name in names if any(self._useful(q) for q in self._name(name)))

    def _const(self, name: str, depth: int) -> Value:
        if name in self._consts:
            return self._consts[name]
        expr = self.names.consts.get(name)
        if expr is None:
            return Text(("__main__",)) if name == "__name__" and name not in self.names.assigned else None
        self._consts[name] = None  # a cycle is a NameError at run time: nothing is known
        self._consts[name] = result = self.value(expr, depth)
        return result

    def _fstring(self, node: ast.JoinedStr, depth: int) -> Text:
        parts: list[str | None] = []
        for part in node.values:
            if isinstance(part, ast.Constant) and isinstance(part.value, str):
                parts.append(part.value)
            elif isinstance(part, ast.FormattedValue) and part.format_spec is None:
                conversion = chr(part.conversion) if part.conversion > 0 else "s"
                parts.append(values.convert(self.value(part.value, depth), conversion))
            else:
                parts.append(None)
        return values.text(*parts)

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
        sequence, index = self.value(node.value, depth), self.value(node.slice, depth)
        if isinstance(sequence, Seq) and not sequence.open and isinstance(index, Const):
            position = index.value
            if isinstance(position, int) and -len(sequence.items) <= position < len(sequence.items):
                return sequence.items[position]
        return None


@functools.cache
def _prefixes(known: frozenset[str]) -> frozenset[str]:
    """Every qualified name that leads to one of `known` or of this module's own (`os` and `os.path`
    lead to `os.path.join`)."""
    return frozenset(
        ".".join(parts[:end])
        for name in (*known, *_KNOWN, *FUNCTIONS)
        for parts in [name.split(".")]
        for end in range(1, len(parts) + 1)
    )


def _expression(code: str) -> ast.expr | None:
    try:
        return ast.parse(code.strip(), mode="eval").body
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None


def _member(base: str, attribute: str) -> str:
    if base in ("ctypes.cdll", "ctypes.pydll") and attribute != "LoadLibrary":
        return LIBC  # `ctypes.cdll.libc` loads a library
    return f"{base}.{attribute}"
