"""The session tree for the page, compressed: each linear run of entries is one node (its entry
count, its first user text, its labels), children nested only where the tree forks, so the fragment's
size grows with forks and labels, not with entries. A run also ends at the leaf and at a labelled
entry, so both can be continued from.

    html = tree_html(view.entries, view.row.leaf_id)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from rein.html import esc, preview
from rein.server._view import Entry

PREVIEW = 80


@dataclass(slots=True)
class _Node:
    first: str
    last: str
    count: int = 0
    prompt: str = ""
    labels: list[str] = field(default_factory=list)
    children: list[str] = field(default_factory=list)
    """First entry ids of the child nodes."""


def _text(message: object) -> str:
    if not isinstance(message, dict) or message.get("role") != "user":
        return ""
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return " ".join(
            str(b.get("text", "")) for b in content if isinstance(b, dict) and b.get("type") == "text"
        )
    return ""


def _parent(entry: Entry) -> str | None:
    parent = entry.get("parentId", entry.get("parent_id"))
    return parent if isinstance(parent, str) else None


def tree_html(entries: Sequence[Entry], leaf_id: str | None) -> str:
    """The tree as nested `<ul>`s: `li.active` on the active path, `li.leaf` holding the leaf."""
    by_id: dict[str, Entry] = {}
    children: dict[str | None, list[str]] = {}
    labels: dict[str, str] = {}
    for entry in entries:
        entry_id = str(entry.get("id"))
        by_id[entry_id] = entry
        parent = _parent(entry)
        children.setdefault(parent if parent in by_id else None, []).append(entry_id)
        target = entry.get("targetId", entry.get("target_id"))
        if entry.get("type") == "label" and isinstance(target, str):
            label = entry.get("label")
            if isinstance(label, str) and label:
                labels[target] = label
            else:
                labels.pop(target, None)
    active: set[str] = set()
    current = leaf_id
    while current is not None and current in by_id and current not in active:
        active.add(current)
        current = _parent(by_id[current])
    nodes: dict[str, _Node] = {}
    for start in children.get(None, []):
        _build(start, children, by_id, labels, leaf_id, nodes)
    roots = children.get(None, [])
    return _render(roots, nodes, active, leaf_id)


def _build(
    start: str,
    children: dict[str | None, list[str]],
    by_id: dict[str, Entry],
    labels: dict[str, str],
    leaf_id: str | None,
    nodes: dict[str, _Node],
) -> None:
    """Nodes for the subtree at `start`, with a stack (a tree may be thousands of forks deep)."""
    pending = [start]
    while pending:
        first = pending.pop()
        node = _Node(first=first, last=first)
        current = first
        while True:
            node.count += 1
            node.last = current
            entry = by_id[current]
            if not node.prompt:
                node.prompt = _text(entry.get("message"))
            if current in labels:
                node.labels.append(labels[current])
            below = children.get(current, [])
            if len(below) != 1 or current == leaf_id or current in labels:
                node.children = list(below)
                pending.extend(below)
                break
            current = below[0]
        nodes[first] = node


def _render(roots: list[str], nodes: dict[str, _Node], active: set[str], leaf_id: str | None) -> str:
    out: list[str] = ['<ul class="tree">']
    stack: list[str | _Node] = [nodes[root] for root in reversed(roots)]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            out.append(item)
            continue
        classes = ["node"]
        if item.first in active:
            classes.append("active")
        if leaf_id is not None and item.last == leaf_id:
            classes.append("leaf")
        said = f"{item.count} {'entry' if item.count == 1 else 'entries'}"
        labels = "".join(f'<span class="label">{esc(label)}</span>' for label in item.labels)
        text = f'<span class="preview">{esc(preview(item.prompt, PREVIEW))}</span>' if item.prompt else ""
        out.append(
            f'<li class="{" ".join(classes)}" data-entry-id="{esc(item.last)}">'
            f'<span class="count">{said}</span> {text}{labels}'
            f'<button type="button" class="continue" data-entry-id="{esc(item.last)}">'
            "Continue from here</button>"
        )
        if item.children:
            stack.append("</ul></li>")
            stack.extend(nodes[child] for child in reversed(item.children))
            stack.append("<ul>")
        else:
            stack.append("</li>")
    out.append("</ul>")
    return "".join(out)
