"""The tree-sitter grammars of the languages read with one: a parser per language and thread, built on
first use, so a hook that never meets a one-liner in that language never loads its grammar."""

from __future__ import annotations

import threading
import warnings
from collections.abc import Callable

import tree_sitter_javascript
import tree_sitter_perl
import tree_sitter_php
import tree_sitter_ruby
from tree_sitter import Language, Node, Parser

_GRAMMARS: dict[str, Callable[[], object]] = {
    "javascript": tree_sitter_javascript.language,
    "perl": tree_sitter_perl.language,
    "php": tree_sitter_php.language_php,
    "php_only": tree_sitter_php.language_php_only,  # code without `<?php` tags, as `php -r` takes it
    "ruby": tree_sitter_ruby.language,
}
_local = threading.local()


def parse(grammar: str, text: str) -> tuple[Node, bytes]:
    """The root node of `text` in `grammar`, and the bytes its offsets index."""
    parsers: dict[str, Parser] = _local.__dict__.setdefault("parsers", {})
    parser = parsers.get(grammar)
    if parser is None:
        with warnings.catch_warnings():
            # tree-sitter-perl 2.0.3 hands over a pointer as an int, which tree-sitter 0.26 deprecates.
            warnings.simplefilter("ignore", DeprecationWarning)
            language = Language(_GRAMMARS[grammar]())
        parser = parsers[grammar] = Parser(language)
    if grammar == "perl" and not text.endswith("\n"):
        text += "\n"  # tree-sitter-perl 2.0.3 loops forever on a heredoc that ends the text unterminated
    src = text.encode("utf-8", "surrogateescape")
    return parser.parse(src).root_node, src


def text(node: Node, src: bytes) -> str:
    """The source text of `node`."""
    return src[node.start_byte : node.end_byte].decode("utf-8", "replace")


__all__ = ["Node", "parse", "text"]
