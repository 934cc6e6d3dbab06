"""Whether a string argument of an unknown program reads as a command line: it parses as bash, and the
first command it runs is a program rein knows (`hyperfine 'git push -f'`, `'X=1 sudo git push -f'`,
`'cd /tmp && rm -rf x'`), a program named by its path (`'./deploy.sh --prod'`, maybe one the line
wrote), or it is shell syntax no prose has (`[[ ]]`, `export`, a function definition).

Anything else is data the program reads its own way: prose (`logger 'ran git reset --hard'`), code
(`mytool 'int(a() / b())'`), a query (`submit 'a | b'`). A shell the program might start on it would
first run a program rein does not know, so the rest is only text as far as rein can tell.
"""

from __future__ import annotations

import posixpath
import re
from typing import TYPE_CHECKING

from rein.steering.bash._parse import parse
from rein.steering.bash._words import words
from rein.steering.bash.model import named

if TYPE_CHECKING:
    from tree_sitter import Node

_PLAIN_FIRST = re.compile(r"\s*([A-Za-z0-9_./:,@%+^-]+)(?=[\s;&|<>]|$)(?!\s*\()")
"""A first word of plain characters that is not a function definition (`f () {`): an unknown one
needs no parse, as long as nothing before it runs (a substitution)."""
_RUNS_FIRST = re.compile(r"\$\(|`|[<>]\(")
_RESERVED = frozenset({
    "if", "then", "else", "elif", "fi", "case", "esac", "for", "select", "while", "until", "do", "done",
    "in", "function", "time", "coproc", "{", "}", "!", "[[", "]]",
})  # fmt: skip
_SHELL_SYNTAX = frozenset({"declaration_command", "unset_command", "test_command", "function_definition"})
_COMMANDS = frozenset({"command", *_SHELL_SYNTAX})


def command_line(text: str, known: frozenset[str]) -> bool:
    """Whether `text` parses as bash and the first command it runs is one rein knows."""
    plain = _PLAIN_FIRST.match(text)
    if (
        plain is not None
        and plain[1] not in _RESERVED
        and not _RUNS_FIRST.search(text)
        and not _knows(plain[1], known)
    ):
        return False  # an unknown first word, and nothing runs before it: no parse needed
    src = text.encode("utf-8", "surrogatepass")
    root = parse(src)
    if root.has_error:
        return False
    first = _first(root)
    if first is None:
        return False
    if first.type != "command":
        return True
    name = first.child_by_field_name("name")
    found = words(name.children, src, []) if name is not None else []
    if not found or (found[0].dynamic and not named(found[0])):
        return False
    return _knows(found[0].value, known)


def _knows(name: str, known: frozenset[str]) -> bool:
    return "/" in name or posixpath.basename(name) in known


def parses(text: str) -> bool:
    """Whether `text` is bash tree-sitter reads without an error."""
    return not parse(text.encode("utf-8", "surrogatepass")).has_error


def _first(root: Node) -> Node | None:
    """The first command the source runs: the first one written, or a command a substitution in its
    words runs before it (`$(git push -f) x`)."""
    found = _find(root)
    while found is not None and found.type == "command":
        inner = _find(found)
        if inner is None:
            break
        found = inner
    return found


def _find(top: Node) -> Node | None:
    """The first command below `top` in source order, outermost first."""
    stack = list(reversed(top.children))
    while stack:
        node = stack.pop()
        if node.type in _COMMANDS:
            return node
        stack.extend(reversed(node.children))
    return None
