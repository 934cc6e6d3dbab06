"""Perl values as far as they are known statically: `'...'`/`q{}` literals, `"..."`/`qq{}`/heredocs
with their escapes (case changes `\\U...\\E` too) and interpolations folded or a run-time hole, `.`
concatenation, `qw()` and list flattening, `$ENV{HOME}` as the home directory, and `my` variables
assigned once from such a value whose every other use only reads them.

It does not evaluate function calls, `sprintf`, `join` or `x`: their values are built at run time.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping

from rein.steering.bash.launch._folding import (
    HOME_VALUE,
    MAX_ITEMS,
    RUNTIME_VALUE,
    SPREAD,
    Mark,
    Value,
    environment,
    globbed,
    literal,
    walk,
)
from rein.steering.bash.launch._script_reader import ScriptValues
from rein.steering.bash.launch._tree import Node, text
from rein.steering.bash.launch.perl._paths import call_value, home_entry
from rein.steering.bash.launch.perl._strings import Piece, cased, unescape

CALLS = frozenset(
    {"function_call_expression", "ambiguous_function_call_expression", "func1op_call_expression"}
)
_READERS = {"system": 0, "exec": 0, "print": 0, "say": 0, "printf": 0, "die": 0, "warn": 0,
            "readpipe": 0, "unlink": 0, "rmtree": 0, "remove_tree": 0, "run": 0, "run3": 0, "open": 1,
            "open2": 2, "open3": 3}  # fmt: skip
"""Functions that only read the variables passed to them, from this argument on."""
_LISTS = frozenset({"list_expression", "parenthesized_expression"})
_STATEMENTS = frozenset({"expression_statement", "postfix_conditional_expression", "postfix_loop_expression"})
_SPECIAL = frozenset({"ARGV", "ENV", "INC", "ARGVOUT", "STDIN", "STDOUT", "STDERR", "a", "b"})


class Values(ScriptValues):
    """Folds the values of one Perl program."""

    def __init__(self, root: Node, src: bytes, env: Mapping[str, str]) -> None:
        super().__init__(src, env)
        self.subs = {
            text(name, src)
            for node in walk(root)
            if node.type == "subroutine_declaration_statement"
            and (name := node.child_by_field_name("name")) is not None
        }
        """The subs the program defines: a call of one is no built-in (`sub dirname { ... }`)."""
        self._aliased: list[tuple[Node, str]] = []
        tokens: list[Node] = []
        bodies: list[Node] = []
        for node in walk(root):
            if node.type in ("heredoc_token", "command_heredoc_token"):
                tokens.append(node)
            elif node.type == "heredoc_content":
                bodies.append(node)
            elif node.type in ("scalar", "array", "container_variable"):
                self._bind(node)
            elif node.type == "glob" or (node.type == "eval_expression" and not _is_block(node)):
                self.bindings.off = True
        self._heredocs = {token.id: body for token, body in zip(tokens, bodies, strict=False)}
        for loop, key in self._aliased:  # `for my $x (@a) { $x = ... }` writes the elements of `@a`
            variable, block = loop.child_by_field_name("variable"), loop.child_by_field_name("block")
            each = self.key(variable) if variable is not None else ""
            if not each or block is None or self.bindings.written(each, block.start_byte, block.end_byte):
                self.bindings.poison(key, loop)

    def function(self, call: Node) -> str:
        """A call's function name without `&`, `CORE::` or `CORE::GLOBAL::`."""
        name = self.name(call.child_by_field_name("function")).lstrip("&")
        for prefix in ("CORE::GLOBAL::", "CORE::"):
            name = name.removeprefix(prefix)
        return name

    def _bind(self, node: Node) -> None:
        varname = node.named_children[-1] if node.named_children else None
        if varname is None or varname.type != "varname" or varname.named_child_count:
            self.bindings.off = True  # `${"name"}`, `$$ref`: a variable named at run time
            return
        key = _key(node, self.name(varname))
        if not key:
            return
        parent = node.parent
        if node.type == "container_variable" and parent is not None:  # `$x[0]` is an element of `@x`
            node, parent = parent, parent.parent
        if parent is not None and parent.type == "variable_declaration":
            if parent.child_by_field_name("variables") is not None:
                self.bindings.poison(key, node)
                return
            node, parent = parent, parent.parent
            if parent is None or parent.type != "assignment_expression":
                return  # `my $x;` declares without a value
        if parent is None:
            return
        if parent.type == "assignment_expression" and parent.child_by_field_name("left") == node:
            right = parent.child_by_field_name("right")
            op = parent.child_by_field_name("operator")
            if right is None or op is None or op.type != "=" or parent.parent is None:
                self.bindings.poison(key, node)
            elif parent.parent.type not in _STATEMENTS:
                self.bindings.poison(key, node)  # `chomp(my $x = ...)` changes what it assigns
            else:
                self.bindings.assign(key, right)
            return
        if not self._reads(node, parent, key):
            self.bindings.poison(key, node)

    def _reads(self, node: Node, parent: Node, key: str) -> bool:
        """Whether this use of a variable only reads it."""
        if parent.type in ("string_content", "heredoc_content"):
            return True
        if parent.type == "binary_expression":
            op = parent.child_by_field_name("operator")
            return op is not None and op.type not in ("=~", "!~")
        if parent.child_by_field_name("condition") == node:
            return True
        index = 0
        holder: Node | None = parent
        while holder is not None and (holder.type in _LISTS or holder.type == "refgen_expression"):
            named = holder.named_children
            index = (
                next((i for i, child in enumerate(named) if child == node), 0) if len(named) > 1 else index
            )
            node, holder = holder, holder.parent
        if holder is None:
            return False
        if holder.type == "for_statement" and holder.child_by_field_name("list") == node:
            self._aliased.append((holder, key))  # read, unless the loop writes through its variable
            return True
        parent = holder
        start = _READERS.get(self.function(parent).rsplit("::", 1)[-1]) if parent.type in CALLS else None
        return start is not None and index >= start

    def key(self, node: Node) -> str:
        """How `Bindings` names a variable: `$x`, `@x`; "" for Perl's own (`$_`)."""
        varname = node.named_children[-1] if node.named_children else None
        return _key(node, self.name(varname))

    def fold(self, node: Node) -> Value:
        kind = node.type
        if kind == "string_literal":
            return self._single(node)
        if kind == "interpolated_string_literal":
            return self.interpolated(node)
        if kind == "heredoc_token":
            return self.heredoc(node)
        if kind in ("number", "autoquoted_bareword"):
            return literal(self.name(node))
        if kind == "scalar":
            return self.variable(self.key(node))
        if kind == "binary_expression":
            op, left, right = (node.child_by_field_name(f) for f in ("operator", "left", "right"))
            if op is not None and op.type == "." and left is not None and right is not None:
                return self.fold(left) + self.fold(right)
        if kind in _LISTS and node.named_child_count == 1:
            return self.fold(node.named_children[0])
        if kind == "hash_element_expression":
            hash_, key = node.child_by_field_name("hash"), node.child_by_field_name("key")
            if self.name(hash_) == "$ENV" and key is not None:
                return environment(self.env, self.fold(key).text)
        if kind in CALLS:
            return call_value(self, node)
        if kind == "fileglob_expression":  # `<~/*>`
            content = node.child_by_field_name("content")
            return (
                globbed(self._pieces(content.start_byte, content.end_byte, content))
                if content
                else RUNTIME_VALUE
            )
        if kind == "anonymous_slice_expression" and home_entry(self, node):
            return HOME_VALUE  # `(getpwuid($<))[7]`
        return RUNTIME_VALUE

    def _inside(self, node: Node) -> tuple[int, int]:
        """The body of a quoted string, between its delimiters (the grammar's content node leaves out
        leading blanks)."""
        delimiters = [child for child in node.children if child.type == "'"]
        if len(delimiters) < 2:
            return node.end_byte, node.end_byte
        return delimiters[0].end_byte, delimiters[-1].start_byte

    def _single(self, node: Node) -> Value:
        start, end = self._inside(node)
        closing = self.name(node.children[-1]) if node.children else "'"
        raw = self.src[start:end].decode("utf-8", "replace")
        return literal(re.sub(r"\\([\\'" + re.escape(closing) + "])", r"\1", raw))

    def interpolated(self, node: Node) -> Value:
        """A `"..."`, `qq{}`, backtick or `qx{}` string; `qx'...'` does not interpolate or unescape."""
        start, end = self._inside(node)
        content = node.child_by_field_name("content")
        if node.type == "command_string" and any(self.name(c) == "'" for c in node.children[:2]):
            return literal(self.src[start:end].decode("utf-8", "replace"))
        return self._pieces(start, end, content)

    def heredoc(self, node: Node) -> Value:
        body = self._heredocs.get(node.id)
        if body is None:
            return RUNTIME_VALUE
        end_tag = next((child for child in body.children if child.type == "heredoc_end"), None)
        end = body.end_byte if end_tag is None else end_tag.start_byte
        while end > body.start_byte and self.src[end - 1 : end] in (b" ", b"\t"):
            end -= 1  # the indentation of a `<<~` terminator
        if "'" in self.name(node):
            return literal(self.src[body.start_byte : end].decode("utf-8", "replace"))
        return self._pieces(body.start_byte, end, body)

    def _pieces(self, start: int, end: int, holder: Node | None) -> Value:
        holes = (
            []
            if holder is None
            else [
                c
                for c in holder.named_children
                if c.type not in ("escape_sequence", "escaped_delimiter", "heredoc_end")
            ]
        )
        pieces: list[Piece] = []
        pos = start
        for hole in [*holes, None]:
            stop = end if hole is None else hole.start_byte
            if stop > pos:
                pieces.append(unescape(self.src[pos:stop].decode("utf-8", "replace")))
            if hole is not None:
                pieces.append(
                    self.fold(hole) if hole.type in ("scalar", "hash_element_expression") else RUNTIME_VALUE
                )
                pos = hole.end_byte
        return cased(pieces)

    def elements(self, node: Node) -> Iterator[Node]:
        """The nodes of a flattened list: `("a", ("b", "c"))` is three."""
        if node.type in _LISTS:
            for child in node.named_children:
                yield from self.elements(child)
        else:
            yield node

    def items(self, nodes: list[Node]) -> list[Value]:
        """The values of a flattened list; an array of unknown length is a spread."""
        out: list[Value] = []
        for node in nodes:
            if node.type == "quoted_word_list":
                content = node.child_by_field_name("content")
                out.extend(literal(word) for word in self.name(content).split())
            elif node.type == "array":
                listed = self._lists.resolve(self.bindings.get(self.key(node)), self._array, None)
                out.extend([SPREAD] if listed is None else listed)
            else:
                out.append(self.fold(node))
        return out if len(out) <= MAX_ITEMS else [SPREAD]

    def _array(self, node: Node) -> list[Value]:
        return self.items(list(self.elements(node)))

    def array_ref(self, node: Node) -> list[Value] | None:
        """The elements of `[...]` or `\\@array`; None if `node` is neither."""
        if node.type == "anonymous_array_expression":
            return self.items([e for child in node.named_children for e in self.elements(child)])
        if node.type == "refgen_expression" and node.named_child_count == 1:
            inner = node.named_children[0]
            return self.items([inner]) if inner.type == "array" else None
        return None


def _key(node: Node, name: str) -> str:
    """`$x`, `@x` or `%x`; "" for Perl's own variables (`$_`, `@ARGV`, `$1`), which are never folded."""
    if not re.fullmatch(r"[A-Za-z]\w*", name) or name in _SPECIAL:
        return ""
    if node.type == "container_variable":
        holder = node.parent
        return ("%" if holder is not None and holder.type == "hash_element_expression" else "@") + name
    return ("@" if node.type == "array" else "$") + name


def _is_block(node: Node) -> bool:
    return any(child.type == "block" for child in node.named_children)


def runtime(value: Value) -> bool:
    return Mark.RUNTIME in value.parts
