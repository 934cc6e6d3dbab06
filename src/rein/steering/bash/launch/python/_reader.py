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
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from rein.steering.bash.launch._launch import Launch
from rein.steering.bash.launch.python._apis import APIS
from rein.steering.bash.launch.python._call_site import Site
from rein.steering.bash.launch.python._dynamic import CODE
from rein.steering.bash.launch.python._flow import dead
from rein.steering.bash.launch.python._names import collect
from rein.steering.bash.launch.python._node_launches import launches, sources
from rein.steering.bash.launch.python._scope import Scope

_MENTIONS = re.compile(
    r"system|popen|subprocess|spawn|exec|\bpty\b|__import__|import_module|eval|compile|rmtree|unlink"
    r"|remove|rmdir|getattr|getoutput|ctypes|__dict__|\bvars\b|builtins|globals|sys\.modules|timeit"
    r"|cprofile|\bpdb\b|\bprofile\b|pickle|marshal|runpy|\bcode\b|\bsh\b|plumbum|invoke|fabric|pipes"
    r"|__subclasses__|__globals__|methodcaller|__getattribute__",
    re.IGNORECASE,
)
"""Names of process APIs: a program that does not parse and mentions none launches nothing."""
_KNOWN = frozenset({*APIS, *CODE})
"""The qualified names that start a process or run code."""
_DEPTH = 8
"""How deep code run by `exec` from a literal is read (`exec("exec('...')")`)."""
_UNITS = 64


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
    origins: dict[str, set[tuple[str, ast.Call]]] = {text: set()}  # the calls that run each unit
    failed: dict[str, SyntaxError] = {}
    scope = Scope(collect([(units[text].nodes, units[text].parents)], env), _KNOWN)
    # Code run from literals binds names in the program (`exec("import os as o")`): read it all, then
    # find the launches with everything's names.
    for _ in range(_DEPTH):
        added = False
        for unit in list(units.values()):
            for call, code in _codes(unit, scope):
                if code in units:
                    origins[code].add((unit.text, call))
                if code in units or code in failed or unit.depth >= _DEPTH or len(units) >= _UNITS:
                    continue
                parsed = _parse(code)
                if isinstance(parsed, SyntaxError):
                    failed[code] = parsed
                    continue
                where = (*unit.key, call.lineno, call.col_offset)
                units[code] = _Unit(*_index(parsed), code, where, unit.line or call.lineno, unit.depth + 1)
                origins[code] = {(unit.text, call)}
                added = True
        if not added:
            break
        scope = Scope(collect([(unit.nodes, unit.parents) for unit in units.values()], env), _KNOWN)
    skipped = _dead(units, origins, scope)
    found = [
        pair
        for unit in units.values()
        for dead_nodes in [skipped[unit.text]]
        if dead_nodes is not None
        for pair in _launches(unit, scope, units, failed, dead_nodes)
    ]
    if not scope.settled:  # what a name refers to may be missed: a process API called through it
        found.append(
            ((0,), Launch(api="python", unknown="the python program binds names rein cannot follow"))
        )
    return tuple(dict.fromkeys(launch for _, launch in sorted(found, key=lambda pair: pair[0])))


def _dead(
    units: Mapping[str, _Unit], origins: Mapping[str, set[tuple[str, ast.Call]]], scope: Scope
) -> dict[str, set[ast.AST] | None]:
    """The nodes of each unit that never run, or None for a unit that never runs: all the calls that
    run it never run, or compile code that is never run."""
    skipped: dict[str, set[ast.AST] | None] = dict.fromkeys(units)
    unrun: dict[str, set[ast.AST]] = {}
    changed = True
    while changed:  # a unit runs when a call that runs it does, in a unit that runs: to a fixed point
        changed = False
        for unit in units.values():
            runs = not origins[unit.text] or any(
                skipped[outer] is not None and call not in (skipped[outer] or ()) and call not in unrun[outer]
                for outer, call in origins[unit.text]
            )
            if not runs or skipped[unit.text] is not None:
                continue
            compiles = frozenset(
                node
                for node in unit.nodes
                if isinstance(node, ast.Call) and "builtins.compile" in scope.resolve(node.func)
            )
            skipped[unit.text], unrun[unit.text] = dead(scope.names, scope.flow, unit.nodes, compiles)
            changed = True
    return skipped


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
    """The literal code texts `unit` runs with `exec` and its kin, in each binding of the names they
    read (`for code in [...]: exec(code)`)."""
    for node in unit.nodes:
        if isinstance(node, ast.Call):
            for function in scope.resolve(node.func):
                params = CODE.get(function, ())
                if not params:
                    continue
                texts = scope.outcomes(lambda: list(sources(scope, node, params)))  # noqa: B023
                for code in dict.fromkeys(code for outcome in texts for code in outcome):
                    if code is not None:
                        yield node, code


def _launches(
    unit: _Unit,
    scope: Scope,
    units: Mapping[str, _Unit],
    failed: Mapping[str, SyntaxError],
    skipped: set[ast.AST],
) -> Iterator[tuple[tuple[int, ...], Launch]]:
    def codes(site: Site, code: str | None) -> Iterator[Launch]:
        if code is None:
            yield site.unknown("is called with code built at run time")
        elif code in failed:
            yield from _unparsable(code, failed[code], {}, site.line)
        elif code not in units:
            yield site.unknown(f"runs code nested more than {_DEPTH} levels deep")

    for node in unit.nodes:
        if not isinstance(node, ast.expr) or node in skipped:
            continue
        key, line = (*unit.key, node.lineno, node.col_offset), unit.line or node.lineno
        for launch in launches(node, scope, unit.text, line, unit.parents, codes):
            yield key, launch
