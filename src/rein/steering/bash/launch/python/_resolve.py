"""What a Python name or attribute chain refers to, without running the program: `sp.run` is
`subprocess.run` after `import subprocess as sp`, `getattr(os, "system")` and
`os.__getattribute__("system")` are `os.system`, `ctypes.cdll["libc.so.6"].system` is the C library's.

`Resolver` is `Scope`'s half that follows names; the values it needs (`__import__(name)`) are the
other half's. Recursion is bounded, and what each name refers to is found once.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterable

from rein.steering.bash.launch.python._calls import ATTRIBUTES, FUNCTIONS
from rein.steering.bash.launch.python._names import Names
from rein.steering.bash.launch.python._values import Value

MODULES = frozenset({
    "os", "posix", "nt", "subprocess", "shutil", "pty", "asyncio", "commands", "pathlib", "importlib",
    "builtins", "__builtins__", "sys", "ctypes", "shlex", "platform", "timeit", "cProfile", "profile",
    "pdb", "_posixsubprocess", "operator",
})  # fmt: skip
"""Modules a program may name without importing them, as `python -c` code rein sees part of may."""
_SAME = {"posix": "os", "nt": "os", "__builtins__": "builtins"}
_BUILTINS = frozenset({
    "exec", "eval", "compile", "__import__", "getattr", "vars", "globals", "locals", "str", "chr", "list",
    "tuple", "isinstance", "issubclass", "set", "frozenset", "sorted", "reversed", "enumerate", "zip",
    "range", "help", "callable", "print", "repr", "id", "hash", "dir", "type", "map",
})  # fmt: skip
_ALWAYS = frozenset({"exec", "eval", "__import__"})
IMPORTS = frozenset({"builtins.__import__", "importlib.import_module", "importlib.__import__"})
_LIBRARIES = frozenset({"ctypes.CDLL", "ctypes.PyDLL", "ctypes.cdll.LoadLibrary", "ctypes.pydll.LoadLibrary"})
_LOADERS = frozenset({"ctypes.cdll", "ctypes.pydll"})
LIBC = "ctypes.libc"
"""What a shared library loaded with ctypes is called: its `system` is libc's."""
INSTANCES = frozenset({
    "code.InteractiveInterpreter", "code.InteractiveConsole", "pipes.Template", "fabric.Connection",
    "fabric.connection.Connection", "invoke.Context", "invoke.context.Context",
})  # fmt: skip
"""Classes whose instances' methods run commands or code: an instance is called by its class's name."""
_LOCATORS = frozenset({"pydoc.locate", "pkgutil.resolve_name"})
"""Functions that return what a dotted name they are given names (`pydoc.locate("os.system")`)."""
_GETTERS = frozenset({"__getattribute__", "__getattr__"})
WILD = ("sh.", "plumbum.")
"""Modules whose every attribute is a command (`sh.git`, `plumbum.cmd.git`)."""
_KNOWN = frozenset({
    *IMPORTS, *_LIBRARIES, *INSTANCES, *_LOCATORS, *ATTRIBUTES, "builtins.getattr", "builtins.eval",
    "builtins.vars", "builtins.globals", "builtins.locals", "builtins.isinstance", "builtins.issubclass",
    "sys.modules", "operator.attrgetter", "operator.methodcaller", "inspect.getmembers",
    "inspect.getmembers_static", "ctypes.pythonapi", "builtins.map",
})  # fmt: skip
_DEPTH = 60
_OTHERS = 4
_TURNS = 16


