"""The session tree as lines of text, for `/tree`'s menu and its printed form.

One line per entry worth showing: user prompts, assistant replies (the first line of text and the
tool calls made), compactions, branch summaries and custom messages (stream-rule injections and the
like, marked with their type in brackets). Tool results, extension state, labels and model changes
fold into the line of the entry they follow, or, where a branch or the tree starts with them, into
the line of the entry they lead to; one that carries a label, or leads to no shown entry, gets a line
of its own. A line stands for its entry and the entries folded into it.

A linear run stays at one indent; where the tree branches, each branch is indented under a connector.
Runs off the active path longer than `2 * KEPT + 1` lines collapse to their ends and one `...` line.

    * a1b2c3d4  user: fix the failing test
    * b2c3d4e5  assistant: Let me run it. [bash: pytest -q]
      c3d4e5f6  |- user: try another approach [retry]
      d4e5f6a7  |  assistant: Done.
    * e5f6a7b8  `- user: run it again
    * f6a7b8c9     assistant: Passing now.  <- current
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from rein.session import (
    BranchSummaryEntry,
    CompactionEntry,
    CustomEntry,
    CustomMessageEntry,
    Entry,
    LabelEntry,
    MessageEntry,
    ModelChangeEntry,
    TreeView,
)

CURRENT_MARK = "<- current"
"""Ends the line of the current leaf. The terminal UI's menu starts at the option that ends so."""
PATH_MARK = "*"
"""Starts the lines of the active path."""
KEPT = 2
"""Lines kept at each end of a collapsed run."""
WIDTH = 110
"""Longest line; the text of an entry is cut to fit."""


@dataclass(frozen=True, slots=True, kw_only=True)
class TreeLine:
    """One line. `entry` is None for a collapsed run's `...` line, whose `run` names it for `expanded`.
    `folded` are the ids the line stands for, its own first; `target` (the last of them) is where
    continuing from the line puts the leaf."""

    text: str
    entry: Entry | None
    folded: tuple[str, ...] = ()
    run: str | None = None

    @property
    def target(self) -> str | None:
        return self.folded[-1] if self.folded else None


@dataclass(frozen=True, slots=True)
class _Node:
    entries: tuple[Entry, ...]
    shown: int
    """The index of the entry the line describes."""
    prefix: str


def tree_lines(tree: TreeView, expanded: frozenset[str] = frozenset()) -> list[TreeLine]:
    """The lines of `tree`, in order: depth first, branches in the order they were made. A collapsed
    run whose `run` id is in `expanded` shows every line."""
    active = {entry.id for entry in tree.active_path()}
    leaf = tree.leaf_id
    labels = tree.labels
    out: list[TreeLine] = []
    run: list[_Node] = []
    # Depth first without recursion (a session may be thousands of entries deep): (entry, prefix).
    stack: list[tuple[Entry, str]] = [(root, "") for root in reversed(tree.children(None))]
    while stack:
        first, prefix = stack.pop()
        entries, shown = _fold(tree, first, labels)
        run.append(_Node(entries, shown, prefix))
        nexts = tree.children(entries[-1].id)
        if len(nexts) == 1:
            stack.append((nexts[0], _continued(prefix)))
            continue
        out.extend(_emit(run, active, leaf, labels, expanded))
        run = []
        body = _continued(prefix)
        for index, child in reversed(list(enumerate(nexts))):
            last = index == len(nexts) - 1
            stack.append((child, body + ("`- " if last else "|- ")))
    return out


def landing(tree: TreeView, entry: Entry) -> str | None:
    """Where continuing from `entry` puts the leaf. A user prompt: before it (its parent), so it can be
    asked again differently. Any other entry: the last of the hidden entries straight after it (a reply
    with its tool results), so the next prompt never follows a tool call without its result."""
    if isinstance(entry, MessageEntry) and entry.message.get("role") == "user":
        path = tree.path(entry.id)
        return path[-2].id if len(path) > 1 else None
    return ([entry, *_chain(tree, entry, tree.labels)])[-1].id


def render_tree(tree: TreeView) -> str:
    """The whole tree as text (print mode), with a first line saying what the marks mean."""
    lines = tree_lines(tree)
    if not lines:
        return "the session has no entries yet"
    marks = f'{PATH_MARK} marks the active path, "{CURRENT_MARK}" the leaf'
    head = f"session tree, {len(tree)} entries ({marks}):"
    return "\n".join([head, *(line.text for line in lines)])


def _continued(prefix: str) -> str:
    """The prefix of the lines after the first of a branch: its connector becomes a rail or space."""
    if prefix.endswith("|- "):
        return prefix[:-3] + "|  "
    if prefix.endswith("`- "):
        return prefix[:-3] + "   "
    return prefix


def _fold(tree: TreeView, first: Entry, labels: Mapping[str, str]) -> tuple[tuple[Entry, ...], int]:
    """A line's entries from `first`, and which of them it shows: hidden entries before a shown one
    (a model change before the first prompt, a label where a branch starts), the shown entry, and
    the hidden entries after it. Hidden entries that lead to no shown one show the first of them."""
    entries = [first]
    while not _shown(entries[-1]) and entries[-1].id not in labels:
        children = tree.children(entries[-1].id)
        if len(children) != 1 or children[0].id in labels:
            break
        entries.append(children[0])
    shown = len(entries) - 1 if _shown(entries[-1]) or entries[-1].id in labels else 0
    return (*entries, *_chain(tree, entries[-1], labels)), shown


