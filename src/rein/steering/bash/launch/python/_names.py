"""Python names: the tables of what each name in a Python program is bound to.

Bindings are collected from every scope alike (rein does no scope analysis): an import or an
assignment anywhere binds the name everywhere, which can only make a name mean more things. A
constant is a name bound exactly once in the whole program, by an assignment, so every read of it
sees that value (or fails). This module reads bindings, never values: `_python_scope` evaluates.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass

_REBINDERS = frozenset({"globals", "locals", "vars", "setattr", "delattr"})
"""Builtins that can rebind a module's names behind the assignments rein sees."""


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


def collect(trees: Iterable[Iterable[ast.AST]], env: Mapping[str, str]) -> Names:
    """The names bound in `trees` (each given as all its nodes): the program and the code it runs with
    `exec`, which binds names in the same module."""
    imports: dict[str, list[str]] = {}
    assigned: dict[str, list[ast.expr]] = {}
    count: dict[str, int] = {}
    functions: set[str] = set()
    star: list[str] = []
    rebinds = False
    for tree in trees:
        for node in tree:
            for name in _bound(node):
                count[name] = count.get(name, 0) + 1
            if isinstance(node, ast.Import):
                for alias in node.names:
                    module = alias.name if alias.asname else alias.name.split(".")[0]
                    imports.setdefault(alias.asname or module, []).append(module)
            elif isinstance(node, ast.ImportFrom):
                module = node.module if node.module and not node.level else ""
                for alias in node.names:
                    if alias.name == "*":
                        star += [module] if module else []
                        rebinds = True  # it may bind any name, even a standard module's (`os.sep`)
                    elif module:
                        imports.setdefault(alias.asname or alias.name, []).append(f"{module}.{alias.name}")
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                functions.add(node.name)
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
    )


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
    if isinstance(node.ctx, ast.Store) and isinstance(node.value, ast.Name):
        return node.value.id in ("__main__", "builtins", "__builtins__")
    return node.attr == "modules" and isinstance(node.value, ast.Name) and node.value.id == "sys"
