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
_PASSING = frozenset({"||", "&&", "??"})
"""Operators whose value is an operand: `(exec || spawn)(...)` passes the function on."""
_CONSOLE = frozenset({"log", "info", "warn", "error", "debug", "dir", "table", "trace"})
_INSPECTED = frozenset({"name", "length", "toString"})
"""Properties of a function that only describe it."""


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
            followed = _module_use(program, node)
            lost = lost or not followed
            if not followed and _picked(program, node):
                escapes.append((node, ref))
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
    call = parent.parent if parent.type == "arguments" else None
    if call is not None and call.type == "call_expression":  # `Reflect.get(cp, "execSync")`
        return program.ref(call) is not None and parent.named_children[:1] == [node]
    return _bound(node, parent, patterns=True)


def _picked(program: Program, node: Node) -> bool:
    """Whether a function of the module is picked by a name built at run time (`cp[name]`,
    `Reflect.get(cp, name)`) and kept rather than called on the spot, where calls are matched."""
    node, parent = _use(node)
    if parent is None:
        return False
    if parent.type == "arguments" and parent.parent is not None:
        function = parent.parent.child_by_field_name("function")
        if function is None or not program.text(function).startswith("Reflect.get"):
            return False
        picked = parent.parent
    elif parent.type in ("member_expression", "subscript_expression") and _is(parent, "object", node):
        picked = parent
    else:
        return False
    picked, holder = _use(picked)
    return holder is None or not (holder.type == "call_expression" and _is(holder, "function", picked))


def _function_use(program: Program, node: Node, ref: Ref) -> bool:
    node, parent = _use(node)
    if parent is None:
        return False
    kind = parent.type
    if (kind == "call_expression" and _is(parent, "function", node)) or kind == "new_expression":
        return True
    if kind == "member_expression" and _is(parent, "object", node):
        key = program.key(parent)
        return ref.module != "child_process" or key in ("call", "apply", "bind") or key in _INSPECTED
    if kind == "arguments" and parent.parent is not None and parent.parent.type == "call_expression":
        return _inspects(program, parent.parent, node)
    if kind == "unary_expression":
        return True  # `typeof exec`, `!exec`: a look at the function, not a call of it
    if kind == "binary_expression":
        operator = parent.child_by_field_name("operator")
        return operator is not None and operator.type not in _PASSING  # `x instanceof Function`
    return _bound(node, parent, patterns=False)


def _inspects(program: Program, call: Node, node: Node) -> bool:
    """Whether a call passed the function only looks at it (`console.log(exec)`, `String(exec)`), or
    runs it where rein follows (`promisify(exec)`, `Reflect.apply(exec, ...)`)."""
    function = call.child_by_field_name("function")
    if function is None:
        return False
    text = program.text(function)
    if text.endswith("promisify"):
        return True
    args = call.child_by_field_name("arguments")
    first = args is not None and args.named_children[:1] == [node]
    if text == "Reflect.apply" and "Reflect" not in program.scan.writes:
        return first
    if text == "String" and "String" not in program.scan.writes:
        return True
    head, _, method = text.partition(".")
    return head == "console" and method in _CONSOLE and "console" not in program.scan.writes


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
