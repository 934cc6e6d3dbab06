"""Where a JavaScript program takes `child_process` and the APIs that run code: whether the reader can
follow them to the calls.

The reader follows a module through a name (`const cp = require(...)`, an import), a destructuring,
a property (`cp.exec`), `await`, parentheses; and a process function through a name, `promisify`,
`.bind`, `.call`, `.apply`. Anything else (the module passed to a function, returned, exported, a
`.then(cp => ...)` callback, a property read with a name built at run time, the module's name in a
string that no `require` reads) loses `child_process`: the reader then matches calls by their names.
A process function (or `eval`) passed where the reader cannot follow it is one unknown launch.
"""

from __future__ import annotations

from dataclasses import dataclass

from rein.steering.bash.launch._tree import Node
from rein.steering.bash.launch.javascript._apis import CHILD_PROCESS, LAUNCHERS
from rein.steering.bash.launch.javascript._expr import Program
from rein.steering.bash.launch.javascript._refs import REQUIRE, Ref, module_name
from rein.steering.bash.launch.javascript._scan import tagged

_WATCHED = LAUNCHERS | {REQUIRE, Ref("module", "require")}
"""Functions that start processes, run code or load modules: passed away, they are unknown launches."""
_CALLABLE_USES = frozenset({"binary_expression", "unary_expression"})
"""`typeof eval`, `x instanceof Function`: a look at the function, not a call of it."""


@dataclass(frozen=True, slots=True)
class Followed:
    lost: bool
    """`child_process` reaches code the reader cannot follow."""
    escapes: tuple[tuple[Node, Ref], ...]
    """Process functions passed where the reader cannot follow them."""


def follow(program: Program) -> Followed:
    scan = program.scan
    uses: list[tuple[Node, Ref]] = []
    for name, nodes in scan.reads.items():
        ref = program.name_ref(name)
        uses.extend((node, ref) for node in nodes if ref is not None)
    for node in (*scan.members, *scan.calls):
        if node.type == "new_expression" or (node.type == "call_expression" and tagged(node) is not None):
            continue
        ref = program.ref(node)
        if ref is not None:
            uses.append((node, ref))
    lost = any(_exported(program, node) for node in scan.exports)
    lost = lost or any(_mentioned(program, node) for node in scan.strings)
    escapes: list[tuple[Node, Ref]] = []
    for node, ref in uses:
        if ref.module == "child_process" and not ref.name:
            lost = lost or not _module_use(program, node)
        elif ref.module == "child_process" and ref.name not in CHILD_PROCESS:
            lost = True  # `cp.then(...)`, `cp.ChildProcess`: not a function the reader knows
        elif ref in _WATCHED and not _function_use(program, node, ref):
            escapes.append((node, ref))
    return Followed(lost, tuple(escapes))


def _use(node: Node) -> tuple[Node, Node | None]:
    """The expression around `node`, past parentheses, `await`, and the end of a comma sequence."""
    parent = node.parent
    while parent is not None and (
        parent.type in ("parenthesized_expression", "await_expression")
        or (parent.type == "sequence_expression" and parent.named_children[-1] == node)
    ):
        node, parent = parent, parent.parent
    return node, parent


def _is(parent: Node, field: str, node: Node) -> bool:
    return parent.child_by_field_name(field) == node


def _bound(node: Node, parent: Node, patterns: bool) -> bool:
    """`const x = node` / `x = node` (an alias), or a destructuring of it when `patterns`."""
    if parent.type == "variable_declarator" and _is(parent, "value", node):
        target = parent.child_by_field_name("name")
    elif parent.type == "assignment_expression" and _is(parent, "right", node):
        target = parent.child_by_field_name("left")
    else:
        return False
    return target is not None and (
        target.type == "identifier" or (patterns and target.type == "object_pattern")
    )


def _module_use(program: Program, node: Node) -> bool:
    node, parent = _use(node)
    if parent is None:
        return False
    if parent.type in ("member_expression", "subscript_expression") and _is(parent, "object", node):
        return program.key(parent) is not None
    return _bound(node, parent, patterns=True)


def _function_use(program: Program, node: Node, ref: Ref) -> bool:
    node, parent = _use(node)
    if parent is None:
        return False
    kind = parent.type
    if (kind == "call_expression" and _is(parent, "function", node)) or kind == "new_expression":
        return True
    if kind == "member_expression" and _is(parent, "object", node):
        return ref.module != "child_process" or program.key(parent) in ("call", "apply", "bind")
    if kind == "arguments" and parent.parent is not None and parent.parent.type == "call_expression":
        function = parent.parent.child_by_field_name("function")
        return function is not None and program.text(function).endswith("promisify")
    if kind in _CALLABLE_USES and ref.module != "child_process":
        return True
    return _bound(node, parent, patterns=False)


def _exported(program: Program, statement: Node) -> bool:
    source = statement.child_by_field_name("source")
    return source is not None and _module(program, source) == "child_process"


def _module(program: Program, node: Node) -> str | None:
    spec = program.literal(node)
    return module_name(spec) if spec is not None else None


def _mentioned(program: Program, node: Node) -> bool:
    """Whether `node` names `child_process` somewhere other than where a module is loaded."""
    raw = program.text(node)
    if node.type == "string" and "process" not in raw and "\\" not in raw:
        return False  # the common case, decided without decoding
    if _module(program, node) != "child_process":
        return False
    node, parent = _use(node)
    if parent is None:
        return True
    if parent.type in ("import_statement", "export_statement"):
        return parent.type == "export_statement"
    if parent.type == "arguments" and parent.parent is not None and parent.parent.type == "call_expression":
        target, function, args = program.callee(parent.parent)
        return not (program.loads(target, function) and args and args[0] == node)
    if parent.type == "variable_declarator" and _is(parent, "value", node):
        name = parent.child_by_field_name("name")
        if name is not None and name.type == "identifier":
            return not all(_loaded(program, read) for read in program.scan.reads.get(program.text(name), ()))
    return True


def _loaded(program: Program, node: Node) -> bool:
    """Whether `node` is the module name a `require`/`import()` loads."""
    node, parent = _use(node)
    call = parent.parent if parent is not None and parent.type == "arguments" else None
    if call is None or call.type != "call_expression":
        return False
    target, function, args = program.callee(call)
    return program.loads(target, function) and bool(args) and args[0] == node
