"""Names whose list or dict the program may change after building it: `c[2] = "--force"`,
`del c[0]`, `list.insert(c, 2, "-f")`, or by handing it to code rein does not know (a function, an
attribute, a return): such a name's list or dict is built at run time. A list only ever appended to
(`c.append("-v")`, `c.extend(more)`) keeps its items, and more of them follow.

Read from syntax alone, flow-insensitively: a change anywhere counts everywhere, and through every
name that may hold the same list (`d = c`, `for x in c`, a function's parameter `c` is passed to).
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from rein.steering.bash.launch.python._calls import FUNCTIONS
from rein.steering.bash.launch.python._flow import Flow, parameters
from rein.steering.bash.launch.python._names import Names

_APPENDERS = frozenset({"append", "extend"})
_MUTATORS = frozenset({
    "insert", "remove", "pop", "clear", "sort", "reverse", "update", "setdefault",
    "popitem", "add", "discard", "intersection_update", "difference_update", "symmetric_difference_update",
})  # fmt: skip
_SCALAR = frozenset({
    "print", "len", "str", "repr", "isinstance", "issubclass", "bool", "hash", "id", "format", "callable",
    "help", "ascii", "any", "all", "sum", "int", "float", "type",
})  # fmt: skip
"""Builtins that read their argument and return something else."""
_THROUGH = frozenset({
    "sorted", "list", "tuple", "set", "frozenset", "enumerate", "zip", "reversed", "iter", "min", "max",
    "next", "dict",
})  # fmt: skip
"""Builtins that return the items of their argument (`list(c)[0]` is an item of `c`)."""
_READERS = frozenset({
    "json.dumps", "pprint.pprint", "pprint.pformat", "logging.debug", "logging.info", "logging.warning",
    "logging.error", "logging.critical", "logging.exception",
})  # fmt: skip
_SAFE = (
    ast.Compare, ast.FormattedValue, ast.JoinedStr, ast.Expr, ast.UnaryOp, ast.If, ast.While, ast.Assert,
    ast.Slice, ast.For, ast.AsyncFor, ast.comprehension,
)  # fmt: skip
"""Where a name is read without its list escaping (a loop's iterable: its items reach the target)."""
_CARRY = (
    ast.keyword, ast.Starred, ast.List, ast.Tuple, ast.Set, ast.Dict, ast.BinOp, ast.BoolOp, ast.ListComp,
    ast.SetComp, ast.GeneratorExp, ast.DictComp,
)  # fmt: skip
"""What holds the list read in it, or its items: read in the context of the whole."""


def mutated(names: Names, flow: Flow, apis: frozenset[str]) -> tuple[frozenset[str], frozenset[str]]:
    """The names whose list or dict the program may change, and those it only appends to: those that
    can hold one rein knows (a constant, a loop's variable, a parameter), and those it may be held
    through."""
    functions: dict[str, list[str]] = {}  # parameter -> the functions that have it
    for name, defs in names.defs.items():
        for node in defs:
            for param in parameters(node.args):
                functions.setdefault(param, []).append(name)
    for name, expr in names.consts.items():
        if isinstance(expr, ast.Lambda):
            for param in parameters(expr.args):
                functions.setdefault(param, []).append(name)
    holders = names.consts.keys() | names.looped.keys() | functions.keys()
    changed: set[str] = set()
    appended: set[str] = set()
    for read in names.parents:
        if isinstance(read, ast.Name) and read.id in holders and isinstance(read.ctx, ast.Load):
            change = _changes(read, names, apis)
            (appended if change == "append" else changed if change else set()).add(read.id)
    return _spread(names, functions, changed), _spread(names, functions, appended)


def _spread(names: Names, functions: dict[str, list[str]], found: set[str]) -> frozenset[str]:
    """`found`, and every name whose list they may hold."""
    pending = list(found)
    while pending:
        for source in _sources(names, functions, pending.pop()):
            if source not in found:
                found.add(source)
                pending.append(source)
    return frozenset(found)


def _sources(names: Names, functions: dict[str, list[str]], name: str) -> Iterator[str]:
    """The names whose list `name` may hold."""
    exprs: list[ast.AST] = [
        *names.assigned.get(name, ()),
        *(loop.iterable for loop in names.loops.get(name, ())),
    ]
    for function in functions.get(name, ()):
        exprs += names.calls.get(function, ())
    for expr in exprs:
        for node in ast.walk(expr):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                yield node.id


def _changes(node: ast.expr, names: Names, apis: frozenset[str]) -> str:
    """How the list `node` reads may change where it is read: `append`, any other way (`change`), or
    not at all (empty)."""
    found = _changed(node, names, apis)
    if found is True:
        return "change"
    return found if isinstance(found, str) else ""


def _changed(node: ast.expr, names: Names, apis: frozenset[str]) -> bool | str:
    """Whether the list `node` reads may change where it is read; `append` when it is only appended
    to (`c.append(x)`, not `c[0].append(x)`)."""
    direct = True
    while True:
        parent = names.parents.get(node)
        if isinstance(parent, ast.Subscript):
            if parent.value is not node:
                return False  # an index
            if not isinstance(parent.ctx, ast.Load):
                return True  # `c[2] = x`, `del c[0]`
        elif isinstance(parent, ast.Attribute):
            if parent.attr in _APPENDERS:
                return "append" if direct else True
            return parent.attr in _MUTATORS or parent.attr.startswith("__")
        elif isinstance(parent, ast.Call):
            if parent.func is node:
                return False
            kind = _kind(parent.func, names, apis)
            if kind != "through":
                return kind != "pure"
        elif isinstance(parent, ast.IfExp):
            if parent.test is node:
                return False
        elif isinstance(parent, ast.Assign | ast.AnnAssign | ast.NamedExpr):
            bound = parent.targets if isinstance(parent, ast.Assign) else [parent.target]
            return not all(isinstance(target, ast.Name) for target in bound)  # else it is an alias
        elif isinstance(parent, _SAFE):
            return False
        elif not isinstance(parent, _CARRY):
            return True  # returned, yielded, awaited, a `with` item: where rein does not follow it
        node, direct = parent, False  # type: ignore[assignment]


def _kind(func: ast.expr, names: Names, apis: frozenset[str]) -> str:
    """How a call treats the lists it is given: `pure` reads them, `through` returns their items, and
    anything else may change them."""
    if isinstance(func, ast.Name):
        if func.id in names.defs or isinstance(names.consts.get(func.id), ast.Lambda):
            return "pure"  # a change in it is its parameter's, which `_sources` follows
        if not names.bindings.get(func.id):
            return "pure" if func.id in _SCALAR else "through" if func.id in _THROUGH else ""
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Constant):
        return "pure" if isinstance(func.value.value, str | bytes) else ""  # `" ".join(c)`
    for name in _qualified(func, names):
        parts = name.split(".")
        if (
            name in FUNCTIONS
            or name in _READERS
            or any(".".join(parts[i:]) in apis for i in range(len(parts)))
        ):
            return "pure"
    return ""


def _qualified(func: ast.expr, names: Names) -> Iterator[str]:
    """What a dotted name spells, its first name read through the program's imports."""
    parts: list[str] = []
    while isinstance(func, ast.Attribute):
        parts.append(func.attr)
        func = func.value
    if not isinstance(func, ast.Name):
        return
    rest = ".".join(reversed(parts))
    for module in names.imports.get(func.id, (func.id,))[:4]:
        yield f"{module}.{rest}" if rest else module
