"""What a JavaScript options object sets (`{shell: true, input: "..."}`), and whether a value is true
in a condition, as far as the text says: a key set by a spread or a method, or an object built at run
time, may set anything.
"""

from __future__ import annotations

import enum

from rein.steering.bash.launch._tree import Node
from rein.steering.bash.launch.javascript._expr import Program
from rein.steering.bash.launch.javascript._scan import last, unwrap
from rein.steering.bash.launch.javascript._values import literal

_NAMES = frozenset({"identifier", "shorthand_property_identifier"})
_COMPARISONS = frozenset({"===", "!==", "==", "!=", "<", ">", "<=", ">=", "instanceof", "in"})


class Opt(enum.Enum):
    """An option an object does not set, or may set (a spread, a value built at run time)."""

    ABSENT = "absent"
    UNKNOWN = "unknown"


def option(program: Program, node: Node | None, key: str) -> Node | Opt:
    """The value an options object gives `key`."""
    if node is None:
        return Opt.ABSENT
    node = unwrap(node)
    if node.type == "object":
        found: Node | Opt = Opt.ABSENT
        for child in node.named_children:
            if child.type == "pair":
                name = program.key(child)
                value = child.child_by_field_name("value")
                if name is None or name == key:
                    found = value if name is not None and value is not None else Opt.UNKNOWN
            elif child.type == "shorthand_property_identifier" and program.text(child) == key:
                found = child
            elif child.type == "spread_element":
                inner = option(program, last(child), key)
                found = found if inner is Opt.ABSENT else inner
            elif child.type == "method_definition":
                name_node = child.child_by_field_name("name")
                found = Opt.UNKNOWN if name_node is None or program.text(name_node) == key else found
        return found
    if node.type in ("null", "undefined", "arrow_function", "function_expression"):
        return Opt.ABSENT  # no options, or a callback in their place
    if node.type in _NAMES:
        resolved = program.through(program.text(node), True, lambda owner, value: option(owner, value, key))
        return Opt.UNKNOWN if resolved is None else resolved
    return Opt.UNKNOWN


def flag(program: Program, value: Node | Opt) -> bool | None:
    """Whether an option is set; None when it is built at run time."""
    if value is Opt.ABSENT:
        return False
    return None if value is Opt.UNKNOWN else truthy(program, value)


def truthy(program: Program, node: Node) -> bool | None:
    """Whether a value is true in a condition; None when built at run time."""
    node = unwrap(node)
    kind = node.type
    if kind in ("true", "false", "null", "undefined"):
        return kind == "true"
    if kind == "number":
        try:
            return float(program.text(node).replace("_", "")) != 0
        except ValueError:
            return True  # 0x1, 1n: only a plain zero is false
    if kind == "unary_expression" and program.text(node).startswith("!"):
        inner = node.child_by_field_name("argument")
        negated = truthy(program, inner) if inner is not None else None
        return None if negated is None else not negated
    if kind in _NAMES:
        return program.through(program.text(node), False, truthy)
    if kind in ("string", "template_string"):
        parts = program.string(node)
        text = literal(parts)
        return (
            bool(text) if text is not None else any(isinstance(part, str) and part for part in parts) or None
        )
    if kind in ("object", "array", "arrow_function", "function_expression"):
        return True
    return None


def condition(program: Program, node: Node, depth: int = 0) -> bool:
    """Whether `node` is a comparison or a negation (`process.platform === "win32"`, `!isUnix`), or a
    constant holding one: true or false, never a string."""
    node = unwrap(node)
    if node.type == "identifier" and depth < 4:
        found = program.resolve(program.text(node))
        return found is not None and condition(found[0], found[1], depth + 1)
    if node.type == "unary_expression":
        return program.text(node).startswith("!")
    operator = node.child_by_field_name("operator") if node.type == "binary_expression" else None
    return operator is not None and operator.type in _COMPARISONS
