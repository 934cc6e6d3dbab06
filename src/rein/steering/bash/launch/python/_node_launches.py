"""What one node of a Python program launches: a call of a process API, once per binding of the names
with several values it reads (`for cmd in [...]: run(cmd)`), a namespace looked up or listed, a
process API used as a value, a way into Python's internals, a plumbum command run.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator, Mapping

from rein.steering.bash.launch._launch import Launch
from rein.steering.bash.launch.python._apis import METHODS, PATH_METHODS, lookup
from rein.steering.bash.launch.python._call_site import (
    ABSENT,
    Absent,
    Site,
    argument,
    removal,
    unknown,
    written,
)
from rein.steering.bash.launch.python._calls import CWDS, HOMES, PATHS
from rein.steering.bash.launch.python._dynamic import (
    CODE,
    dynamic,
    internals,
    listed,
    mapped,
    named,
    namespace,
    reaches,
    reflective,
    used,
)
from rein.steering.bash.launch.python._libraries import library, loose
from rein.steering.bash.launch.python._scope import Scope
from rein.steering.bash.launch.python._values import Glob, Home, as_text

Codes = Callable[[Site, "str | None"], Iterator[Launch]]
"""The launches of a code text a call runs (None: built at run time)."""
_PATH_METHODS = frozenset({"expanduser", "absolute", "resolve", "joinpath", "with_name", "with_suffix"})


def launches(
    node: ast.expr, scope: Scope, text: str, line: int, parents: Mapping[ast.AST, ast.AST], codes: Codes
) -> list[Launch]:
    """What `node` launches, in the program `text` whose nodes' parents are `parents`."""
    found: list[Launch] = []
    if isinstance(node, ast.Call):
        site = Site(node, scope, text, line)
        found += [
            launch for outcome in scope.outcomes(lambda: list(_call(site, codes))) for launch in outcome
        ]
        found += _caller(site, parents)
    elif isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load) and scope.namespaces(node.value):
        api, container = written(text, node.value), node.value
        found += [
            launch
            for outcome in scope.outcomes(
                lambda: list(namespace(scope, api, line, container, scope.value(node.slice)))
            )
            for launch in outcome
        ]
    found += internals(node, text, line)
    found += listed(node, parents, scope, text, line)
    found += loose(node, parents, scope, text, line)
    if used(node, parents, scope):
        found.append(unknown(written(text, node), "is used as a value rein cannot follow", line))
    return found


def _call(site: Site, codes: Codes) -> Iterator[Launch]:
    scope, func = site.scope, site.node.func
    for function in scope.resolve(func):
        found = lookup(function)
        if found is not None:
            yield from found[1](site)
        for code in sources(scope, site.node, CODE.get(function, ())):
            yield from codes(site, code)
        yield from dynamic(site, function)
    yield from reflective(site)
    yield from library(site)
    yield from _called(site, codes)
    yield from _mapped(site, codes)
    if isinstance(func, ast.Attribute):
        method = METHODS.get(func.attr)
        if method is not None:
            yield from method(site)
        command = PATH_METHODS.get(func.attr)
        if command is not None and _pathlike(scope, func.value):
            yield from removal(site, command, scope.value(func.value))
        key = site.argument(0) if func.attr == "get" else ABSENT
        if not isinstance(key, Absent):
            yield from namespace(scope, site.api, site.line, func.value, key)


def _called(site: Site, codes: Codes) -> Iterator[Launch]:
    """`operator.methodcaller("system", "ls")(os)`: the call of `os.system("ls")` it makes."""
    scope, caller = site.scope, site.node.func
    if not (isinstance(caller, ast.Call) and caller.args and site.node.args):
        return
    if "operator.methodcaller" not in scope.resolve(caller.func):
        return
    name, owner = scope.value(caller.args[0]), site.node.args[0]
    known = as_text(name).known
    if known is None or not known.isidentifier():
        why = reaches(scope, scope.resolve(owner), name)
        yield from [site.unknown(why)] if why else []
        return
    method = ast.Attribute(value=owner, attr=known, ctx=ast.Load())
    call = ast.Call(func=method, args=caller.args[1:], keywords=caller.keywords)
    yield from _call(Site(call, scope, site.text, site.line), codes)


def _mapped(site: Site, codes: Codes) -> Iterator[Launch]:
    """`map(shutil.rmtree, ["a", "b"])`: the call of the function with each item of a literal."""
    node = site.node
    for index in range(mapped(site.scope, node) or 0):
        item = ast.Subscript(value=node.args[1], slice=ast.Constant(index), ctx=ast.Load())
        call = ast.Call(func=node.args[0], args=[item], keywords=[])
        yield from _call(Site(call, site.scope, site.text, site.line), codes)


def _caller(site: Site, parents: Mapping[ast.AST, ast.AST]) -> Iterator[Launch]:
    """An `operator.methodcaller` of a name a process API may have, kept to call later."""
    node = site.node
    parent = parents.get(node)
    if (isinstance(parent, ast.Call) and parent.func is node) or not node.args:
        return
    if "operator.methodcaller" in site.scope.resolve(node.func) and named(site.scope.value(node.args[0])):
        yield site.unknown("makes a method caller rein cannot follow")


def sources(scope: Scope, call: ast.Call, params: tuple[tuple[int, str], ...]) -> Iterator[str | None]:
    """The code texts a call runs, None for each built at run time."""
    for index, keyword in params:
        expr = argument(call, index, keyword)
        if expr is ABSENT or (isinstance(expr, ast.expr) and _compiled(scope, expr)):
            continue
        yield scope.string(expr) if isinstance(expr, ast.expr) else None


def _compiled(scope: Scope, expr: ast.expr) -> bool:
    """Whether `expr` is code `compile` made (read where it is compiled) or a function (timeit's)."""
    if isinstance(expr, ast.Lambda):
        return True
    if isinstance(expr, ast.Call):
        return "builtins.compile" in scope.resolve(expr.func)
    if isinstance(expr, ast.Name):
        assigned = scope.names.assigned.get(expr.id, ())
        if not assigned:
            return expr.id in scope.names.functions
        return all(isinstance(value, ast.Call | ast.Lambda) and _compiled(scope, value) for value in assigned)
    return False


def _pathlike(scope: Scope, node: ast.expr, depth: int = 0) -> bool:
    """Whether `node` is a `pathlib` path, whose `unlink()` removes a file (a list's `remove` does not)."""
    if depth > 20:
        return False
    if isinstance(node, ast.Call):
        if any(name in PATHS or name in HOMES or name in CWDS for name in scope.resolve(node.func)):
            return True
        func = node.func
        return (
            isinstance(func, ast.Attribute)
            and func.attr in _PATH_METHODS
            and _pathlike(scope, func.value, depth + 1)
        )
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div):
        return _pathlike(scope, node.left, depth + 1) or _pathlike(scope, node.right, depth + 1)
    if isinstance(node, ast.Name) and node.id in scope.names.consts:
        return _pathlike(scope, scope.names.consts[node.id], depth + 1)
    return isinstance(node, ast.Name) and isinstance(scope.value(node), Glob | Home)  # `for p in d.iterdir()`
