"""Checkpoints in rein's own agent session: each run that changed files is recorded, `/undo [N]` puts
back the files of the last N, and continuing from another point of the tree offers its files.

    agent_start      a snapshot of the project starts in a thread while the model is asked, when the
                     project has a shadow repository already (so a chat never creates one)
    tool_call        before the first call of a tool that may change files (not read, ls, grep,
                     find), that snapshot is waited for (or taken now): the run's "before"
    agent_end        a snapshot again; when files differ, a `checkpoint` entry with both trees and the
                     files (written by write, edit, bash or anything else: the whole tree is compared)

`/tree` (the tree's "continue from here") calls `offer_restore`: when the files differ from that
point's, the person is asked whether to restore them too; nobody there: they stay, and it says so.

A turn here is a prompt's run: what a person undoes is what they asked for. A checkpoint failure
(no git, a project too big) is said once and turns checkpoints off for the session; it never stops a run.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path

from rein.builtins.checkpoints_undo import (
    UndoResult,
    files_at,
    restore_lines,
    restore_point,
    shown,
    undo_turns,
)
from rein.checkpoints import CHECKPOINT, MAX_FILES, Checkpoint, CheckpointError, ShadowRepo
from rein.extensions import (
    UI,
    AgentEndEvent,
    AgentStartEvent,
    ExtensionAPI,
    ExtensionContext,
    ToolCallEvent,
)
from rein.session import AgentSession

READ_ONLY = frozenset({"read", "ls", "grep", "find"})
"""Tools that never change files: a run calling only these takes no checkpoint."""
RESTORE_TITLE = "Restore the files of that point too? ({count} file(s) differ: {files})"
RESTORE_OPTIONS = ("no, keep the files as they are", "yes, restore the files")


class CheckpointExtension:
    def __init__(
        self, rein: ExtensionAPI, session: AgentSession, *, home: str, exclude: Sequence[Path] = ()
    ) -> None:
        """`exclude`: paths the host writes itself (the session server's database), never snapshot."""
        self.rein = rein
        self.session = session
        self.repo = ShadowRepo(Path(session.cwd).resolve(), Path(home), max_files=MAX_FILES, exclude=exclude)
        self.off: str | None = None
        self._before: asyncio.Task[str] | None = None
        self._changing = False
        self._running = False
        rein.on("agent_start", self.on_agent_start)
        rein.on("tool_call", self.on_tool_call)
        rein.on("agent_end", self.on_agent_end)
        rein.register_command("undo", "Put back the files of the last turns: /undo [N]", self.undo)

    def _fail(self, error: CheckpointError, ctx: ExtensionContext) -> None:
        self.off = str(error)
        ctx.ui.notify(f"checkpoints off for this session: {error}", "warning")

    async def on_agent_start(self, event: AgentStartEvent, ctx: ExtensionContext) -> None:
        self._running, self._changing = True, False
        if self.off is None and self.repo.exists():
            self._start()

    def _start(self) -> None:
        self._before = asyncio.create_task(asyncio.to_thread(self.repo.snapshot))

    async def on_tool_call(self, event: ToolCallEvent, ctx: ExtensionContext) -> None:
        if event.info.call.name in READ_ONLY or self.off is not None:
            return
        self._changing = True
        if self._before is None:
            self._start()
        if self._before is not None:  # the tool must not run before "before" is taken
            await asyncio.wait([self._before])

    async def on_agent_end(self, event: AgentEndEvent, ctx: ExtensionContext) -> None:
        self._running = False
        before, self._before = self._before, None
        if before is None:
            return
        try:
            first = await before
            if not self._changing or self.off is not None:
                return
            after = await asyncio.to_thread(self.repo.snapshot)
            files = await asyncio.to_thread(self.repo.changes, first, after)
        except CheckpointError as error:
            self._fail(error, ctx)
            return
        if files:
            checkpoint = Checkpoint(id=self.session.store.new_id(), before=first, after=after, files=files)
            self.rein.append_entry(CHECKPOINT, checkpoint.to_data())

    async def undo(self, args: str, ctx: ExtensionContext) -> None:
        """`/undo [N]`: the files of the last N turns (1 by default) that changed files."""
        text = args.strip() or "1"
        if not text.isdigit() or int(text) < 1:
            ctx.ui.notify(f"/undo {args}: give a number of turns, /undo 2", "warning")
            return
        if self._running:
            ctx.ui.notify("/undo: a run is going; wait for it to end, or abort it first", "warning")
            return
        store = self.session.store
        if not store.writable:
            ctx.ui.notify("/undo: this session is read only: nothing changed", "error")
            return
        try:
            result = await asyncio.to_thread(undo_turns, store, self.repo, int(text))
        except CheckpointError as error:
            ctx.ui.notify(f"/undo: {error}; nothing recorded", "error")
            return
        if isinstance(result, str):
            ctx.ui.notify(f"/undo: {result}")
            return
        self._tell_model(result)
        ctx.ui.notify("/undo: " + "\n".join(result.lines()))

    def _tell_model(self, result: UndoResult) -> None:
        if result.undone.files:
            self.rein.send_message("checkpoint_undo", result.note(), display=False)


async def offer_restore(session: AgentSession, home: str, leaf: str | None, ui: UI) -> str | None:
    """After the tree's "continue from here": when the files the session's turns changed differ from
    that point's, ask whether to restore them too. Returns the line to show (None: nothing differs,
    or the session has no checkpoints). Nobody there to answer: the files stay, and the line says so."""
    store = session.store
    if not store.writable:
        return None
    repo = ShadowRepo(Path(session.cwd).resolve(), Path(home), max_files=MAX_FILES)
    try:
        point = await asyncio.to_thread(files_at, store, repo, leaf)
    except CheckpointError as error:
        return f"checkpoints: {error}; the files stay as they are"
    if point is None or not point.differing:
        return None
    title = RESTORE_TITLE.format(count=len(point.differing), files=shown(point.differing))
    answer = await ui.select(title, RESTORE_OPTIONS)
    if answer is None:
        return (
            f"the files stay as they are (nobody answered): {shown(point.differing)} differ from"
            " that point; /undo puts back a turn's files"
        )
    if answer != RESTORE_OPTIONS[1]:
        return f"the files stay as they are: {shown(point.differing)}"
    try:
        done = await asyncio.to_thread(restore_point, store, repo, point)
    except CheckpointError as error:
        return f"checkpoints: {error}; the files stay as they are"
    return "\n".join(restore_lines(done))
