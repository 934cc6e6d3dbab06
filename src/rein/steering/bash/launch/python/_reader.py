"""What a Python program would launch, read with the standard library's `ast` (never run).

Finds the calls of process APIs (`os.system`, `subprocess.run`, `os.exec*`, `pty.spawn`, asyncio's
subprocesses, ...) however the program names them (imports, aliases, `getattr`, `__import__`), the
file removals of the standard library (as the `rm` they are), and reads code run from a literal with
`exec`, `eval` or `compile` as part of the program. A process API reached or called with something
built at run time is an unknown launch. Text Python 3.11 cannot parse is one unknown launch when it
mentions a process API: Python runs nothing of a program that does not compile, but the interpreter
the command names may be newer.
"""

from __future__ import annotations

import ast
import re
import warnings
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass

from rein.steering.bash.launch._launch import Launch
from rein.steering.bash.launch.python._apis import (
    ABSENT,
    APIS,
    METHODS,
    PATH_METHODS,
    Absent,
    Site,
    argument,
    lookup,
    removal,
    unknown,
    written,
)
from rein.steering.bash.launch.python._calls import HOMES, PATHS
from rein.steering.bash.launch.python._dynamic import CODE, dynamic, namespace, used
from rein.steering.bash.launch.python._names import collect
from rein.steering.bash.launch.python._scope import Scope

_MENTIONS = re.compile(
    r"system|popen|subprocess|spawn|exec|\bpty\b|__import__|import_module|eval|compile|rmtree|unlink"
    r"|remove|rmdir|getattr|getoutput|ctypes|__dict__|\bvars\b|builtins|globals|sys\.modules|timeit"
    r"|cprofile|\bpdb\b|\bprofile\b",
    re.IGNORECASE,
)
"""Names of process APIs: a program that does not parse and mentions none launches nothing."""
_KNOWN = frozenset({*APIS, *CODE})
"""The qualified names that start a process or run code."""
_DEPTH = 8
"""How deep code run by `exec` from a literal is read (`exec("exec('...')")`)."""
_UNITS = 64
_PATH_METHODS = frozenset({"expanduser", "absolute", "resolve", "joinpath", "with_name", "with_suffix"})


@dataclass(frozen=True, slots=True)
class _Unit:
    """The program, or code it runs from a literal with `exec` and its kin."""

    nodes: tuple[ast.AST, ...]
    """Its syntax tree's nodes, the module first."""
    parents: Mapping[ast.AST, ast.AST]
    text: str
    key: tuple[int, ...]
    """Where its launches sort: the position of the call that runs it."""
    line: int
    """The line its launches report: the program's line that runs it, 0 for the program itself."""
    depth: int


def read(text: str, env: Mapping[str, str]) -> tuple[Launch, ...]:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # invalid escapes in the program's strings warn
            return _read(text, env)
    except RecursionError:
        return (Launch(api="python", unknown="the python program nests too deeply to read"),)


def _read(text: str, env: Mapping[str, str]) -> tuple[Launch, ...]:
    tree = _parse(text)
    if isinstance(tree, SyntaxError):
        return _unparsable(text, tree, env)
    units = {text: _Unit(*_index(tree), text, (), 0, 0)}
    failed: dict[str, SyntaxError] = {}
    scope = Scope(collect([units[text].nodes], env), _KNOWN)
    # Code run from literals binds names in the program (`exec("import os as o")`): read it all, then
    # find the launches with everything's names.
    for _ in range(_DEPTH):
        added = False
        for unit in list(units.values()):
            for call, code in _codes(unit, scope):
                if code in units or code in failed or unit.depth >= _DEPTH or len(units) >= _UNITS:
                    continue
                parsed = _parse(code)
                if isinstance(parsed, SyntaxError):
                    failed[code] = parsed
                    continue
                where = (*unit.key, call.lineno, call.col_offset)
                units[code] = _Unit(*_index(parsed), code, where, unit.line or call.lineno, unit.depth + 1)
                added = True
        if not added:
            break
        scope = Scope(collect([unit.nodes for unit in units.values()], env), _KNOWN)
    found = [pair for unit in units.values() for pair in _launches(unit, scope, units, failed)]
    if not scope.settled:  # what a name refers to may be missed: a process API called through it
        found.append(
            ((0,), Launch(api="python", unknown="the python program binds names rein cannot follow"))
        )
    return tuple(dict.fromkeys(launch for _, launch in sorted(found, key=lambda pair: pair[0])))


