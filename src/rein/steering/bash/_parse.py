"""Tree-sitter-bash behind one lazily built parser, and the scan that turns syntax errors into problems."""

from __future__ import annotations

import re
import threading
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tree_sitter import Node, Parser

_local = threading.local()
_MAX_REPORTED = 3
_ASCII = bytes(range(128)) + b"x" * 128
_SNIPPET = 24
_BLANK = re.compile(rb"(?:\s|\\\r?\n|\\[ \t\v\f])*")
"""Blanks, line continuations, and `\\ ` (tree-sitter skips an escaped blank between words)."""

_UNSEPARATED = re.compile(
    rb"([)}]|(?<![\w-])(?:done|fi|esac))[ \t](?=[ \t]*(?:done|fi|esac|then|do|else|elif|\})(?![\w-]))"
)
"""A reserved word right after a closing one with only blanks between; the first blank becomes `;`."""
_READ_WRITE = re.compile(rb"(?<=[\d \t])<>(?=[^\s>&])")
_HEREDOC = re.compile(rb"(?<![<\d])<<-?[ \t]*(['\"]?)([\w.-]+)\1")


def parse(src: bytes) -> Node:
    """The root node of `src`. The parser is built on first use (never at import), one per thread.

    tree-sitter-bash's scanner passes characters to C's `isdigit`/`isalpha`, which read out of
    bounds (and can crash the process) for code points past 255, as in `{` followed by U+E0000. So
    the parser sees every non-ASCII byte as `x`: bash splits words on ASCII only, so every such byte
    is an ordinary word character either way, and byte offsets still index the real `src`.
    """
    parser: Parser | None = getattr(_local, "parser", None)
    if parser is None:
        parser = _new_parser()
        _local.parser = parser
    text = src if src.isascii() else src.translate(_ASCII)
    root = parser.parse(text).root_node
    if root.has_error:
        fixed = _repaired(text)
        if fixed != text:
            again = parser.parse(fixed).root_node
            words = (len(text) - len(text[m.end() :].lstrip(b" \t")) for m in _UNSEPARATED.finditer(text))
            if not again.has_error and not any(_is_word(again, at) for at in words):
                return again
    return root


def _is_word(root: Node, at: int) -> bool:
    """Whether the reserved word a repair put a `;` before became a command's name (`fi; fi`): then
    it was no reserved word to bash either, and the repair is not taken."""
    node = root.descendant_for_byte_range(at, at)
    while node is not None and node.start_byte == at and node.type not in ("command_name", "word"):
        node = node.parent
    return node is not None and node.start_byte == at


def _repaired(text: bytes) -> bytes:
    """`text` with what bash takes and tree-sitter-bash does not written the way it does: a `;`
    between `(cd x) done`, `3> f` for `3<>f` (opened for writing as well), the missing end line of a
    here-document bash ends at the end of the input. Every byte offset still indexes `text`."""
    fixed = _READ_WRITE.sub(b"> ", _UNSEPARATED.sub(rb"\1;", text))
    for start in _HEREDOC.finditer(fixed):
        delimiter = start.group(2)
        ends = re.compile(rb"^[ \t]*" + re.escape(delimiter) + rb"[ \t]*$", re.MULTILINE)
        if not ends.search(fixed, start.end()):
            fixed += b"\n" + delimiter
    return fixed


def _new_parser() -> Parser:
    # Imported here: loading the grammar takes milliseconds a hook that never parses should not pay.
    import tree_sitter_bash
    from tree_sitter import Language, Parser

    return Parser(Language(tree_sitter_bash.language()))


def syntax_problems(root: Node, src: bytes, where: str = "") -> list[str]:
    """One message per ERROR or MISSING node, at most a few: "could not parse near line 1, column 7: 'fi'".

    `where` names the text when it is not the command line itself (" in the 'bash -c' string").
    """
    if not root.has_error:
        return []
    found: list[str] = []
    stack = [root]
    while stack and len(found) < _MAX_REPORTED:
        node = stack.pop()
        if node.is_missing:
            found.append(f"could not parse near {_position(node, src)}{where}: missing '{node.type}'")
        elif node.is_error:
            leaf = node
            while leaf.child_count:
                leaf = leaf.children[0]
            text = src[leaf.start_byte : node.end_byte].decode("utf-8", "replace").split("\n", 1)[0]
            snippet = text if len(text) <= _SNIPPET else text[:_SNIPPET] + "..."
            found.append(f"could not parse near {_position(leaf, src)}{where}: '{snippet}'")
        elif node.has_error:
            stack.extend(reversed(node.children))
    return found or [f"could not parse{where}"]


def _position(node: Node, src: bytes) -> str:
    start = node.start_byte
    line_start = src.rfind(b"\n", 0, start) + 1
    column = len(src[line_start:start].decode("utf-8", "replace")) + 1
    return f"line {node.start_point.row + 1}, column {column}"


def uncovered(root: Node, src: bytes) -> list[tuple[int, int]]:
    """Byte ranges no token covers that hold more than blanks: text tree-sitter silently dropped."""
    found: list[tuple[int, int]] = []
    position = 0
    stack = [root]
    while stack:
        node = stack.pop()
        if node.child_count and node.type != "heredoc_body":
            stack.extend(reversed(node.children))
            continue
        start = node.start_byte
        if start > position and not _BLANK.fullmatch(src[position:start]):
            found.append((position, start))
        position = max(position, node.end_byte)
    if position < len(src) and not _BLANK.fullmatch(src[position:]):
        found.append((position, len(src)))
    return found


def comments(root: Node, src: bytes) -> list[str]:
    """The text of every comment node, in source order (`#` inside quotes or words is no comment)."""
    found: list[str] = []
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "comment":
            found.append(src[node.start_byte : node.end_byte].decode("utf-8", "replace"))
        else:
            stack.extend(reversed(node.children))
    return found
