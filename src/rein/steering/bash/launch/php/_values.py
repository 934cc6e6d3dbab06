"""PHP values as far as they are known statically: single-quoted and nowdoc literals, double-quoted
strings, heredocs and backticks with their escapes and `$var`/`{$...}` interpolations folded or a
run-time hole, `.` concatenation, array literals, the home directory (`getenv('HOME')`,
`$_SERVER['HOME']`, `$_ENV['HOME']`) and other environment variables rein knows, the working directory
(`getcwd()`), `dirname()`, and variables assigned once from such a value whose every other use only
reads them (or fixed to one value of a `foreach` over a known array). A literal `~` is no home.

It does not evaluate function calls (`sprintf`, `implode`, ...): their values are built at run time.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from rein.steering.bash.launch._folding import (
    CWD_VALUE,
    MAX_ITEMS,
    RUNTIME_VALUE,
    SPREAD,
    Value,
    char,
    environment,
    literal,
    parent,
    walk,
)
from rein.steering.bash.launch._script_reader import ScriptValues
from rein.steering.bash.launch._tree import Node

_ALL = 1 << 8
_READERS = {"system": 1, "exec": 1, "passthru": 1, "proc_open": 2, "shell_exec": _ALL, "popen": _ALL,
            "pcntl_exec": _ALL, "expect_popen": _ALL, "call_user_func": _ALL, "call_user_func_array": _ALL,
            "array_map": _ALL, "unlink": _ALL, "rmdir": _ALL, "printf": _ALL, "getenv": _ALL}  # fmt: skip
"""Functions that take their first so many arguments by value (`exec` writes `$output`), so passing a
variable there only reads it."""
_UNBINDING = frozenset({"extract", "parse_str", "mb_parse_str", "eval", "assert", "create_function",
                        "import_request_variables"})  # fmt: skip
"""Calls that may write variables by name: any of them makes no variable foldable."""
_TEXT = frozenset({"string_content", "escape_sequence", "nowdoc_string"})
_ESCAPE = re.compile(r"\\(?:u\{([0-9a-fA-F]+)\}|x([0-9a-fA-F]{1,2})|([0-7]{1,3})|([ntrvef\\$\"]))")
_SIMPLE = {"n": "\n", "t": "\t", "r": "\r", "v": "\v", "e": "\x1b", "f": "\f"}


def _escape(match: re.Match[str]) -> str:
    braces, hexa, octal, simple = match.groups()
    if braces or hexa:
        return char(int(braces or hexa, 16))
    if octal:
        return char(int(octal, 8) & 0xFF)
    return _SIMPLE.get(simple, simple)


def function_name(written: str) -> str:
    """A function's name as PHP resolves it: case-insensitive, namespace-free (`\\SYSTEM` is `system`;
    an unqualified call in a namespace falls back to the global function)."""
    return written.rsplit("\\", 1)[-1].lower()


class Values(ScriptValues):
    """Folds the values of one PHP program."""

    def __init__(self, root: Node, src: bytes, env: Mapping[str, str]) -> None:
        super().__init__(src, env)
        for node in walk(root):
            if node.type == "variable_name":
                self._bind(node)
            elif node.type in ("dynamic_variable_name", "reference_modifier"):
                self.bindings.off = True  # `$$name`, `&$x`: a variable written through another name
            elif node.type == "function_call_expression" and self.called(node) in _UNBINDING:
                self.bindings.off = True

    def called(self, call: Node) -> str:
        """The function a call names (lowercase, namespace-free); the class of a `new`, the method
        of a `Class::method()`; "" when the name is built at run time."""
        function = call.child_by_field_name("function") or call.child_by_field_name("name")
        if function is None and call.type == "object_creation_expression":
            function = next((c for c in call.named_children if c.type in ("name", "qualified_name")), None)
        return (
            function_name(self.name(function))
            if function is not None and function.type != "variable_name"
            else ""
        )

    def _bind(self, node: Node) -> None:
        key = self.name(node)
        parent = node.parent
        if parent is None or key in ("$GLOBALS", "$this"):
            self.bindings.off = self.bindings.off or key == "$GLOBALS"
            return
        if parent.type == "assignment_expression" and parent.child_by_field_name("left") == node:
            right = parent.child_by_field_name("right")
            if right is None:
                self.bindings.poison(key, node)
            else:
                self.bindings.assign(key, right)
        elif not self._reads(node, parent):
            self.bindings.poison(key, node)

    def _reads(self, node: Node, parent: Node) -> bool:
        """Whether this use of a variable only reads it."""
        kind = parent.type
        if kind in ("encapsed_string", "heredoc_body", "shell_command_expression", "binary_expression"):
            return True
        if kind in ("parenthesized_expression", "echo_statement", "sequence_expression", "print_intrinsic"):
            return True
        if kind == "foreach_statement":  # `foreach ($list as $x)` reads `$list` (`&$x` turns folding off)
            return parent.named_children[:1] == [node]
        if kind == "function_call_expression":
            return parent.child_by_field_name("function") == node  # `$f(...)` reads `$f`
        if kind == "subscript_expression":
            holder = parent.parent
            return holder is None or holder.type not in (
                "assignment_expression",
                "augmented_assignment_expression",
            )
        if kind == "argument" and parent.parent is not None and parent.parent.parent is not None:
            call = parent.parent.parent
            count = _READERS.get(self.called(call), 0) if call.type == "function_call_expression" else 0
            index = next((i for i, arg in enumerate(parent.parent.named_children) if arg == parent), 0)
            return index < count
        return False

    def bound(self, node: Node) -> Node | None:
        """What a variable was assigned, when it is foldable."""
        return self.bindings.get(self.name(node)) if node.type == "variable_name" else None

    def fold(self, node: Node) -> Value:
        kind = node.type
        if kind == "string":
            children = node.children
            raw = self.src[children[0].end_byte : children[-1].start_byte] if len(children) > 1 else b""
            return literal(re.sub(r"\\([\\'])", r"\1", raw.decode("utf-8", "replace")))
        if kind == "encapsed_string":
            return self.command(node)
        if kind == "heredoc":
            body = node.child_by_field_name("value")
            return self._pieces(body.children, strip=True) if body is not None else literal("")
        if kind == "nowdoc":
            body = node.child_by_field_name("value")
            return literal(self.name(body).removeprefix("\n"))
        if kind in ("integer", "float"):
            return literal(self.name(node))
        if kind == "variable_name":
            return self.variable(self.name(node))
        if kind == "binary_expression":
            op, left, right = (node.child_by_field_name(f) for f in ("operator", "left", "right"))
            if op is not None and op.type == "." and left is not None and right is not None:
                return self.fold(left) + self.fold(right)
        if kind == "parenthesized_expression" and node.named_child_count == 1:
            return self.fold(node.named_children[0])
        if kind == "subscript_expression" and node.named_child_count == 2:
            array, key = node.named_children
            if self.name(array) in ("$_SERVER", "$_ENV"):
                return environment(self.env, self.fold(key).text)
        if kind == "function_call_expression":
            return self._call(node)
        return RUNTIME_VALUE

    def _call(self, node: Node) -> Value:
        """`getenv(...)`, `getcwd()`, `dirname(...)`: the paths they give."""
        called = self.called(node)
        args = self.arguments(node)
        if called == "getenv" and len(args) == 1:
            return environment(self.env, self.fold(args[0]).text)
        if called == "getcwd" and not args:
            return CWD_VALUE
        if called == "dirname" and len(args) == 1:
            return parent(self.fold(args[0]))
        return RUNTIME_VALUE

    def command(self, node: Node) -> Value:
        """The body of a double-quoted string or of backticks (whose value as an expression is the
        command's output, built at run time)."""
        return self._pieces(node.children[1:-1])

    def _pieces(self, children: list[Node], strip: bool = False) -> Value:
        """A double-quoted body: escapes decoded, each interpolation folded (the `{}` of `{$x}` are
        tokens of their own)."""
        value = Value()
        raw = b""
        for child in [*children, None]:
            if child is not None and child.type in _TEXT:
                raw += self.src[child.start_byte : child.end_byte]
                continue
            if raw:
                decoded = raw.decode("utf-8", "replace")
                value += literal(
                    _ESCAPE.sub(_escape, decoded.removeprefix("\n") if strip and not value.parts else decoded)
                )
                raw = b""
            if child is not None and child.is_named and child.type != "heredoc_end":
                value += self.fold(child)
        return value

    def arguments(self, call: Node) -> list[Node]:
        """The argument expressions of a call (`...$args` is a `variadic_unpacking`)."""
        args = call.child_by_field_name("arguments")
        args = args or next((child for child in call.named_children if child.type == "arguments"), None)
        if args is None:
            return []
        out: list[Node] = []
        for arg in args.named_children:
            inner = [c for c in arg.named_children if c.type not in ("reference_modifier", "name")]
            out.extend(inner[-1:] if arg.type == "argument" else [arg])
        return out

    def items(self, node: Node) -> list[Value] | None:
        """The values of an array literal (or a variable holding one); None if `node` is none."""
        if node.type == "variable_name":
            return self._lists.resolve(self.bindings.get(self.name(node)), self.items, None)
        if node.type != "array_creation_expression":
            return None
        out = [self.spread(value) for value in self.elements(node)]
        return out if len(out) <= MAX_ITEMS else [SPREAD]

    def elements(self, node: Node) -> list[Node]:
        """The value expressions of an array literal; a spread `...$x` is itself."""
        out: list[Node] = []
        for element in node.named_children:
            inner = [c for c in element.named_children if c.type != "comment"]
            out.append(inner[-1] if element.type == "array_element_initializer" and inner else element)
        return out

    def spread(self, node: Node) -> Value:
        return SPREAD if node.type in ("variadic_unpacking", "variadic_placeholder") else self.fold(node)
