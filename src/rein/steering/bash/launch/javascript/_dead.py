"""Code that certainly never runs, so its calls launch nothing: a function the program declares (a
`function` declaration, or a constant holding a function) that nothing calls or mentions, and a
`Function(...)` whose function is dropped or held in a name nothing reads.

Certain only when no other way can reach the function: its name is written nowhere else in the text
(strings decoded, comments too), it is not exported, nothing names the global object (`globalThis`,
`this`, ...), through which a computed name reaches a global function, no code runs from a string
(`eval("dan" + "ger()")`), and no file or `data:` module is loaded (its code may call a global).
"""

from __future__ import annotations

import re

from rein.steering.bash.launch._tree import Node
from rein.steering.bash.launch.javascript._expr import Program
from rein.steering.bash.launch.javascript._scan import unwrap

_FUNCTIONS = frozenset({"arrow_function", "function_expression", "function", "generator_function"})
_DECLARED = frozenset({"function_declaration", "generator_function_declaration"})


def dead(program: Program) -> tuple[Node, ...]:
    """The functions of `program` that never run."""
    scan = program.scan
    if scan.has_with or program.global_object or program.dynamic or _loads_code(program):
        return ()
    candidates: dict[str, Node] = {}
    for name, writes in scan.writes.items():
        function = _function(writes[0]) if len(writes) == 1 else None
        if function is not None and not _exported(function):
            candidates[name] = function
    found: dict[str, Node] = {}
    changed = True
    while changed:  # a function only a dead function calls is dead too
        changed = False
        for name, function in candidates.items():
            if name in found:
                continue
            reads = scan.reads.get(name, ())
            inside = (*found.values(), function)
            if all(any(_within(read, body) for body in inside) for read in reads) and (
                _mentions(program, name) == 1 + len(reads)
            ):
                found[name] = function
                changed = True
    return tuple(found.values())


def unused(program: Program, call: Node) -> bool:
    """Whether the value of `call` (a `Function(...)`) is certainly never used: dropped as a statement,
    or held in a constant nothing mentions."""
    node, parent = call, call.parent
    while parent is not None and parent.type == "parenthesized_expression":
        node, parent = parent, parent.parent
    if parent is None:
        return False
    if parent.type == "expression_statement":
        return True
    if parent.type != "variable_declarator" or parent.child_by_field_name("value") != node:
        return False
    name = parent.child_by_field_name("name")
    if name is None or name.type != "identifier" or program.scan.has_with or program.global_object:
        return False
    text = program.text(name)
    return len(program.scan.writes.get(text, ())) == 1 and _mentions(program, text) == 1


def within(node: Node, functions: tuple[Node, ...]) -> bool:
    return any(_within(node, function) for function in functions)


def _within(node: Node, outer: Node) -> bool:
    return outer.start_byte <= node.start_byte < outer.end_byte


def _function(write: Node) -> Node | None:
    """The function a name's only write declares or holds."""
    parent = write.parent
    if parent is None:
        return None
    if parent.type in _DECLARED and parent.child_by_field_name("name") == write:
        return parent
    if parent.type == "variable_declarator" and parent.child_by_field_name("name") == write:
        value = parent.child_by_field_name("value")
        value = unwrap(value) if value is not None else None
        return value if value is not None and value.type in _FUNCTIONS else None
    return None


def _exported(function: Node) -> bool:
    node: Node | None = function
    for _ in range(4):  # `export function f`, `export const f = () => ...`
        node = node.parent if node is not None else None
        if node is not None and node.type == "export_statement":
            return True
    return False


def _loads_code(program: Program) -> bool:
    """Whether the program loads a module that is code beside it (`./x.js`, `data:...`), not a package."""
    specs = [program.callee(call) for call in program.scan.calls]
    loaded = [
        program.literal(args[0])
        for target, function, args in specs
        if program.loads(target, function) and args
    ]
    sources = [
        program.literal(string)
        for string in program.scan.strings
        if string.parent is not None and string.parent.type in ("import_statement", "export_statement")
    ]
    return any(spec is None or not _package(spec) for spec in (*loaded, *sources))


def _package(spec: str) -> bool:
    """A node built-in or an installed package, not a path or URL."""
    return not spec.startswith((".", "/", "~")) and ":" not in spec.removeprefix("node:")


def _mentions(program: Program, name: str) -> int:
    """How often `name` is written in the text, and in its strings decoded (`"\\u0066"` names `f`)."""
    word = re.compile(rf"(?<![\w$]){re.escape(name)}(?![\w$])")
    count = len(word.findall(program.src.decode("utf-8", "replace")))
    for string in program.scan.strings:
        raw = program.text(string)
        if "\\" in raw:
            decoded = "".join(part for part in program.string(string) if isinstance(part, str))
            count += len(word.findall(decoded))
    return count
