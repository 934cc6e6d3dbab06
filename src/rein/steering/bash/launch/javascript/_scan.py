"""One pass over a JavaScript syntax tree: the nodes the JavaScript reader looks at again.

It collects the calls, every name's reads and writes (declarations, assignments, parameters, imports,
destructuring), the member accesses, the re-exports, the strings (where a module name may be
mentioned) and the parse errors. It judges nothing: the scope and the reader do. Also the small
questions every reader module asks of a node: the expression inside parentheses, a call's callee and
its arguments.
"""

from __future__ import annotations

from dataclasses import dataclass

from rein.steering.bash.launch._tree import Node
from rein.steering.bash.launch.javascript._values import decode

IDENTIFIERS = frozenset(
    {
        "identifier",
        "property_identifier",
        "shorthand_property_identifier",
        "shorthand_property_identifier_pattern",
    }
)
_WRAPPERS = frozenset({"parenthesized_expression", "await_expression", "sequence_expression"})
_PATTERNS = frozenset(
    {"object_pattern", "array_pattern", "rest_pattern", "formal_parameters", "pair_pattern"}
)
_NAMED = frozenset({
    "function_declaration", "function_expression", "generator_function_declaration", "generator_function",
    "class_declaration", "class", "function",
})  # fmt: skip
_FIELD_WRITES = {
    "variable_declarator": "name",
    "assignment_expression": "left",
    "augmented_assignment_expression": "left",
    "assignment_pattern": "left",
    "object_assignment_pattern": "left",
    "arrow_function": "parameter",
    "catch_clause": "parameter",
    "for_in_statement": "left",
}


@dataclass(frozen=True, slots=True)
class Scan:
    """The nodes of one program the reader looks at, each list in source order."""

    calls: tuple[Node, ...]
    """`call_expression` (tagged templates too) and `new_expression` nodes."""
    reads: dict[str, list[Node]]
    """Where each name is read (identifiers, and `{name}` shorthand properties)."""
    writes: dict[str, list[Node]]
    """Where each name is bound or assigned: declarations, parameters, imports, destructuring."""
    members: tuple[Node, ...]
    """`member_expression` and `subscript_expression` nodes."""
    exports: tuple[Node, ...]
    """`export ... from '<module>'` statements: a module re-exported."""
    strings: tuple[Node, ...]
    """Strings and outermost `+` concatenations: where a module's name may be mentioned."""
    patterns: tuple[Node, ...]
    """`pair_pattern` nodes: `{key: name}` destructuring."""
    errors: tuple[Node, ...]
    """`ERROR` nodes: text the grammar could not parse."""
    has_with: bool
    """A `with` statement: names inside it may be read from an object, so none is a known constant."""


def scan(root: Node) -> Scan:
    calls: list[Node] = []
    members: list[Node] = []
    exports: list[Node] = []
    strings: list[Node] = []
    patterns: list[Node] = []
    errors: list[Node] = []
    reads: dict[str, list[Node]] = {}
    writes: dict[str, list[Node]] = {}
    has_with = False
    stack: list[tuple[Node, Node | None]] = [(root, None)]
    while stack:
        node, parent = stack.pop()
        kind = node.type
        if kind in ("call_expression", "new_expression"):
            calls.append(node)
        elif kind in ("member_expression", "subscript_expression"):
            members.append(node)
        elif kind in ("identifier", "shorthand_property_identifier_pattern", "shorthand_property_identifier"):
            name = node.text.decode("utf-8", "replace") if node.text is not None else ""
            name = decode(name) if "\\" in name else name  # `\u0065val` is `eval`
            written = _binding(node, parent)
            if written is not None:
                (writes if written else reads).setdefault(name, []).append(node)
        elif kind in ("string", "template_string") or (
            kind == "binary_expression" and _outer_plus(node, parent)
        ):
            strings.append(node)
        elif kind == "pair_pattern":
            patterns.append(node)
        elif kind == "export_statement" and node.child_by_field_name("source") is not None:
            exports.append(node)
        elif kind == "ERROR":
            errors.append(node)
        elif kind == "with_statement":
            has_with = True
        stack.extend((child, node) for child in reversed(node.named_children))
    return Scan(
        tuple(calls), reads, writes, tuple(members), tuple(exports), tuple(strings), tuple(patterns),
        tuple(errors), has_with,
    )  # fmt: skip


def _binding(node: Node, parent: Node | None) -> bool | None:
    """True when `node` binds or assigns its name, False when it reads it, None when it is neither (the
    imported name of `import {a as b}`)."""
    if node.type == "shorthand_property_identifier_pattern":
        return True
    if node.type == "shorthand_property_identifier" or parent is None:
        return False
    kind = parent.type
    if kind in _PATTERNS or kind in ("update_expression", "namespace_import", "import_clause"):
        return True
    if kind == "import_specifier":
        alias = parent.child_by_field_name("alias")
        return True if alias is None or alias == node else None
    if kind in _NAMED:
        return parent.child_by_field_name("name") == node
    field = _FIELD_WRITES.get(kind)
    return field is not None and parent.child_by_field_name(field) == node


def _outer_plus(node: Node, parent: Node | None) -> bool:
    operator = node.child_by_field_name("operator")
    if operator is None or operator.type != "+":
        return False
    if parent is None or parent.type != "binary_expression":
        return True
    outer = parent.child_by_field_name("operator")
    return outer is None or outer.type != "+"


def unwrap(node: Node) -> Node:
    """The expression inside parentheses, `await` and a comma sequence (`(0, eval)` is `eval`)."""
    while node.type in _WRAPPERS:
        inner = last(node)
        if inner is None:
            break
        node = inner
    return node


def last(node: Node) -> Node | None:
    named = [child for child in node.named_children if child.type != "comment"]
    return named[-1] if named else None


def arguments(call: Node) -> tuple[Node, ...]:
    """The argument expressions of a call; a tagged template is its one argument."""
    args = call.child_by_field_name("arguments")
    if args is None:
        return ()
    if args.type == "template_string":
        return (args,)
    return tuple(child for child in args.named_children if child.type != "comment")


def tagged(call: Node) -> Node | None:
    """The template of a tagged template (`` $`ls` ``), which the grammar reads as a call."""
    args = call.child_by_field_name("arguments")
    return args if args is not None and args.type == "template_string" else None


def callee_node(call: Node) -> Node | None:
    return call.child_by_field_name("function") or call.child_by_field_name("constructor")
