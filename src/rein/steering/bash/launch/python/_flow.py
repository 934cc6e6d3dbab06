"""How values reach names in a Python program, read from its syntax alone: helper functions whose
every call rein sees, the names that take each of several values (a loop's variable, a helper's
parameter), and code that never runs (a function never called, a lambda never called, code compiled
and never run).

All of it assumes a function is reached only by its name: a program that reaches names another way
(`globals()`, `sys.modules`, a frame's `f_globals`, `import __main__`) has no helpers and no dead code.
A program that may import itself (a module outside the standard library, which may be its own file)
may also reach a function as an attribute (`mine.helper(...)`) or by a string (`getattr(mine, "helper")`):
then a function whose name is spelled so is no helper, and is not dead.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from rein.steering.bash.launch.python._names import Function, Names

_IMPORTERS = frozenset({"__import__", "import_module", "importlib", "runpy", "imp", "pkgutil", "pydoc"})
"""Names by which a program imports a module named at run time: perhaps itself."""

_DYNAMIC = frozenset({
    "globals", "locals", "vars", "__dict__", "modules", "__main__", "__globals__", "f_globals", "f_locals",
    "get_referrers", "get_objects", "getmembers", "getmembers_static",
})  # fmt: skip
"""Names by which a program reaches its own functions other than by name."""


@dataclass(frozen=True, slots=True)
class Helper:
    """A function all of whose calls rein sees: its parameters take the calls' arguments."""

    node: Function | ast.Lambda
    calls: tuple[ast.Call, ...]


@dataclass(frozen=True, slots=True)
class Flow:
    helpers: Mapping[str, tuple[Helper, ...]]
    """The helpers each name is a parameter of."""
    choices: frozenset[str]
    """Names bound only by loops and as helpers' parameters: each takes one of several values."""
    scoped: frozenset[str]
    """Choices bound only as helpers' parameters: read in a helper, one is that helper's own (`c` in
    `def run(c): sh(c)` is `run`'s, in `def sh(c)` `sh`'s); else all of a name's bindings are one."""
    dynamic: bool
    """Whether the program may reach its functions other than by name."""
    spelled: frozenset[str]
    """The attribute names and strings through which it may reach a function of its own."""

    @staticmethod
    def of(names: Names) -> Flow:
        dynamic = names.rebinds or bool(_DYNAMIC & (names.spelled | names.loads.keys()))
        foreign = any(module not in sys.stdlib_module_names for module in names.modules)
        spelled = names.spelled if foreign or _IMPORTERS & names.spelled else frozenset()
        helpers: dict[str, list[Helper]] = {}
        params: dict[str, int] = {}
        for helper in [] if dynamic else _helpers(names, spelled):
            for param in parameters(helper.node.args):
                helpers.setdefault(param, []).append(helper)
                params[param] = params.get(param, 0) + 1
        choices = frozenset(
            name
            for name, count in names.bindings.items()
            if count and not names.rebinds and count == names.looped.get(name, 0) + params.get(name, 0)
        )
        scoped = frozenset(name for name in choices if not names.looped.get(name))
        return Flow(
            {name: tuple(found) for name, found in helpers.items()}, choices, scoped, dynamic, spelled
        )


def _helpers(names: Names, spelled: frozenset[str]) -> Iterator[Helper]:
    """Functions bound once, by a `def` outside a class body or by assigning a lambda, without a
    decorator, and only ever called by their name."""
    for name, defs in names.defs.items():
        node = defs[0]
        if (
            len(defs) == 1
            and node not in names.methods
            and not node.decorator_list
            and _called(names, name, spelled)
        ):
            yield Helper(node, names.calls.get(name, ()))
    for name, expr in names.consts.items():
        if isinstance(expr, ast.Lambda) and _called(names, name, spelled):
            yield Helper(expr, names.calls.get(name, ()))


def _called(names: Names, name: str, spelled: frozenset[str]) -> bool:
    """Whether `name`, bound once, is only ever called by its name."""
    return (
        names.bindings.get(name) == 1
        and name not in spelled
        and names.loads.get(name, 0) == len(names.calls.get(name, ()))
    )


def parameters(arguments: ast.arguments) -> Iterator[str]:
    for arg in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs):
        yield arg.arg
    for rest in (arguments.vararg, arguments.kwarg):
        if rest is not None:
            yield rest.arg


def dead(
    names: Names, flow: Flow, nodes: tuple[ast.AST, ...], compiles: frozenset[ast.AST]
) -> tuple[set[ast.AST], set[ast.AST]]:
    """The nodes of code that never runs, the bodies of functions never read and of lambdas never
    called (their defaults and annotations run where they are defined); and the `compile` calls among
    `compiles` whose code never runs, as their result is never read."""
    if flow.dynamic:
        return set(), set()
    bodies: list[ast.AST] = []
    unrun: set[ast.AST] = set()
    for node in nodes:
        if isinstance(node, Function):
            if node not in names.methods and not node.decorator_list and _unread(names, flow, node.name):
                bodies += node.body
        elif isinstance(node, ast.Lambda) and _discarded(names, flow, node):
            bodies.append(node.body)
        elif node in compiles and _discarded(names, flow, node):
            unrun.add(node)
    found: set[ast.AST] = set()
    for body in bodies:
        if body not in found:
            found.update(ast.walk(body))
    return found, unrun


def _discarded(names: Names, flow: Flow, node: ast.AST) -> bool:
    """Whether the value of `node` is never read: a statement of its own, or assigned to names nothing
    reads."""
    parent = names.parents.get(node)
    kept = "_" in names.loads  # in interactive mode a statement's value is kept in `_`
    return (isinstance(parent, ast.Expr) and not kept) or (
        isinstance(parent, ast.Assign)
        and all(isinstance(target, ast.Name) and _unread(names, flow, target.id) for target in parent.targets)
    )


def _unread(names: Names, flow: Flow, name: str) -> bool:
    """Whether nothing reads `name`: none of the program's names, nor, when it may import itself, its
    attributes and strings (a dunder may be read by Python itself: a module's `__getattr__`)."""
    return not names.loads.get(name) and name not in flow.spelled and not name.startswith("__")
