"""Python's dynamic ways to reach a process API that rein cannot follow: a module imported by a name
built at run time (`__import__(name)`), an attribute of a process module looked up by such a name
(`getattr(os, name)`, `vars(os)[name]`, `os.__dict__[name]`), and a process API passed around as a
value (`Thread(target=os.system, ...)`). Each is an unknown launch.

A name whose known beginning cannot reach a process API is no launch: `import_module("plugins." + x)`
loads no process module, `getattr(os, "O_" + flag)` no process function. A removal function used as a
value is none either (`atexit.register(shutil.rmtree, tmp)` removes a path built at run time: data).
Also here: `CODE`, the functions that run Python code given as text (`exec`, `timeit.timeit`).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping

from rein.steering.bash.launch._launch import Launch
from rein.steering.bash.launch.python._apis import APIS, REMOVALS, Absent, Site, lookup, unknown
from rein.steering.bash.launch.python._scope import IMPORTS, Scope
from rein.steering.bash.launch.python._values import Value, as_text

CODE: dict[str, tuple[tuple[int, str], ...]] = {
    **{f"builtins.{name}": ((0, "source"),) for name in ("exec", "eval", "compile")},
    **{f"timeit.{name}": ((0, "stmt"), (1, "setup")) for name in ("timeit", "repeat", "Timer")},
    **{f"{module}.{name}": ((0, "statement"),) for module in ("cProfile", "profile", "pdb")
       for name in ("run", "runctx")},
    "pdb.runeval": ((0, "expression"),),
}  # fmt: skip
"""Functions that run Python code given as text: which arguments are code."""


def _exports() -> dict[str, frozenset[str]]:
    exports: dict[str, set[str]] = {"builtins": {"getattr"}}
    for name in (*APIS, *CODE, *IMPORTS):
        module, _, rest = name.partition(".")
        exports.setdefault(module, set()).add(rest.split(".")[0])
    return {module: frozenset(names) for module, names in exports.items()}


_EXPORTS = _exports()
"""The attributes of each module through which a process API is reached."""
_MODULES = frozenset({*_EXPORTS, "posix", "nt"})


def dynamic(site: Site, function: str) -> Iterator[Launch]:
    """The unknown launch of a call of `__import__`, `import_module` or `getattr` by a name built at
    run time that may reach a process API."""
    if function in IMPORTS:
        name = site.argument(0, "name")
        if not isinstance(name, Absent) and _importable(name):
            yield site.unknown("imports a module whose name is built at run time")
    elif function == "builtins.getattr" and len(site.node.args) >= 2:
        name = site.argument(1)
        why = (
            ""
            if isinstance(name, Absent)
            else _reaches(site.scope, site.scope.resolve(site.node.args[0]), name)
        )
        yield from [site.unknown(why)] if why else []


def namespace(scope: Scope, api: str, line: int, node: ast.expr, key: Value) -> Iterator[Launch]:
    """The unknown launch of `vars(os)[key]`, `os.__dict__.get(key)`, `sys.modules[key]`, where `node`
    is the namespace and `api` how the program writes it."""
    modules = scope.namespaces(node)
    if "sys.modules" in modules and _importable(key):
        yield unknown(api, "imports a module whose name is built at run time", line)
    elif "sys.modules" not in modules:
        why = _reaches(scope, modules, key)
        yield from [unknown(api, why, line)] if why else []


def _reaches(scope: Scope, modules: tuple[str, ...], attribute: Value) -> str:
    """Why looking `attribute` up in `modules` may reach a process API; empty when it cannot."""
    prefix = _prefix(attribute)
    if prefix is None:
        return ""
    for module in modules:
        if any(name.startswith(prefix) for name in _EXPORTS.get(module, scope.exports(module))):
            where = "the program's own names" if module == "__main__" else module
            return f"reaches {where} by a name built at run time"
    return ""


def _importable(name: Value) -> bool:
    """Whether a module name built at run time may name a process module."""
    prefix = _prefix(name)
    if prefix is None:
        return False
    top, dot, _ = prefix.partition(".")
    return top in _MODULES if dot else any(module.startswith(prefix) for module in _MODULES)


def _prefix(value: Value) -> str | None:
    """The known beginning of a name built at run time; None when the whole name is known."""
    parts = as_text(value).parts
    if None not in parts:
        return None
    return parts[0] if parts and parts[0] is not None else ""


def used(node: ast.expr, parents: Mapping[ast.AST, ast.AST], scope: Scope) -> str | None:
    """The process API `node` refers to when the program uses it as a value rather than calling it
    (`map(os.system, commands)`, `map(getattr(os, "system"), commands)`): rein cannot tell what it is
    later called with."""
    if isinstance(node, ast.Name | ast.Attribute | ast.Subscript) and not isinstance(node.ctx, ast.Load):
        return None
    if not isinstance(node, ast.Name | ast.Attribute | ast.Call | ast.Subscript) or _inert(
        node, parents, scope
    ):
        return None
    for name in scope.resolve(node):
        found = lookup(name)
        if (found and found[0] not in REMOVALS) or name in CODE or name in IMPORTS:
            return name
    return None


def _inert(node: ast.AST, parents: Mapping[ast.AST, ast.AST], scope: Scope) -> bool:
    """Whether `node` in `parent` is no value that could be called later: part of a longer name or a
    subscript (checked as a whole), called, an alias (whose calls are found through it), a statement
    that does nothing (or `eval`'s result), compared, or a type (`p: subprocess.Popen`,
    `isinstance(p, subprocess.Popen)`)."""
    parent = parents.get(node)
    if isinstance(parent, ast.Attribute | ast.Subscript | ast.Expr | ast.Compare | ast.NamedExpr):
        return True
    if isinstance(parent, ast.Call) and parent.func is node:
        return True
    if isinstance(parent, ast.Assign):
        return all(isinstance(target, ast.Name) for target in parent.targets)
    if isinstance(parent, ast.AnnAssign) and isinstance(parent.target, ast.Name):
        return True
    while isinstance(parent, ast.Tuple | ast.List | ast.BinOp):  # `(A, B)`, `A | B` in a type
        node, parent = parent, parents.get(parent)
    if isinstance(parent, ast.Subscript):  # `dict[str, Popen]`
        return True
    if isinstance(parent, ast.arg | ast.AnnAssign):
        return parent.annotation is node
    if isinstance(parent, ast.FunctionDef | ast.AsyncFunctionDef):
        return parent.returns is node
    if isinstance(parent, ast.Call) and node in parent.args[1:]:
        return bool({"builtins.isinstance", "builtins.issubclass"} & set(scope.resolve(parent.func)))
    return False
