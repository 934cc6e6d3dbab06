"""One ACP session: a rein `AgentSession` whose events become the editor's session updates.

    live = LiveSession(session, outbox)   # after the factory built it (its extensions loaded)
    await live.start()                    # session_start; the slash commands advertised
    reason = await live.prompt(text)      # one prompt; "end_turn", "cancelled", "max_tokens", ...
    live.cancel()                         # from `session/cancel`: the run stops at once

What the editor sees of a run: the reply's text and thinking as message and thought chunks; each tool
call pending (and asking permission when approval asks), in progress when it runs, then completed or
failed with its output. A call steering (or approval) blocked fails with rein's reason as its content
and a notice in the transcript; a reply a stream rule cut gets a notice (the text already streamed
cannot be taken back in ACP), then the retried reply streams on.
"""

from __future__ import annotations

import asyncio

from acp import update_agent_message_text, update_agent_thought_text
from acp.helpers import update_available_commands, update_current_mode
from acp.schema import SessionModeState, StopReason

from rein.acp._convert import (
    blocked,
    commands,
    modes,
    notice,
    replay,
    tool_end,
    tool_running,
    tool_start,
)
from rein.acp._ui import CURRENT_CALL, Outbox
from rein.agent import AgentEvent
from rein.ai import AssistantMessage
from rein.builtins.approval import MODE_NOTICE, MODES, ApproveMode
from rein.extensions import ExtensionAPI, ExtensionContext, ToolCallEvent
from rein.session import AgentSession


class LiveSession:
    def __init__(self, session: AgentSession, outbox: Outbox) -> None:
        self.session = session
        self.outbox = outbox
        self.id = session.store.id
        self._cancelled = False
        self._lock = asyncio.Lock()
        self.mode: ApproveMode | None = None
        """The approval mode in force (ACP's session mode), as the approval extension last said."""
        self._started = False
        session.subscribe(self._on_event)
        session.subscribe_notices(self._on_notice)
        # Loaded after approval, so its handler runs only for a call nobody blocked: it runs now.
        session.load_extension("acp", self._extension)

    def _extension(self, rein: ExtensionAPI) -> None:
        rein.on("tool_call", self._on_tool_call)

    def _on_tool_call(self, event: ToolCallEvent, ctx: ExtensionContext) -> None:
        self.outbox.put(tool_running(event.info.call.id))

    async def start(self, *, replayed: bool = False) -> None:
        """`session_start` for the extensions; the slash commands queued. With `replayed` (load), the
        branch is shown again and everything sent before this returns, as ACP wants it before the
        load's response; else the updates wait for `open()`."""
        await self.session.start()
        if replayed:
            for update in replay(self.session.branch_messages, self.session.cwd):
                self.outbox.put(update)
        self.outbox.put(update_available_commands(commands(self.session.registry.commands)))
        self._started = True
        if replayed:
            self.open()
            await self.outbox.drain()

    def mode_state(self) -> SessionModeState | None:
        """The session's modes for `session/new` and `session/load`; None without approval."""
        return None if self.mode is None else modes(self.mode)

    async def set_mode(self, mode: str) -> bool:
        """Switch approval as `/approve MODE` does; False for a mode rein does not have."""
        if mode not in MODES or "approve" not in self.session.registry.commands:
            return False
        await self.session.prompt(f"/approve {mode}")
        await self.outbox.drain()
        return True

    def open(self) -> None:
        """Start sending this session's updates (a new session's: once the editor knows its id)."""
        self.outbox.bind(self.id)

    async def prompt(self, text: str) -> StopReason:
        """Run one prompt (or `/command`); returns once every update of it was sent."""
        async with self._lock:
            self._cancelled = False
            try:
                added = await self.session.prompt(text)
            finally:
                await self.outbox.drain()
        last = next((m for m in reversed(added) if isinstance(m, AssistantMessage)), None)
        if self._cancelled or (last is not None and last.stop_reason == "aborted"):
            return "cancelled"
        if last is not None and last.stop_reason == "length":
            return "max_tokens"
        return "end_turn"

    def cancel(self) -> None:
        self._cancelled = True
        self.session.abort()

    async def close(self, *, connected: bool = True) -> None:
        """End the session (`session_shutdown`). With the editor gone (`connected` False), what is
        still queued is dropped: a send on a closed connection may never return."""
        self.session.abort()
        await self.session.shutdown()
        if connected:
            await self.outbox.drain()
        await self.outbox.close()

    def _on_notice(self, name: str, payload: object) -> None:
        mode = next((choice for choice in MODES if choice == payload), None)
        if name == MODE_NOTICE and mode is not None and mode != self.mode:
            self.mode = mode
            if self._started:  # switched later (`/approve`, `session/set_mode`): the editor follows
                self.outbox.put(update_current_mode(mode))

    def _on_event(self, event: AgentEvent) -> None:
        """Synchronous on purpose: `CURRENT_CALL` must be set in the task that runs the call."""
        if event.type == "message_update" and event.delta is not None:
            delta = event.delta
            if delta.source == "text":
                self.outbox.put(update_agent_message_text(delta.delta))
            elif delta.source == "thinking":
                self.outbox.put(update_agent_thought_text(delta.delta))
        elif event.type == "tool_execution_start" and event.tool_call is not None:
            CURRENT_CALL.set(event.tool_call)
            self.outbox.put(tool_start(event.tool_call, self.session.cwd))
        elif event.type == "tool_execution_update" and event.tool_call is not None:
            self.outbox.put(tool_running(event.tool_call.id, event.output))
        elif event.type == "tool_execution_end" and event.tool_call is not None and event.output is not None:
            CURRENT_CALL.set(None)
            self.outbox.put(tool_end(event.tool_call.id, event.output))
            if blocked(event.output):  # approval's reasons say "not run" themselves
                text = event.output.text
                said = text if " not run" in text[:40] else f"{event.tool_call.name} not run: {text}"
                self.outbox.put(notice(said))
        elif event.type == "stream_retry":
            self.outbox.put(notice(f"{event.reason}: this reply was cut and is asked for again."))
        elif event.type == "message_end" and isinstance(event.message, AssistantMessage):
            if event.message.stop_reason == "error":
                self.outbox.put(notice(f"model error: {event.message.error_message or 'unknown'}"))
        elif event.type == "error":
            self.outbox.put(notice(f"error: {event.error}"))
