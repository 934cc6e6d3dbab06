"""`/session`, `/new` and `/resume`: the session file behind the conversation.

`/new` and `/resume` go through `AgentSession.switch_store`, so extensions shut down for the old file
and restore their state from the new one (a timebox, fired rules, steering entries).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from rein.ai import AssistantMessage, MessageFormatError, message_from_json
from rein.extensions import ExtensionContext
from rein.session import AgentSession, MessageEntry, Session, SessionError
from rein.session import list_sessions as rein_sessions

LISTED = 30
"""How many of the directory's newest sessions `/resume` offers."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Listed:
    """One session `/resume` offers."""

    path: Path
    id: str
    modified: datetime
    first_prompt: str
    entries: int

    def label(self, current: bool) -> str:
        prompt = " ".join(self.first_prompt.split()) or "(no prompt)"
        prompt = prompt if len(prompt) <= 60 else prompt[:57] + "..."
        mark = "  (this session)" if current else ""
        return f"{self.modified:%Y-%m-%d %H:%M}  {prompt}  [{self.id[:8]}, {self.entries} entries]{mark}"


def list_sessions(home: Path, cwd: str, limit: int = LISTED) -> tuple[list[Listed], int]:
    """The sessions of `cwd`, most recently written first, and how many files could not be read."""
    infos = rein_sessions(home, cwd, limit)
    listed = [
        Listed(
            path=info.path,
            id=info.id,
            modified=info.modified.replace(tzinfo=None),
            first_prompt=info.first_prompt,
            entries=info.entries,
        )
        for info in infos
        if info.problem is None
    ]
    return listed, sum(1 for info in infos if info.problem is not None)


def _messages(store: Session) -> list[object]:
    out: list[object] = []
    for entry in store.tree:
        if isinstance(entry, MessageEntry):
            try:
                out.append(message_from_json(entry.message))
            except MessageFormatError:
                continue
    return out


class SessionCommands:
    def __init__(self, session: AgentSession, *, home: str) -> None:
        self.session = session
        self.home = Path(home)

    def show(self, args: str, ctx: ExtensionContext) -> None:
        store = self.session.store
        replies = [m for m in _messages(store) if isinstance(m, AssistantMessage)]
        total = sum(m.usage.total for m in replies)
        inputs = sum(m.usage.input + m.usage.cache_read + m.usage.cache_write for m in replies)
        outputs = sum(m.usage.output for m in replies)
        lines = [
            f"session file: {store.path or '(in memory, not written)'}",
            f"id: {store.id}",
            f"entries: {len(store.tree)}",
            f"tokens: {total} over {len(replies)} replies ({inputs} in, {outputs} out)",
        ]
        ctx.ui.notify("\n".join(lines))

    async def new(self, args: str, ctx: ExtensionContext) -> None:
        store = Session.create(self.session.cwd, home=self.home)
        await self.session.switch_store(store)
        ctx.ui.notify(f"new session: {store.path}")

    async def resume(self, args: str, ctx: ExtensionContext) -> None:
        """`/resume` picks from this directory's sessions; `/resume ID` takes the one whose id starts
        with ID (for a screen without a picker)."""
        listed, unreadable = list_sessions(self.home, self.session.cwd)
        if unreadable:
            ctx.ui.notify(f"/resume: {unreadable} session file(s) could not be read", "warning")
        current = self.session.store.path
        if args:
            found = [item for item in listed if item.id.startswith(args)]
            exact = [item for item in found if item.id == args]
            if not found:
                ctx.ui.notify(
                    f"/resume {args}: no session of this directory has an id starting so", "warning"
                )
                return
            if len(found) > 1 and not exact:
                ids = ", ".join(sorted(item.id for item in found)[:4]) + (", ..." if len(found) > 4 else "")
                said = f"/resume {args}: the start of {len(found)} session ids ({ids}); give more of it"
                ctx.ui.notify(said, "warning")
                return
            chosen = (exact or found)[0]
        else:
            if not listed:
                ctx.ui.notify("/resume: no sessions in this directory yet")
                return
            labels = {item.label(item.path == current): item for item in listed}
            answer = await ctx.ui.select("Resume which session? (newest first)", list(labels))
            if answer is None or answer not in labels:
                ctx.ui.notify("/resume: no session chosen (/resume ID, or rein --resume FILE, opens one)")
                return
            chosen = labels[answer]
        if chosen.path == current:
            ctx.ui.notify("/resume: that is this session")
            return
        try:
            store = Session.open(chosen.path)
        except (SessionError, OSError) as error:
            ctx.ui.notify(f"/resume: {chosen.path}: {error}", "error")
            return
        if not store.writable:
            ctx.ui.notify(f"/resume: {chosen.path}: rein reads this session but does not write it", "error")
            return
        await self.session.switch_store(store)
        for warning in store.warnings:
            ctx.ui.notify(f"session file: {warning}", "warning")
        ctx.ui.notify(f"resumed {chosen.path} ({chosen.entries} entries)")
