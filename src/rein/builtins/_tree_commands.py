"""`/tree`, `/fork` and `/label`: walking the session tree.

    /tree              pick an entry of any branch and continue from it (see `_tree_view` for the lines)
    /tree ID|LABEL     continue from that entry at once (an id, a unique id prefix, or a label)
    /fork              a new session file with the active path, and carry on there
    /label [text]      label the current leaf; without text, clear its label

Continuing from a user prompt moves the leaf before it, so it can be asked again differently; from
any other entry, onto it (a reply with its tool results). When the old leaf is left off the new path,
`/tree` asks whether to summarize the branch left behind (`AgentSession.navigate` writes the summary).
After the move, when the files the session's turns changed differ from that point's, it asks whether
to restore them too (`checkpoints.offer_restore`); never silently.
Without a person (print mode: every question answers None), `/tree` prints the tree and changes
nothing; `/tree ID` moves without a summary.
"""

from __future__ import annotations

from pathlib import Path

from rein.builtins._tree_view import describe, landing, render_tree, tree_lines
from rein.builtins.checkpoints import offer_restore
from rein.extensions import ExtensionContext
from rein.session import (
    AgentSession,
    Entry,
    LabelEntry,
    MessageEntry,
    SessionError,
    TreeView,
    fork_session,
)
from rein.session.compaction import SummaryError, SummaryOverflow

TITLE = "Continue from which entry? (* the active path; a prompt is asked again from before it)"
SUMMARY_TITLE = "Summarize the branch you leave?"
SUMMARY_OPTIONS = ("no", "yes", "yes, with instructions")
INSTRUCTIONS_TITLE = "Instructions for the branch summary"


class TreeCommands:
    def __init__(self, session: AgentSession, *, home: str) -> None:
        self.session = session
        self.home = Path(home)

    async def tree(self, args: str, ctx: ExtensionContext) -> None:
        tree = self.session.store.tree
        if not len(tree):
            ctx.ui.notify("/tree: the session has no entries yet")
            return
        if args:
            entry = _find(tree, args)
            if isinstance(entry, str):
                ctx.ui.notify(f"/tree {args}: {entry}", "warning")
                return
            await self._go(entry, ctx, asked=False)
            return
        expanded: frozenset[str] = frozenset()
        while True:
            lines = tree_lines(tree, expanded)
            by_text = {line.text: line for line in lines}
            answer = await ctx.ui.select(TITLE, [line.text for line in lines])
            chosen = by_text.get(answer) if answer is not None else None
            if chosen is None:
                ctx.ui.notify(render_tree(tree))
                return
            if chosen.entry is not None:
                await self._go(chosen.entry, ctx, asked=True)
                return
            if chosen.run is not None:  # a collapsed run: ask again with it open
                expanded |= {chosen.run}

    async def _go(self, entry: Entry, ctx: ExtensionContext, *, asked: bool) -> None:
        """Continue from `entry`. `asked`: a person chose it, so dismissing the summary question
        cancels the move; for `/tree ID` (perhaps with nobody there) it means no summary."""
        store = self.session.store
        target = landing(store.tree, entry)
        old = store.leaf_id
        if target == old:
            ctx.ui.notify("/tree: the session is there already")
            return
        summarize, instructions = False, None
        if old is not None and old not in {e.id for e in store.tree.path(target)}:
            answer = await ctx.ui.select(SUMMARY_TITLE, SUMMARY_OPTIONS)
            if answer is None and asked:
                ctx.ui.notify("/tree: nothing changed")
                return
            summarize = answer in SUMMARY_OPTIONS[1:]
            if answer == SUMMARY_OPTIONS[2]:
                instructions = await ctx.ui.input(INSTRUCTIONS_TITLE, "what the summary should keep")
        try:
            summary = await self.session.navigate(
                target, summarize=summarize, instructions=instructions or None
            )
        except (RuntimeError, SessionError) as error:
            ctx.ui.notify(f"/tree: {error}", "error")
            return
        except (SummaryError, SummaryOverflow) as error:
            ctx.ui.notify(f"/tree: the branch summary failed, nothing changed: {error}", "error")
            return
        said = f"{entry.id[:8]} ({describe([entry])})"
        if target == entry.id or not _is_prompt(entry):
            notice = f"/tree: continuing from {said}"
        else:
            notice = f"/tree: back before the prompt {said}; send it again, or differently"
        if summary is not None:
            notice += f"; the branch left is summarized in {summary[:8]}"
        ctx.ui.notify(notice)
        restored = await offer_restore(self.session, str(self.home), store.leaf_id, ctx.ui)
        if restored is not None:
            ctx.ui.notify(f"/tree: {restored}")

    async def fork(self, args: str, ctx: ExtensionContext) -> None:
        store = self.session.store
        if store.leaf_id is None:
            ctx.ui.notify("/fork: the session has no entries yet; /new starts an empty one", "warning")
            return
        try:
            forked = fork_session(store, home=self.home)
        except SessionError as error:
            ctx.ui.notify(f"/fork: {error}", "error")
            return
        await self.session.switch_store(forked)
        source = store.path or "this in-memory session"
        ctx.ui.notify(f"forked into {forked.path} ({len(forked.tree)} entries of {source})")

    def label(self, args: str, ctx: ExtensionContext) -> None:
        store = self.session.store
        target = _labelled(store.tree)
        if target is None:
            ctx.ui.notify("/label: the session has no entry yet to label", "warning")
            return
        text = " ".join(args.split())
        current = store.tree.labels.get(target)
        if not text and current is None:
            ctx.ui.notify(f"/label: {target[:8]} has no label to clear")
            return
        try:
            store.append_label(target, text or None)
        except SessionError as error:
            ctx.ui.notify(f"/label: {error}", "error")
            return
        said = f'labelled "{text}"' if text else f'label "{current}" cleared'
        ctx.ui.notify(f"/label: {target[:8]} {said} (/tree {text or target[:8]} comes back here)")


def _labelled(tree: TreeView) -> str | None:
    """The entry `/label` labels: the leaf, or the entry a label at the leaf labelled (a label entry
    is appended at the leaf, so after one `/label` the leaf is that label entry)."""
    leaf = tree.leaf_id
    while leaf is not None:
        entry = tree.get(leaf)
        if not isinstance(entry, LabelEntry):
            return leaf
        leaf = entry.parent_id
    return None


def _is_prompt(entry: Entry) -> bool:
    return isinstance(entry, MessageEntry) and entry.message.get("role") == "user"


def _find(tree: TreeView, key: str) -> Entry | str:
    """The entry `key` names (a label, an id, a unique id prefix), or why none."""
    labelled = [target for target, label in tree.labels.items() if label == key]
    if len(labelled) > 1:
        return f"the label is on {len(labelled)} entries ({', '.join(t[:8] for t in labelled)}); name an id"
    ids = labelled or ([key] if key in tree else [e.id for e in tree if e.id.startswith(key)])
    if len(ids) > 1:
        return f"{len(ids)} entries have ids starting so; give more of the id"
    entry = tree.get(ids[0]) if ids else None
    return entry if entry is not None else "no entry has that id or label (/tree lists them)"
