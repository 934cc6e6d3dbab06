"""Python names: the tables of what each name in a Python program is bound to.

Bindings are collected from every scope alike (rein does no scope analysis): an import or an
assignment anywhere binds the name everywhere, which can only make a name mean more things. A
constant is a name bound exactly once in the whole program, by an assignment, so every read of it
sees that value (or fails). This module reads bindings, never values: `_python_scope` evaluates.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass

_REBINDERS = frozenset({"globals", "locals", "vars", "setattr", "delattr"})
"""Builtins that can rebind a module's names behind the assignments rein sees."""
_SPELLED = 64
"""The longest string constant kept as a name the program may spell (`getattr(m, "helper")`)."""
Function = ast.FunctionDef | ast.AsyncFunctionDef


@dataclass(frozen=True, slots=True)
class Loop:
    """`for target in iterable`, in a statement or a comprehension."""

    target: ast.expr
    iterable: ast.expr


@dataclass(frozen=True, slots=True)
class Names:
    imports: Mapping[str, tuple[str, ...]]
    """What each name is imported as: `import subprocess as sp` binds `sp` to `subprocess`, `from os
    import system` binds `system` to `os.system`."""
    assigned: Mapping[str, tuple[ast.expr, ...]]
    """Every value assigned to each name: `run = subprocess.run` makes `run` an alias."""
    consts: Mapping[str, ast.expr]
    """Names bound exactly once in the program, by an assignment: they only ever hold its value."""
    functions: frozenset[str]
    """Names a `def` binds."""
    star: tuple[str, ...]
    """Modules imported with `from module import *`."""
    env: Mapping[str, str]
    """Environment variables known to hold these values."""
    bindings: Mapping[str, int]
    """How many times each name is bound (or deleted)."""
    rebinds: bool
    """Whether the program may rebind names behind the bindings rein sees."""
    loops: Mapping[str, tuple[Loop, ...]]
    """The loops that bind each name, and how many of its bindings they are (a name may be bound more
    than once in one target)."""
    looped: Mapping[str, int]
    defs: Mapping[str, tuple[Function, ...]]
    """The functions a `def` defines, by name."""
    methods: frozenset[Function]
    """The functions defined in a class body: called through attributes rein does not follow."""
    calls: Mapping[str, tuple[ast.Call, ...]]
    """The calls of each name (`f(...)`)."""
    loads: Mapping[str, int]
    """How many times each name is read, called or not."""
    spelled: frozenset[str]
    """Attribute names, imported names and short strings: how a program may name something other than
    by reading a name (`self.helper`, `getattr(m, "helper")`)."""
    modules: frozenset[str]
    """The top-level modules the program imports; `.` for a relative import."""
    contexts: frozenset[str]
    """The first parameters of invoke's and fabric's tasks (`@task def build(c)`): their context,
    whose `run` runs a command."""
    parents: Mapping[ast.AST, ast.AST]


def collect(
    trees: Iterable[tuple[Sequence[ast.AST], Mapping[ast.AST, ast.AST]]], env: Mapping[str, str]
) -> Names:
    """The names bound in `trees` (each given as all its nodes and their parents): the program and the
    code it runs with `exec`, which binds names in the same module."""
    imports: dict[str, list[str]] = {}
    assigned: dict[str, list[ast.expr]] = {}
    count: dict[str, int] = {}
    functions: set[str] = set()
    star: list[str] = []
    loops: dict[str, list[Loop]] = {}
    looped: dict[str, int] = {}
    defs: dict[str, list[Function]] = {}
    methods: set[Function] = set()
    calls: dict[str, list[ast.Call]] = {}
    loads: dict[str, int] = {}
    spelled: set[str] = set()
    contexts: set[str] = set()
    modules: set[str] = set()
    parents: dict[ast.AST, ast.AST] = {}
    rebinds = False
    for tree, tree_parents in trees:
        parents.update(tree_parents)
        for node in tree:
            for name in _bound(node):
                count[name] = count.get(name, 0) + 1
            if isinstance(node, ast.Name):
                if isinstance(node.ctx, ast.Load):
                    loads[node.id] = loads.get(node.id, 0) + 1
            elif isinstance(node, ast.Attribute):
                spelled.add(node.attr)
            elif isinstance(node, ast.Constant):
                compared = isinstance(tree_parents.get(node), ast.Compare)  # `__name__ == "__main__"`
                if isinstance(node.value, str) and len(node.value) <= _SPELLED and not compared:
                    spelled.add(node.value)
                    # The program's own module (`import_module("__main__").CMD = ...`) rebinds its names.
                    rebinds = rebinds or node.value == "__main__"
            elif isinstance(node, ast.Call):
                if isinstance(node.func, ast.Name):
                    calls.setdefault(node.func.id, []).append(node)
            elif isinstance(node, ast.For | ast.AsyncFor | ast.comprehension):
                bound = list(targets(node.target))
                for name in bound:
                    looped[name] = looped.get(name, 0) + 1
                for name in dict.fromkeys(bound):
                    loops.setdefault(name, []).append(Loop(node.target, node.iter))
            elif isinstance(node, ast.ClassDef):
                methods.update(item for item in node.body if isinstance(item, Function))
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    module = alias.name if alias.asname else alias.name.split(".")[0]
                    imports.setdefault(alias.asname or module, []).append(module)
                    spelled.update(alias.name.split("."))
                    modules.add(alias.name.split(".")[0])
                    rebinds = rebinds or alias.name == "__main__"  # `import __main__ as m; m.CMD = x`
            elif isinstance(node, ast.ImportFrom):
                module = node.module if node.module and not node.level else ""
                spelled.update(module.split("."))
                modules.add(module.split(".")[0] or ".")
                for alias in node.names:
                    spelled.add(alias.name)
                    if alias.name == "*":
                        star += [module] if module else []
                        rebinds = True  # it may bind any name, even a standard module's (`os.sep`)
                    elif module:
                        imports.setdefault(alias.asname or alias.name, []).append(f"{module}.{alias.name}")
            elif isinstance(node, Function):
                functions.add(node.name)
                defs.setdefault(node.name, []).append(node)
                if node.args.args and any(_task(decorator) for decorator in node.decorator_list):
                    contexts.add(node.args.args[0].arg)
            for name, value in _assignments(node):
                assigned.setdefault(name, []).append(value)
            rebinds = rebinds or _rebinds(node)
    consts = {
        name: values[0]
        for name, values in assigned.items()
        if len(values) == 1 and count.get(name) == 1 and not rebinds
    }
    return Names(
        imports={name: tuple(dict.fromkeys(modules)) for name, modules in imports.items()},
        assigned={name: tuple(values) for name, values in assigned.items()},
        consts=consts,
        functions=frozenset(functions),
        star=tuple(dict.fromkeys(star)),
        env=env,
        bindings=count,
        rebinds=rebinds,
        loops={name: tuple(found) for name, found in loops.items()},
        looped=looped,
        defs={name: tuple(found) for name, found in defs.items()},
        methods=frozenset(methods),
        calls={name: tuple(sorted(found, key=_position)) for name, found in calls.items()},
        loads=loads,
        spelled=frozenset(spelled),
        modules=frozenset(modules),
        contexts=frozenset(contexts)
        if any(m.startswith(("invoke", "fabric")) for m in _modules(imports))
        else frozenset(),
        parents=parents,
    )


