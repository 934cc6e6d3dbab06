"""Ruby loops over a known list, whose variable takes each of its values: `%w[a b].each { |c| ... }`
(and `map`, `each_entry` and kin, with `do ... end` too) and `for c in [...]`. A call in the body is
read once per value; a loop whose variable the body may change (`c << "x"`, passed where rein cannot
see) is read as ever, its variable built at run time.
"""

from __future__ import annotations

from rein.steering.bash.launch._bindings import Loop, loop
from rein.steering.bash.launch._tree import Node
from rein.steering.bash.launch.ruby._values import Values

_EACH = frozenset(
    {"each", "map", "collect", "flat_map", "each_entry", "select", "filter", "reject", "filter_map"}
)


def loop_of(values: Values, node: Node) -> Loop | None:
    """The loop `node` is, when it is one over a known list."""
    if node.type == "for":
        pattern = node.child_by_field_name("pattern")
        source = node.child_by_field_name("value")
        listed = source.named_children[0] if source is not None and source.named_children else None
        if pattern is None or pattern.type != "identifier" or listed is None:
            return None
        body = node.child_by_field_name("body")  # `for` binds a variable of the scope around it
        return loop(values.bindings, values.name(pattern), values.items(listed), body, shared=node)
    if node.type != "call" or values.name(node.child_by_field_name("method")) not in _EACH:
        return None
    receiver = node.child_by_field_name("receiver")
    block = node.child_by_field_name("block")
    if receiver is None or block is None:
        return None
    params = block.child_by_field_name("parameters")
    names = [child for child in params.named_children if child.type != "comment"] if params else []
    if len(names) != 1 or names[0].type != "identifier":
        return None
    return loop(
        values.bindings, values.name(names[0]), values.items(receiver), block.child_by_field_name("body")
    )
