"""Chains: a list, pipeline or redirected statement as pipelines joined by `&&` and `||`.

tree-sitter-bash nests lists to the left and misplaces a few things around heredocs; this module
reshapes them into the order bash runs them, so the walker only ever sees flat chains.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeAlias

if TYPE_CHECKING:
    from tree_sitter import Node

REDIRECTS = frozenset({"file_redirect", "heredoc_redirect", "herestring_redirect"})

Member: TypeAlias = "tuple[Node, tuple[Node, ...]]"
"""A pipeline member and redirects tree-sitter hung on an enclosing node (`a && b > f`: `> f` is b's)."""
Link: TypeAlias = "tuple[str, list[Member]]"
"""One pipeline of a chain and the operator before it ("" for the first, `&&`, `||`)."""


def flatten(node: Node) -> list[Link]:
    """A list, pipeline or redirected statement as pipelines joined by `&&`/`||`, left to right.

    Lists nest to the left, so the left spine is walked iteratively (long `a && b && ...` chains do not
    recurse). tree-sitter sometimes hangs a redirect on a whole list (`a && cat <<EOF`): it belongs
    to the last command. It also puts what follows a heredoc start on the same line (`cat <<EOF | sh
    && x`) inside the heredoc node; both are put back in their place here.
    """
    rights: list[tuple[str, Node]] = []
    kind = node.type
    while kind == "list":
        parts = [child for child in node.children if child.type != "comment"]
        rights.append((parts[1].type, parts[2]))
        node = parts[0]
        kind = node.type
    links: list[Link]
    if kind == "pipeline":
        links = [("", [])]
        for child in node.children:
            if child.is_named and child.type != "comment":
                _join(links, "|", flatten(child))
    elif kind == "redirected_statement" and chained(node):
        body, redirects = split_redirected(node)
        if body is not None and body.type in ("list", "pipeline"):
            links = flatten(body)
            last, extra = links[-1][1][-1]
            links[-1][1][-1] = (last, (*extra, *redirects))
        else:
            links = [("", [(node, ())])]
        trailing = _trailing(node)
        if trailing is not None:
            _join(links, trailing[0], flatten(trailing[1]))
    else:
        links = [("", [(node, ())])]
    for operator, right in reversed(rights):
        if right.type == "command":
            links.append((operator, [(right, ())]))
        else:
            _join(links, operator, flatten(right))
    return links


def _join(links: list[Link], operator: str, more: list[Link]) -> None:
    if operator in ("|", "|&"):
        links[-1][1].extend(more[0][1])
        links.extend(more[1:])
    else:
        links.append((operator, more[0][1]))
        links.extend(more[1:])


def split_redirected(node: Node) -> tuple[Node | None, list[Node]]:
    body: Node | None = None
    redirects: list[Node] = []
    for child in node.children:
        if child.type in REDIRECTS:
            redirects.append(child)
        elif body is None and child.is_named and child.type != "comment":
            body = child
    return body, redirects


def chained(node: Node) -> bool:
    """Whether a redirected statement is really a chain: its body is a list or pipeline, or commands
    follow its heredoc start."""
    first = node.children[0] if node.child_count else None
    return (first is not None and first.type in ("list", "pipeline")) or _trailing(node) is not None


def _trailing(node: Node) -> tuple[str, Node] | None:
    """What tree-sitter put after a heredoc start on its line: (`|` or `&&` or `||`, statement)."""
    for redirect in node.children:
        if redirect.type != "heredoc_redirect":
            continue
        operator = ""
        for child in redirect.children:
            kind = child.type
            if kind == "pipeline":
                parts = [part for part in child.children if part.is_named and part.type != "comment"]
                return ("|", parts[0]) if parts else None
            if kind in ("&&", "||"):
                operator = kind
            elif operator and child.is_named and kind != "comment":
                return operator, child
    return None


def simple(node: Node) -> bool:
    """A plain command (with redirects), or a pipeline ending in one: what it prints is what rein
    reads from it."""
    if node.type == "pipeline":
        members = [child for child in node.children if child.is_named and child.type != "comment"]
        return bool(members) and simple(members[-1])
    if node.type == "redirected_statement":
        body = node.children[0] if node.children else None
        return body is not None and body.type == "command"
    return node.type == "command"