def _index(tree: ast.Module) -> tuple[tuple[ast.AST, ...], dict[ast.AST, ast.AST]]:
    """The nodes of `tree` and each one's parent, in one walk (walking is most of the reading time)."""
    nodes: list[ast.AST] = [tree]
    parents: dict[ast.AST, ast.AST] = {}
    for node in nodes:
        for child in ast.iter_child_nodes(node):
            parents[child] = node
            nodes.append(child)
    return tuple(nodes), parents


def _parse(text: str) -> ast.Module | SyntaxError:
    try:
        return ast.parse(text)
    except SyntaxError as error:
        return error
    except ValueError as error:  # a NUL byte
        return SyntaxError(str(error))
    except (MemoryError, RecursionError):  # how the parser says a program nests too deeply
        return SyntaxError("the program nests too deeply")


def _unparsable(text: str, error: SyntaxError, env: Mapping[str, str], line: int = 0) -> tuple[Launch, ...]:
    """One unknown launch for a program that does not parse and mentions a process API, after what
    the lines before the error launch."""
    if not _MENTIONS.search(text):
        return ()
    where = error.lineno or 0
    near = f" near line {where}" if where else ""
    unknown = Launch(
        api="python", unknown=f"the python program does not parse{near}: {error.msg}", line=line or where
    )
    before = "\n".join(text.splitlines()[: where - 1])
    if line or not before.strip() or isinstance(_parse(before), SyntaxError):
        return (unknown,)
    return (*_read(before, env), unknown)


def _codes(unit: _Unit, scope: Scope) -> Iterator[tuple[ast.Call, str]]:
    """The literal code texts `unit` runs with `exec` and its kin."""
    for node in unit.nodes:
        if isinstance(node, ast.Call):
            for function in scope.resolve(node.func):
                for code in _sources(scope, node, CODE.get(function, ())):
                    if code is not None:
                        yield node, code


def _sources(scope: Scope, call: ast.Call, params: tuple[tuple[int, str], ...]) -> Iterator[str | None]:
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


def _launches(
    unit: _Unit, scope: Scope, units: Mapping[str, _Unit], failed: Mapping[str, SyntaxError]
) -> Iterator[tuple[tuple[int, ...], Launch]]:
    for node in unit.nodes:
        if not isinstance(node, ast.expr):
            continue
        key, line = (*unit.key, node.lineno, node.col_offset), unit.line or node.lineno
        if isinstance(node, ast.Call):
            found: Iterable[Launch] = _call(Site(node, scope, unit.text, line), units, failed)
        elif (
            isinstance(node, ast.Subscript)
            and isinstance(node.ctx, ast.Load)
            and scope.namespaces(node.value)
        ):
            api = written(unit.text, node.value)
            found = namespace(scope, api, line, node.value, scope.value(node.slice))
        else:
            found = ()
        if used(node, unit.parents, scope):
            found = [*found, unknown(written(unit.text, node), "is used as a value rein cannot follow", line)]
        yield from ((key, launch) for launch in found)


def _call(site: Site, units: Mapping[str, _Unit], failed: Mapping[str, SyntaxError]) -> Iterator[Launch]:
    scope, func = site.scope, site.node.func
    for function in scope.resolve(func):
        found = lookup(function)
        if found is not None:
            yield from found[1](site)
        for code in _sources(scope, site.node, CODE.get(function, ())):
            if code is None:
                yield site.unknown("is called with code built at run time")
            elif code in failed:
                yield from _unparsable(code, failed[code], {}, site.line)
            elif code not in units:
                yield site.unknown(f"runs code nested more than {_DEPTH} levels deep")
        yield from dynamic(site, function)
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


def _pathlike(scope: Scope, node: ast.expr, depth: int = 0) -> bool:
    """Whether `node` is a `pathlib` path, whose `unlink()` removes a file (a list's `remove` does not)."""
    if depth > 20:
        return False
    if isinstance(node, ast.Call):
        if any(name in PATHS or name in HOMES for name in scope.resolve(node.func)):
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
    return False
