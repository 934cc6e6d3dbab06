"""Where a JavaScript name takes its values from: the loop or the function that binds it around a
read, the position of a parameter, the `forEach` a callback is passed to, the name a helper is called
by. The syntax only: `_loops` decides what values they give.
"""

from __future__ import annotations

from rein.steering.bash.launch._tree import Node
from rein.steering.bash.launch.javascript._expr import Program
from rein.steering.bash.launch.javascript._scan import callee_node, unwrap

ITERATORS = frozenset({"forEach", "map", "flatMap", "filter", "some", "every", "find", "findIndex"})
"""Array methods that call their callback with each element first."""
_FUNCTIONS = frozenset({"arrow_function", "function_expression", "function_declaration", "function"})
_BINDERS = _FUNCTIONS | {"for_in_statement"}
BINDING_PARENTS = frozenset({"for_in_statement", "arrow_function", "formal_parameters", "rest_pattern"})
"""Where a write of a name is a loop's variable or a parameter."""


def binder(read: Node, name: str) -> Node | None:
    """The innermost loop or function around `read` that binds `name`."""
    node: Node | None = read.parent
    child = read
    while node is not None:
        if node.type in _BINDERS and bound_here(node, name, child):
            return node
        child, node = node, node.parent
    return None


def bound_here(binder: Node, name: str, child: Node) -> bool:
    if binder.type == "for_in_statement":
        left = binder.child_by_field_name("left")
        body = binder.child_by_field_name("body")
        return left is not None and left.type == "identifier" and left.text == name.encode() and child == body
    return position(binder, name) is not None


def position(function: Node, name: str) -> tuple[int, bool] | None:
    """The index of the plain parameter `name` (or `...name`), and whether it is the rest."""
    single = function.child_by_field_name("parameter")
    if single is not None:
        return (0, False) if single.text == name.encode() else None
    params = function.child_by_field_name("parameters")
    named = [child for child in params.named_children if child.type != "comment"] if params else []
    for index, param in enumerate(named):
        if param.type == "identifier" and param.text == name.encode():
            return index, False
        if param.type == "rest_pattern" and param.named_children:
            inner = param.named_children[0]
            if inner.type == "identifier" and inner.text == name.encode():
                return index, True
    return None


def inside(node: Node, outer: Node) -> bool:
    return outer.start_byte <= node.start_byte < outer.end_byte


def called_by(function: Node) -> Node | None:
    """The `list.forEach(...)` (or kin) call `function` is the callback of."""
    holder = function.parent
    call = holder.parent if holder is not None and holder.type == "arguments" else None
    if call is None or call.type != "call_expression" or holder is None:
        return None
    callee = callee_node(call)
    if callee is None or callee.type != "member_expression":
        return None
    prop = callee.child_by_field_name("property")
    first = [child for child in holder.named_children if child.type != "comment"][:1]
    if prop is None or prop.text is None or prop.text.decode() not in ITERATORS or first != [function]:
        return None
    return call


def helper_name(program: Program, function: Node) -> str | None:
    """The name a helper is called by: a function declaration's, or a constant's holding it; None
    when it has another, or may be reached another way (the global object for a `var` or a declared
    function)."""
    if function.type == "function_declaration":
        name_node = function.child_by_field_name("name")
        name = program.text(name_node) if name_node is not None else ""
        writes = program.scan.writes.get(name, [])
        return name if name and len(writes) == 1 and program.vars else None
    parent = function.parent
    if parent is None or parent.type != "variable_declarator":
        return None
    name_node = parent.child_by_field_name("name")
    if name_node is None or name_node.type != "identifier":
        return None
    name = program.text(name_node)
    value = program.const(name)
    return name if value is not None and unwrap(value) == function else None