def _position(node: ast.expr) -> tuple[int, int]:
    return node.lineno, node.col_offset


def _modules(imports: Mapping[str, list[str]]) -> Iterator[str]:
    for modules in imports.values():
        yield from modules


def _task(decorator: ast.expr) -> bool:
    """Whether a decorator is invoke's or fabric's `task` (`@task`, `@task(...)`, `@invoke.task`)."""
    node = decorator.func if isinstance(decorator, ast.Call) else decorator
    return (isinstance(node, ast.Name) and node.id == "task") or (
        isinstance(node, ast.Attribute) and node.attr == "task"
    )


def targets(target: ast.AST) -> Iterator[str]:
    """The names a loop target binds."""
    if isinstance(target, ast.Name):
        yield target.id
    elif isinstance(target, ast.Tuple | ast.List):
        for element in target.elts:
            yield from targets(element)
    elif isinstance(target, ast.Starred):
        yield from targets(target.value)


def _bound(node: ast.AST) -> Iterator[str]:
    """The names `node` binds (or deletes)."""
    if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store | ast.Del):
        yield node.id
    elif isinstance(node, ast.arg):
        yield node.arg
    elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        yield node.name
    elif isinstance(node, ast.Import | ast.ImportFrom):
        yield from (alias.asname or alias.name.split(".")[0] for alias in node.names if alias.name != "*")
    elif isinstance(node, ast.ExceptHandler | ast.MatchAs | ast.MatchStar) and node.name:
        yield node.name
    elif isinstance(node, ast.MatchMapping) and node.rest:
        yield node.rest


def _assignments(node: ast.AST) -> Iterator[tuple[str, ast.expr]]:
    """`name = value` pairs: plain, annotated and `:=` assignments to a name."""
    if isinstance(node, ast.Assign):
        yield from ((target.id, node.value) for target in node.targets if isinstance(target, ast.Name))
    elif isinstance(node, ast.AnnAssign | ast.NamedExpr) and isinstance(node.target, ast.Name) and node.value:
        yield node.target.id, node.value


def _rebinds(node: ast.AST) -> bool:
    """Whether `node` may rebind names without an assignment: `globals()[...] = ...`, a module's
    `__dict__`, `setattr(sys.modules[__name__], ...)`, `__main__.x = ...`."""
    if isinstance(node, ast.Call):
        return isinstance(node.func, ast.Name) and node.func.id in _REBINDERS
    if not isinstance(node, ast.Attribute):
        return False
    if node.attr == "__dict__":
        return not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"))
    if isinstance(node.value, ast.Name) and node.value.id == "__main__":
        return True  # `__main__.CMD = x`, `__main__.args.append(x)`
    if isinstance(node.ctx, ast.Store) and isinstance(node.value, ast.Name):
        return node.value.id in ("builtins", "__builtins__")
    return node.attr == "modules" and isinstance(node.value, ast.Name) and node.value.id == "sys"
