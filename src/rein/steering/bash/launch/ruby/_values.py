"""Ruby values as far as they are known statically: string literals of every quoting (escapes decoded,
`#{...}` folded or a run-time hole), symbols, heredocs, `+` concatenation, arrays and `%w[]`, the home
directory (`Dir.home`, `ENV['HOME']`, `File.expand_path('~')`), the working directory (`Dir.pwd`),
`File.join`, `File.dirname`, `File.expand_path`, globs (`Dir.glob(p)`, `Dir[p]`), `ENV['X']` from the
environment rein knows, and local variables or constants assigned once from such a value (or fixed
to one value of a loop). A literal `~` is no home directory: only `File.expand_path` expands it.

It does not evaluate method calls beyond those: any other value is one built at run time.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from rein.steering.bash.launch._folding import (
    MAX_ITEMS,
    RUNTIME_VALUE,
    SPREAD,
    Value,
    globbed,
    literal,
    walk,
)
from rein.steering.bash.launch._script_reader import ScriptValues
from rein.steering.bash.launch._tree import Node
from rein.steering.bash.launch.ruby._paths import env_value, path_value
from rein.steering.bash.launch.ruby._strings import single, unescape

VARIABLES = frozenset({"identifier", "constant", "instance_variable", "global_variable", "class_variable"})
SAFE_CALLS = frozenset({"system", "exec", "spawn", "puts", "print", "p", "popen", "open", "warn", "abort"})
"""Calls that only read the variables passed to them, so passing one keeps it foldable."""
_READS = frozenset({
    "", "call", "yield", "to_s", "to_str", "freeze", "dup", "clone", "itself", "empty?", "nil?", "length",
    "size", "include?", "start_with?", "end_with?", "[]", "each", "map", "collect", "flat_map", "each_entry",
    "select", "filter", "reject", "filter_map",
})  # fmt: skip
"""Methods that only read their receiver (a block that changes its elements writes its own variable)."""
_UNBINDING = frozenset({"eval", "instance_eval", "class_eval", "module_eval", "binding", "local_variable_set",
                        "instance_variable_set", "const_set", "class_variable_set", "send", "__send__",
                        "public_send"})  # fmt: skip
"""Calls that may write variables by name: any of them makes no variable foldable."""
_CHANGING = frozenset({"parenthesized_statements", "call", "binary", "element_reference"})
_PASSTHROUGH = frozenset({"to_s", "to_str", "freeze", "dup", "clone", "itself", "then"})


class Values(ScriptValues):
    """Folds the values of one Ruby program."""

    def __init__(self, root: Node, src: bytes, env: Mapping[str, str]) -> None:
        super().__init__(src, env)
        self._heredocs: dict[int, Node] = {}
        beginnings: list[Node] = []
        bodies: list[Node] = []
        for node in walk(root):
            if node.type == "heredoc_beginning":
                beginnings.append(node)
            elif node.type == "heredoc_body":
                bodies.append(node)
            elif node.type in VARIABLES:
                self._bind(node)
            elif node.type == "call" and self.name(node.child_by_field_name("method")) in _UNBINDING:
                self.bindings.off = True
        self._heredocs = {begin.id: body for begin, body in zip(beginnings, bodies, strict=False)}

    def _bind(self, node: Node) -> None:
        parent = node.parent
        if parent is None:
            return
        field = _field(parent, node)
        kind = parent.type
        if node.type == "global_variable" and not re.fullmatch(r"\$[A-Za-z]\w*", self.name(node)):
            return  # `$_`, `$~`, `$1`: Ruby sets them itself, so they are never folded
        if kind == "assignment" and field == "left":
            right = parent.child_by_field_name("right")
            holder = parent.parent
            if right is None or (holder is not None and holder.type in _CHANGING):
                self.bindings.poison(self.name(node), node)  # `(x = "ls") << " -rf"` changes what it assigns
            else:
                self.bindings.assign(self.name(node), right)
            return
        if kind == "call" and field == "method":
            return
        if (
            kind == "call"
            and field == "receiver"
            and self.name(parent.child_by_field_name("method")) in _READS
        ):
            return
        if kind == "splat_argument" and parent.parent is not None:
            node, parent = parent, parent.parent
            kind = parent.type
        if kind == "interpolation" or (kind == "binary" and _operator(parent) != "<<"):
            return
        call = parent.parent
        if (
            kind == "argument_list"
            and call is not None
            and self.name(call.child_by_field_name("method")) in SAFE_CALLS
        ):
            return
        if kind == "element_reference" and field == "object":
            holder = parent.parent
            if holder is None or holder.type not in ("assignment", "operator_assignment"):
                return
        self.bindings.poison(self.name(node), node)

    def fold(self, node: Node) -> Value:
        kind = node.type
        if kind in ("string", "delimited_symbol", "bare_string", "bare_symbol"):
            return self._string(node)
        if kind == "simple_symbol":
            return literal(self.name(node)[1:])
        if kind in ("hash_key_symbol", "integer", "float"):
            return literal(self.name(node))
        if kind == "character":  # `?a`
            return literal(self.name(node)[1:]) if len(self.name(node)) == 2 else RUNTIME_VALUE
        if kind == "chained_string":
            return sum((self.fold(child) for child in node.named_children), Value())
        if kind == "heredoc_beginning" and "`" not in self.name(node):  # a command's output is not known
            return self.heredoc(node)
        if kind in VARIABLES:
            return self.variable(self.name(node))
        if kind == "binary" and _operator(node) == "+":
            left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
            if left is not None and right is not None:
                return self.fold(left) + self.fold(right)
        if kind == "parenthesized_statements" and node.named_child_count == 1:
            return self.fold(node.named_children[0])
        if kind == "assignment":  # `x = y = "ls"`
            right = node.child_by_field_name("right")
            return self.fold(right) if right is not None else RUNTIME_VALUE
        if kind == "element_reference":
            receiver = node.child_by_field_name("object")
            if self.name(receiver).lstrip(":") == "Dir" and len(node.named_children) == 2:
                return globbed(self.fold(node.named_children[1]))  # `Dir["/x/*"]`
            return env_value(self, receiver, node.named_children[1:])
        if kind == "call":
            return self._call(node)
        return RUNTIME_VALUE

    def string(self, node: Node) -> Value:
        """A quoted body, also of backticks and `%x()`, which fold like a double-quoted string."""
        return self._string(node)

    def _string(self, node: Node) -> Value:
        children = node.children
        opening = children[0].type if children and not children[0].is_named else ""
        opening_text = self.name(children[0]) if opening else ""
        start = children[0].end_byte if opening else node.start_byte
        end = children[-1].start_byte if len(children) > 1 and not children[-1].is_named else node.end_byte
        if opening_text.startswith(("'", "%q", "%s", ":'", "%w", "%i")):
            raw = self.src[start:end].decode("utf-8", "replace")
            return literal(single(raw, self.name(children[-1]) if len(children) > 1 else "'"))
        holes = [child for child in node.named_children if child.type == "interpolation"]
        return self._pieces(start, end, holes)

    def _pieces(self, start: int, end: int, holes: list[Node]) -> Value:
        """A double-quoted body from `start` to `end`: escapes decoded, each `#{...}` folded."""
        value, pos = Value(), start
        for hole in [*holes, None]:
            stop = end if hole is None else hole.start_byte
            if stop > pos:
                value += literal(unescape(self.src[pos:stop].decode("utf-8", "replace")))
            if hole is not None:
                inner = hole.named_children
                value += self.fold(inner[0]) if len(inner) == 1 else RUNTIME_VALUE
                pos = hole.end_byte
        return value

    def heredoc(self, node: Node) -> Value:
        body = self._heredocs.get(node.id)
        if body is None:
            return RUNTIME_VALUE
        end_tag = next((child for child in body.children if child.type == "heredoc_end"), None)
        start = body.start_byte + (self.src[body.start_byte : body.start_byte + 1] == b"\n")
        end = body.end_byte if end_tag is None else end_tag.start_byte
        # At the very end of the text the grammar leaves the terminator line in the body.
        ident = self.name(node).lstrip("<~-").strip("'\"`").encode()
        chunk = self.src[start:end]
        cut = chunk.rstrip().rfind(b"\n")
        if chunk[cut + 1 :].strip() == ident:
            end = start + cut + 1
        while end > start and self.src[end - 1 : end] in (b" ", b"\t"):
            end -= 1  # the indentation of a `<<-`/`<<~` terminator
        if "'" in self.name(node):
            return literal(self.src[start:end].decode("utf-8", "replace"))
        return self._pieces(start, end, [child for child in body.children if child.type == "interpolation"])

    def _call(self, node: Node) -> Value:
        receiver = node.child_by_field_name("receiver")
        method = self.name(node.child_by_field_name("method"))
        args = self.arguments(node)
        known = path_value(self, node, receiver, method, args)
        if known is not None:
            return known
        if receiver is not None and method in _PASSTHROUGH and not args:
            return self.fold(receiver)
        if receiver is not None and method == "join" and len(args) <= 1:
            items = self.items(receiver)
            sep = self.fold(args[0]).text if args else ""
            if items is not None and sep is not None and not any(item.spread for item in items):
                return sum(_between(items, literal(sep)), Value())
        return RUNTIME_VALUE

    def arguments(self, call: Node) -> list[Node]:
        """The positional arguments of a call: keyword pairs and a block argument left out, an env
        or options hash kept (callers know where one may stand)."""
        args = call.child_by_field_name("arguments")
        if args is None:
            return []
        skipped = ("pair", "block_argument", "hash_splat_argument", "comment")
        return [child for child in args.named_children if child.type not in skipped]

    def items(self, node: Node) -> list[Value] | None:
        """The elements of an array literal (`[...]`, `%w[]`, a variable holding one); None if `node`
        is no array."""
        if node.type in VARIABLES:
            return self._lists.resolve(self.bindings.get(self.name(node)), self.items, None)
        if node.type == "parenthesized_statements" and node.named_child_count == 1:
            return self.items(node.named_children[0])
        if node.type not in ("array", "string_array", "symbol_array"):
            return None
        out: list[Value] = []
        for child in node.named_children:
            if child.type == "splat_argument":
                inner = child.named_children
                out.extend((self.items(inner[0]) if inner else None) or [SPREAD])
            elif child.type != "comment":
                out.append(self.fold(child))
        return out if len(out) <= MAX_ITEMS else [SPREAD]


def _between(items: list[Value], sep: Value) -> list[Value]:
    out: list[Value] = []
    for index, item in enumerate(items):
        out.extend([sep, item] if index else [item])
    return out


def _field(parent: Node, node: Node) -> str | None:
    for index, child in enumerate(parent.children):
        if child.id == node.id:
            return parent.field_name_for_child(index)
    return None


def _operator(node: Node) -> str:
    op = node.child_by_field_name("operator")
    return op.type if op is not None else ""