class Resolver:
    """Follows the names of one program, given its names."""

    def __init__(self, names: Names, known: frozenset[str]) -> None:
        """`known` are the qualified names that matter (the process APIs): a name that cannot lead to
        one is kept only for a few candidates, so a name assigned many things stays cheap."""
        self.names = names
        self._known = _prefixes(known)
        self._aliases: dict[str, tuple[str, ...]] = {}
        self._names: dict[str, tuple[str, ...]] = {}
        self._star: tuple[str, ...] = ()
        self._reads = 0
        """How many times a name with several values was read: what reads one is not cached."""
        self._variant: set[str] = set()
        """Aliases whose value reads a name with several values (`m = __import__(name)` in a loop over
        module names): resolved again in each binding."""
        self._resolving: set[str] = set()
        self.settled = False

    def _settle(self) -> None:
        """What each assigned name refers to, to a fixed point (`a = os; b = a` makes `b` `os`), the
        assignments taken in both orders in turn so a chain in either order settles at once."""
        # Modules imported with `*` through which a name may lead to a known one, and a few others.
        self._star = self._keep(self.names.star)
        assigned = list(self.names.assigned.items())
        for turn in range(_TURNS):
            before = dict(self._aliases)
            self._names = {}
            for name, exprs in assigned if turn % 2 == 0 else reversed(assigned):
                reads = self._reads
                self._aliases[name] = self._keep(q for expr in exprs for q in self.resolve(expr))
                if self._reads != reads:
                    self._variant.add(name)
            if self._aliases == before:
                self.settled = True
                break

    def value(self, node: ast.expr, depth: int = 0) -> Value:
        raise NotImplementedError

    def string(self, node: ast.expr | None, depth: int = 0) -> str | None:
        raise NotImplementedError

    def resolve(self, node: ast.expr, depth: int = 0) -> tuple[str, ...]:
        """The qualified names `node` may refer to (`os.system`, `builtins.exec`), most likely first."""
        if depth > _DEPTH:
            return ()
        if isinstance(node, ast.Name):
            if node.id in self._variant and node.id not in self._resolving:
                return self._rebound(node.id, depth)
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

    def _rebound(self, name: str, depth: int) -> tuple[str, ...]:
        """What a variant alias refers to in the binding evaluated now."""
        self._reads += 1
        self._resolving.add(name)
        try:
            exprs = self.names.assigned.get(name, ())
            return self._keep([*self._name(name), *(q for e in exprs for q in self.resolve(e, depth + 1))])
        finally:
            self._resolving.discard(name)

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
        if name.startswith(WILD):
            return True
        parts = name.split(".")
        return any(".".join(parts[start:]) in self._known for start in range(len(parts)))

    def _name(self, name: str) -> list[str]:
        found = [*self.names.imports.get(name, ()), *self._aliases.get(name, ())]
        found += [f"{module}.{name}" for module in self._star]
        found += [name] if name in MODULES else []
        # A builtin imported under its own name is the module's (`from re import compile`), but for
        # those that run code or load modules: an import in a branch that never runs would hide them.
        if name in _BUILTINS and (name in _ALWAYS or name not in self.names.imports):
            found.append(f"builtins.{name}")
        found += ["invoke.Context"] if name in self.names.contexts else []
        return found

    def _returned(self, call: ast.Call, depth: int) -> list[str]:
        """What a call returns, when that is a module, a function or an instance rein follows:
        `__import__("os")`, `getattr(os, "system")`, `os.__getattribute__("system")`,
        `eval("os.system")`, `ctypes.CDLL(None)`, `code.InteractiveConsole()`."""
        found: list[str] = []
        first = call.args[0] if call.args else None
        getter = call.func
        if isinstance(getter, ast.Call) and getter.args and call.args:  # `operator.attrgetter("system")(os)`
            attribute = self.string(getter.args[0], depth)
            if attribute and "operator.attrgetter" in self.resolve(getter.func, depth):
                found += [f"{base}.{attribute}" for base in self.resolve(call.args[0], depth)]
        if isinstance(getter, ast.Attribute) and getter.attr in _GETTERS and call.args:
            # `os.__getattribute__("system")`, `type(os).__getattribute__(os, "system")`
            attribute = self.string(call.args[-1], depth)
            owner = call.args[0] if len(call.args) > 1 else getter.value
            found += [_member(base, attribute) for base in self.resolve(owner, depth)] if attribute else []
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
            elif function in INSTANCES:
                found.append(function)
            elif function in _LOCATORS:
                located = self.string(first, depth)
                found += [located.replace(":", ".")] if located else []
        return found

    def _item(self, node: ast.Subscript, depth: int) -> list[str]:
        """`sys.modules["os"]`, `os.__dict__["system"]`, `vars(os)["system"]`, `(os.system,)[0]`,
        `ctypes.cdll["libc.so.6"]`; and a generic alias, which calls its class
        (`subprocess.Popen[bytes](...)`)."""
        if isinstance(node.value, ast.Tuple | ast.List) and isinstance(node.slice, ast.Constant):
            index = node.slice.value
            elements = node.value.elts
            if (
                isinstance(index, int)
                and not isinstance(index, bool)
                and -len(elements) <= index < len(elements)
            ):
                return list(self.resolve(elements[index], depth))
            return []
        bases = self.resolve(node.value, depth)
        if any(base in _LOADERS for base in bases):
            return [LIBC]  # `ctypes.cdll["libc.so.6"]` loads a library
        key = self.string(node.slice, depth)
        if key is None:
            return [] if isinstance(node.slice, ast.Constant) else list(bases)
        found: list[str] = [f"{LIBC}.{key}" for base in bases if base == LIBC][:1]
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
    if base in _LOADERS and attribute != "LoadLibrary":
        return LIBC  # `ctypes.cdll.libc` loads a library
    if base == "ctypes.pythonapi":
        return f"{LIBC}.{attribute}"  # the interpreter's own C functions (`PyRun_SimpleString`)
    return f"{base}.{attribute}"
