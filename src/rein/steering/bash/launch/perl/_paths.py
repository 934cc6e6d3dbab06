"""Perl functions whose value is a path rein knows: `glob(...)` and `<...>` (globs, `~` expanded),
`getcwd()`/`cwd()` (the working directory), `dirname(...)` (File::Basename), the home field of
`getpwuid($<)`. A sub of the same name the program defines is no built-in.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rein.steering.bash.launch._folding import CWD_VALUE, RUNTIME_VALUE, Value, globbed, parent
from rein.steering.bash.launch._tree import Node

if TYPE_CHECKING:
    from rein.steering.bash.launch.perl._values import Values

CALLS = frozenset(
    {"function_call_expression", "ambiguous_function_call_expression", "func1op_call_expression"}
)


def call_value(values: Values, node: Node) -> Value:
    """`glob(...)`, `getcwd()`, `dirname(...)`: the path they give; anything else built at run time."""
    written = values.function(node)
    name = written.rsplit("::", 1)[-1]
    if written in values.subs:
        return RUNTIME_VALUE
    args = node.child_by_field_name("arguments")
    elements = list(values.elements(args)) if args is not None else []
    if name in ("getcwd", "cwd") and not elements:
        return CWD_VALUE
    if name in ("glob", "bsd_glob") and elements:
        return globbed(values.fold(elements[0]))
    if name == "dirname" and len(elements) == 1:
        return parent(values.fold(elements[0]))
    return RUNTIME_VALUE


def home_entry(values: Values, node: Node) -> bool:
    """`(getpwuid($<))[7]`: the home directory field of the user's password entry."""
    listed = node.child_by_field_name("list")
    index = [child for child in node.named_children if child.type == "number"]
    called = values.function(listed) if listed is not None and listed.type in CALLS else ""
    return called == "getpwuid" and [values.name(child) for child in index] == ["7"]
