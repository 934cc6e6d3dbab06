"""A session as one self-contained HTML page (`rein export`): the header, then the whole tree.

The tree reads as a conversation from the root. Where it forks, each branch is a `<details>` (the one
on the active path open, the others folded), so every branch is on the page and none needs a script.
Entries on the active path, the leaf and labelled entries are marked. A tool result is shown inside
the call it answers (found by walking up from the result), not again on its own.

The page has no script and loads nothing: the CSS is inline, and a Content-Security-Policy forbids
scripts and remote loads as a second line of defence behind the escaping of every session text.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from rein.cli._html_style import CSS
from rein.html import (
    CONTENT_CSS,
    badge,
    body,
    esc,
    is_tool_result,
    link,
    preview,
    result_call_id,
    tool_calls,
    when,
)
from rein.session import Entry, MessageEntry, Session, TreeView, message_text

POLICY = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"
"""Nothing runs and nothing is fetched, whatever the page holds."""
CALL_DISTANCE = 256
"""How far up a tool result looks for the assistant entry whose call it answers."""


def render_page(store: Session) -> str:
    """The page for `store`: a complete HTML document."""
    return _Page.of(store.tree).html(store)


@dataclass(slots=True, kw_only=True)
class _Page:
    tree: TreeView
    active: frozenset[str]
    results: dict[str, dict[str, MessageEntry]] = field(default_factory=dict)
    """Assistant entry id -> its tool-call ids -> the result entries that answer them."""
    folded: set[str] = field(default_factory=set)
    sizes: dict[str, int] = field(default_factory=dict)

    @classmethod
    def of(cls, tree: TreeView) -> _Page:
        page = cls(tree=tree, active=frozenset(entry.id for entry in tree.active_path()))
        page.fold_results()
        page.count_sizes()
        return page

    def fold_results(self) -> None:
        calls: dict[str, frozenset[str]] = {}
        for entry in self.tree:
            if not (isinstance(entry, MessageEntry) and is_tool_result(entry.message)):
                continue
            call_id = result_call_id(entry.message)
            parent = entry.parent_id
            for _ in range(CALL_DISTANCE):
                above = self.tree.get(parent) if parent is not None else None
                if above is None or call_id is None:
                    break
                if isinstance(above, MessageEntry):
                    ids = calls.get(above.id)
                    if ids is None:
                        ids = calls[above.id] = frozenset(str(b.get("id")) for b in tool_calls(above.message))
                    if call_id in ids:
                        self.results.setdefault(above.id, {}).setdefault(call_id, entry)
                        self.folded.add(entry.id)
                        break
                parent = above.parent_id

    def count_sizes(self) -> None:
        """Entries in each entry's subtree (itself included); parents always precede children."""
        for entry in reversed(list(self.tree)):
            self.sizes[entry.id] = 1 + sum(self.sizes[c.id] for c in self.tree.children(entry.id))

    def html(self, store: Session) -> str:
        prompt = next(
            (
                message_text(e.message.get("content"))
                for e in self.tree
                if isinstance(e, MessageEntry) and _is_user(e)
            ),
            "",
        )
        title = f"rein session {store.id[:8]}" + (f": {preview(prompt, 60)}" if prompt else "")
        return "".join(
            [
                '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">',
                f'<meta http-equiv="Content-Security-Policy" content="{POLICY}">',
                '<meta name="viewport" content="width=device-width, initial-scale=1">',
                f"<title>{esc(title)}</title><style>{CSS}{CONTENT_CSS}</style></head><body>\n",
                self.header(store, title),
                '<main class="tree">\n',
                *self.walk(),
                '</main>\n<footer class="meta">written by rein export</footer>\n</body></html>\n',
            ]
        )

    def header(self, store: Session, title: str) -> str:
        header = store.header
        model = store.context().model
        leaves = sum(1 for entry in self.tree if not self.tree.children(entry.id))
        labels = ", ".join(f"{link(target)} {esc(label)}" for target, label in self.tree.labels.items())
        facts = [
            ("session", esc(store.id)),
            ("file", esc(store.path or "(in memory)")),
            ("directory", esc(header.cwd)),
            ("created", esc(when(header.timestamp))),
            ("model", esc(f"{model.provider}/{model.model_id}") if model else "-"),
            ("entries", f"{len(self.tree)} in {leaves} branch{'es' if leaves != 1 else ''}"),
            ("leaf", link(self.tree.leaf_id) if self.tree.leaf_id else "(before the first entry)"),
            ("format", esc(f"{header.format} v{header.version}")),
        ]
        if labels:
            facts.append(("labels", labels))
        rows = "".join(f"<dt>{name}</dt><dd>{value}</dd>" for name, value in facts)
        warnings = "".join(f"<li>{esc(warning)}</li>" for warning in store.warnings)
        legend = "".join(
            badge(text, kind)
            for text, kind in (
                ("green bar: the active path", "active-mark"),
                ("stream rule", "ttsr"),
                ("steering", "steering"),
                ("timebox", "timebox"),
                ("label", "label"),
            )
        )
        return (
            f'<header><h1>{esc(title)}</h1><dl class="facts">{rows}</dl>'
            + (f'<ul class="warnings">{warnings}</ul>' if warnings else "")
            + f'<p class="legend meta">marks: {legend}</p></header>\n'
        )

    def walk(self) -> Iterator[str]:
        """The tree from its roots, depth first; a stack rather than recursion, as a session can be
        tens of thousands of entries deep."""
        stack: list[str | Entry] = []
        self.push_children(stack, None)
        while stack:
            item = stack.pop()
            if isinstance(item, str):
                yield item
                continue
            yield self.entry(item)
            self.push_children(stack, item.id)

    def push_children(self, stack: list[str | Entry], parent: str | None) -> None:
        children = self.tree.children(parent)
        if len(children) == 1:
            stack.append(children[0])
        if len(children) < 2:
            return
        stack.append("</div>\n")
        for index in reversed(range(len(children))):
            child = children[index]
            stack += ["</details>\n", child, self.branch_open(child, index, len(children))]
        stack.append('<div class="fork">\n')

    def branch_open(self, child: Entry, index: int, count: int) -> str:
        active = child.id in self.active
        size = self.sizes.get(child.id, 1)
        start = message_text(child.message.get("content")) if isinstance(child, MessageEntry) else child.type
        text = f"branch {index + 1} of {count}{' (active)' if active else ''}: {size} entries"
        return (
            f'<details class="branch{" active" if active else ""}"{" open" if active else ""}>'
            f'<summary>{esc(text)} <span class="meta">{esc(preview(start, 80))}</span></summary>\n'
        )

    def entry(self, entry: Entry) -> str:
        leaf = entry.id == self.tree.leaf_id
        label = self.tree.labels.get(entry.id)
        anchor = f'id="e-{esc(entry.id)}"'
        if entry.id in self.folded and not leaf and label is None:
            return f"<span {anchor}></span>"
        classes, kind, inner = body(entry, self.results.get(entry.id, {}))
        if entry.id in self.folded:
            inner = '<div class="meta">its output is shown with the call above</div>'
        marks = ""
        if entry.id in self.active:
            classes += " active"  # the green bar; a badge on every entry of the path would be noise
        if leaf:
            classes += " leaf"
            marks += badge("leaf: the next message goes here", "leaf-mark")
        if label is not None:
            marks += badge(label, "label")
        stamp = (
            f'<span class="time">{esc(when(entry.timestamp))}</span> <a class="id" href="#e-{esc(entry.id)}">'
        )
        return (
            f'<div class="entry {classes}" {anchor}><div class="meta"><span class="kind">{kind}</span>'
            f"{marks} {stamp}{esc(entry.id)}</a></div>{inner}</div>\n"
        )


def _is_user(entry: MessageEntry) -> bool:
    return entry.message.get("role") == "user"