def _chain(tree: TreeView, entry: Entry, labels: Mapping[str, str]) -> list[Entry]:
    """The hidden entries straight after `entry` (one child each, unlabelled)."""
    out: list[Entry] = []
    while True:
        children = tree.children((out[-1] if out else entry).id)
        if len(children) != 1 or _shown(children[0]) or children[0].id in labels:
            return out
        out.append(children[0])


def _shown(entry: Entry) -> bool:
    if isinstance(entry, MessageEntry):
        return entry.message.get("role") in ("user", "assistant")
    return isinstance(entry, CustomMessageEntry | CompactionEntry | BranchSummaryEntry)


def _emit(
    run: list[_Node],
    active: set[str],
    leaf: str | None,
    labels: Mapping[str, str],
    expanded: frozenset[str],
) -> list[TreeLine]:
    """A linear run's lines; off the active path and long, its middle collapses."""
    on_path = any(node.entries[node.shown].id in active for node in run)
    collapsed: range = range(0)
    if not on_path and len(run) > 2 * KEPT + 1 and run[KEPT].entries[0].id not in expanded:
        collapsed = range(KEPT, len(run) - KEPT)
    out: list[TreeLine] = []
    for index, node in enumerate(run):
        if index in collapsed:
            if index == collapsed.start:
                first = node.entries[0].id
                text = f"  {'':8}  {_continued(node.prefix)}... {len(collapsed)} more (from {first})"
                out.append(TreeLine(text=text, entry=None, run=first))
            continue
        out.append(_line(node, active, leaf, labels))
    return out


def _line(node: _Node, active: set[str], leaf: str | None, labels: Mapping[str, str]) -> TreeLine:
    entry = node.entries[node.shown]
    ids = tuple(e.id for e in node.entries)
    mark = PATH_MARK if entry.id in active else " "
    label = " ".join(f"[{labels[i]}]" for i in ids if i in labels)
    tail = (f" {label}" if label else "") + (f"  {CURRENT_MARK}" if leaf in ids else "")
    head = f"{mark} {entry.id[:8]:<8}  {node.prefix}"
    room = max(20, WIDTH - len(head) - len(tail))
    text = head + _cut(describe(node.entries[node.shown :]), room) + tail
    return TreeLine(text=text, entry=entry, folded=ids)


def describe(entries: Sequence[Entry]) -> str:
    """What a line says about its entry (the first) and the entries folded into it."""
    entry = entries[0]
    match entry:
        case MessageEntry(message=message):
            return _message(message, entries[1:])
        case CustomMessageEntry(custom_type=kind, content=content, display=display):
            return f"[{kind}{'' if display else ', hidden'}] {_first_line(_text(content))}"
        case CompactionEntry(summary=summary, tokens_before=tokens):
            return f"[compaction of {tokens} tokens] {_first_line(summary)}"
        case BranchSummaryEntry(summary=summary):
            return f"[branch summary] {_first_line(summary)}"
        case CustomEntry(custom_type=kind):
            return f"({kind})"
        case LabelEntry(label=label):
            return f"(label {label})" if label else "(label cleared)"
        case ModelChangeEntry(provider=provider, model_id=model_id):
            return f"(model {provider}/{model_id})"
        case _:
            return f"({entry.type})"


def _message(message: Mapping[str, object], folded: Sequence[Entry]) -> str:
    role = str(message.get("role", "?"))
    content = message.get("content")
    if role == "user":
        return f"user: {_first_line(_text(content)) or '(no text)'}"
    if role != "assistant":
        name = message.get("tool_name", message.get("toolName", ""))
        error = " (error)" if _failed(message) else ""
        return f"tool result {name}{error}: {_first_line(_text(content))}"
    blocks = content if isinstance(content, list) else []
    calls = [_call(block) for block in blocks if _is_call(block)]
    text = _first_line(_text(content))
    parts = [text] if text else []
    if calls:
        parts.append(f"[{', '.join(calls)}]")
    failures = sum(1 for e in folded if isinstance(e, MessageEntry) and _failed(e.message))
    if failures:
        parts.append(f"({failures} failed)")
    stop = message.get("stop_reason", message.get("stopReason"))
    if stop in ("error", "aborted"):
        parts.append(f"({stop})")
    return "assistant: " + (" ".join(parts) or "(no text)")


def _is_call(block: object) -> bool:
    return isinstance(block, dict) and block.get("type") in ("tool_call", "toolCall")


def _call(block: Mapping[str, object]) -> str:
    name = str(block.get("name", "?"))
    arguments = block.get("arguments")
    if isinstance(arguments, dict):
        for key in ("command", "path", "file_path", "pattern"):
            value = arguments.get(key)
            if isinstance(value, str):
                return f"{name}: {_first_line(value)}" if key == "command" else f"{name} {value}"
    return name


def _failed(message: Mapping[str, object]) -> bool:
    return message.get("is_error", message.get("isError")) is True


def _text(content: object) -> str:
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    parts = []
    for block in content:
        if isinstance(block, dict) and block.get("type") == "text":
            parts.append(str(block.get("text", "")))
        elif isinstance(block, dict) and block.get("type") == "image":
            parts.append("[image]")
    return "\n".join(parts)


def _first_line(text: str) -> str:
    for line in text.splitlines():
        if line.strip():
            return " ".join(line.split())
    return ""


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."
