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
from rein.steering.bash.launch.python._apis import APIS, REMOVALS, lookup
from rein.steering.bash.launch.python._call_site import Absent, Site, unknown, written
from rein.steering.bash.launch.python._libraries import command
from rein.steering.bash.launch.python._resolve import IMPORTS, LIBC
from rein.steering.bash.launch.python._scope import Scope
from rein.steering.bash.launch.python._values import RUNTIME_TEXT, Seq, Value, as_text

CODE: dict[str, tuple[tuple[int, str], ...]] = {
    **{f"builtins.{name}": ((0, "source"),) for name in ("exec", "eval", "compile")},
    **{f"timeit.{name}": ((0, "stmt"), (1, "setup")) for name in ("timeit", "repeat", "Timer")},
    **{f"{module}.{name}": ((0, "statement"),) for module in ("cProfile", "profile", "pdb")
       for name in ("run", "runctx")},
    "pdb.runeval": ((0, "expression"),),
    **{f"code.{kind}.{name}": ((0, keyword),) for kind in ("InteractiveInterpreter", "InteractiveConsole")
       for name, keyword in (("runsource", "source"), ("runcode", "code"), ("push", "line"))},
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
_ATTRIBUTES = frozenset(name for names in _EXPORTS.values() for name in names)
_INTERNALS = frozenset(
    {"__subclasses__", "__globals__", "__builtins__", "f_globals", "f_locals", "f_builtins"}
)
"""Attributes that reach any module's names: `object.__subclasses__()` finds `Popen`, a function's
`__globals__` holds what its module imported."""
_MEMBERS = frozenset({"inspect.getmembers", "inspect.getmembers_static"})
_NAMESPACE_READS = frozenset({"get", "keys", "update", "__contains__", "__dict__"})
_INERT_CALLS = frozenset({
    "builtins.isinstance", "builtins.issubclass", "builtins.help", "builtins.callable", "builtins.print",
    "builtins.repr", "builtins.id", "builtins.hash", "builtins.dir", "builtins.type",
})  # fmt: skip
"""Builtins that only look at a function they are given."""


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
            else reaches(site.scope, site.scope.resolve(site.node.args[0]), name)
        )
        yield from [site.unknown(why)] if why else []


def namespace(scope: Scope, api: str, line: int, node: ast.expr, key: Value) -> Iterator[Launch]:
    """The unknown launch of `vars(os)[key]`, `os.__dict__.get(key)`, `sys.modules[key]`, where `node`
    is the namespace and `api` how the program writes it."""
    modules = scope.namespaces(node)
    if "sys.modules" in modules and _importable(key):
        yield unknown(api, "imports a module whose name is built at run time", line)
    elif "sys.modules" not in modules:
        why = reaches(scope, modules, key)
        yield from [unknown(api, why, line)] if why else []


def reaches(scope: Scope, modules: tuple[str, ...], attribute: Value) -> str:
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
        if (found and found[0] not in REMOVALS) or name in CODE or name in IMPORTS or command(name):
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
    in_class = isinstance(parents.get(parent) if parent else None, ast.ClassDef)  # `class C: run = os.system`
    if isinstance(parent, ast.Assign):
        return all(isinstance(target, ast.Name) for target in parent.targets) and not in_class
    if isinstance(parent, ast.AnnAssign) and isinstance(parent.target, ast.Name):
        return not in_class
    while isinstance(parent, ast.Tuple | ast.List | ast.BinOp):  # `(A, B)`, `A | B` in a type
        node, parent = parent, parents.get(parent)
    if isinstance(parent, ast.Subscript):  # `dict[str, Popen]`; but `(os.system,)[i]` picks one out
        return parent.slice is node or isinstance(parent.slice, ast.Constant)
    if isinstance(parent, ast.arg | ast.AnnAssign):
        return parent.annotation is node
    if isinstance(parent, ast.FunctionDef | ast.AsyncFunctionDef):
        return parent.returns is node
    if isinstance(parent, ast.Call) and parent.args and node is parent.args[0] and mapped(scope, parent):
        return True  # each call is found
    if isinstance(parent, ast.Call) and node in parent.args:
        return bool(_INERT_CALLS & set(scope.resolve(parent.func)))
    return False


def mapped(scope: Scope, call: ast.Call) -> int | None:
    """How many items `map(function, literal)` calls its function with, when rein knows them all."""
    if len(call.args) != 2 or call.keywords or "builtins.map" not in scope.resolve(call.func):
        return None
    items = scope.value(call.args[1])
    return len(items.items) if isinstance(items, Seq) and not items.open and len(items.items) <= 16 else None


def reflective(site: Site) -> Iterator[Launch]:
    """The unknown launch of `os.__getattribute__(name)`, `type(os).__getattribute__(os, name)` and
    `inspect.getmembers(os)`, which may reach a process API."""
    func, args = site.node.func, site.node.args
    if isinstance(func, ast.Attribute) and func.attr in ("__getattribute__", "__getattr__") and args:
        owner = args[0] if len(args) > 1 else func.value
        why = reaches(site.scope, site.scope.resolve(owner), site.scope.value(args[-1]))
        yield from [site.unknown(why)] if why else []
    elif args and _MEMBERS & set(site.scope.resolve(func)):
        why = reaches(site.scope, site.scope.resolve(args[0]), RUNTIME_TEXT)
        yield from (
            [site.unknown(why.replace("by a name built at run time", "by listing its names"))] if why else []
        )
    for function in site.scope.resolve(func):
        if (function == LIBC or function.startswith(LIBC + ".")) and lookup(function) is None:
            yield site.unknown("calls a C library function rein cannot read")
            break


def named(name: Value) -> bool:
    """Whether an attribute `name` (`operator.methodcaller(name)`) may be a process API's."""
    prefix = _prefix(name)
    known = as_text(name).known
    return known in _ATTRIBUTES if prefix is None else any(a.startswith(prefix) for a in _ATTRIBUTES)


def internals(node: ast.expr, text: str, line: int) -> Iterator[Launch]:
    """The unknown launch of reaching Python's internals (`object.__subclasses__()`, `f.__globals__`)."""
    if isinstance(node, ast.Attribute) and node.attr in _INTERNALS:
        why = f"reaches Python's internals through {node.attr}, which may lead to a process API"
        yield unknown(written(text, node), why, line)


def listed(
    node: ast.expr, parents: Mapping[ast.AST, ast.AST], scope: Scope, text: str, line: int
) -> Iterator[Launch]:
    """The unknown launch of a namespace that may hold a process API read other than by a key rein
    knows: `vars(os).items()`, `dict(os.__dict__)`, `sys.modules.values()`."""
    if isinstance(node, ast.Attribute):
        spaced = node.attr in ("__dict__", "modules")
    elif isinstance(node, ast.Call):
        spaced = isinstance(node.func, ast.Name) and node.func.id in ("vars", "globals", "locals")
    else:
        spaced = isinstance(node, ast.Name) and node.id == "__builtins__"
    parent = parents.get(node)
    if not spaced or isinstance(parent, ast.Compare | ast.Expr):
        return
    if isinstance(parent, ast.Subscript) and parent.value is node:
        return  # a key looked up: `namespace` reads it
    if isinstance(parent, ast.Attribute) and parent.value is node and parent.attr in _NAMESPACE_READS:
        return
    yield from namespace(scope, written(text, node), line, node, RUNTIME_TEXT)
