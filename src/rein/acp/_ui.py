"""The editor as rein's `UI`: notices go to the transcript, approval questions become
`session/request_permission` on the tool call they are about.

Every update of a session goes through one `Outbox`, a queue with one sender, so the editor sees them
in the order rein made them, whether they come from a synchronous `notify` or from the event stream.
A prompt's response waits for `drain()`, so no update of a turn arrives after its end.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Mapping, Sequence
from contextvars import ContextVar

from acp import Client
from acp.schema import AllowedOutcome, PermissionOption, PermissionOptionKind, ToolCallUpdate

from rein.acp._convert import Update, notice, tool_title
from rein.ai import ToolCall
from rein.builtins.approval import ALLOW_ONCE, ALLOW_PROJECT, ALLOW_SESSION, DENY
from rein.extensions import Level

CURRENT_CALL: ContextVar[ToolCall | None] = ContextVar("rein_acp_current_call", default=None)
"""The tool call the running task is handling: set at `tool_execution_start`, which the loop emits in
the task that then runs the `tool_call` handlers (approval among them), so `select` knows which call
it asks about, even when calls run in parallel."""

PERMISSION_KINDS: Mapping[str, PermissionOptionKind] = {
    ALLOW_ONCE: "allow_once",
    ALLOW_SESSION: "allow_always",
    ALLOW_PROJECT: "allow_always",
    DENY: "reject_once",
}
"""rein's approval answers as ACP's permission options."""


class Outbox:
    """One session's updates, sent in order by one task."""

    def __init__(self, conn: Client) -> None:
        self.conn = conn
        self.session_id: str | None = None
        self._queue: asyncio.Queue[Update] = asyncio.Queue()
        self._sender: asyncio.Task[None] | None = None

    def put(self, update: Update) -> None:
        """Queue an update; sent once the session has its id (notices of a session starting wait)."""
        self._queue.put_nowait(update)
        if self.session_id is not None and self._sender is None:
            self._sender = asyncio.get_running_loop().create_task(self._send())

    def bind(self, session_id: str) -> None:
        self.session_id = session_id
        if self._sender is None:
            self._sender = asyncio.get_running_loop().create_task(self._send())

    async def drain(self) -> None:
        """Return once every queued update was sent (or failed to send: the editor went away)."""
        if self.session_id is not None:
            await self._queue.join()

    async def close(self) -> None:
        if self._sender is not None:
            self._sender.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._sender

    async def _send(self) -> None:
        assert self.session_id is not None
        while True:
            update = await self._queue.get()
            try:
                await self.conn.session_update(session_id=self.session_id, update=update)
            except Exception:  # a closed connection: nothing to tell anybody, and the run goes on
                pass
            finally:
                self._queue.task_done()


class EditorUI:
    """rein's `UI` for an ACP session. `select` asks the editor only about a tool call's approval;
    `input` has no ACP counterpart and answers None (a denial then carries no typed reason)."""

    def __init__(self, outbox: Outbox) -> None:
        self.outbox = outbox

    def notify(self, message: str, level: Level = "info") -> None:
        prefix = "" if level == "info" else f"{level}: "
        self.outbox.put(notice(f"{prefix}{message}"))

    def set_status(self, key: str, text: str | None) -> None:
        """ACP has no status line; the timebox and others say what matters through `notify` too."""

    async def select(self, title: str, options: Sequence[str]) -> str | None:
        call = CURRENT_CALL.get()
        session_id = self.outbox.session_id
        if call is None or session_id is None or not set(options) <= PERMISSION_KINDS.keys():
            return None  # not an approval question: nobody to ask it in an editor
        await self.outbox.drain()  # the editor knows the call before it is asked about it
        choices = [
            PermissionOption(option_id=option, name=option, kind=PERMISSION_KINDS[option])
            for option in options
        ]
        update = ToolCallUpdate(tool_call_id=call.id, title=tool_title(call), status="pending")
        try:
            answer = await self.outbox.conn.request_permission(
                session_id=session_id, tool_call=update, options=choices
            )
        except Exception:  # `select` may not raise: a failed question is a dismissed one
            return None
        outcome = answer.outcome
        if isinstance(outcome, AllowedOutcome) and outcome.option_id in options:
            return outcome.option_id
        return None  # cancelled (the prompt was cancelled), or an option rein did not offer

    async def input(self, title: str, placeholder: str = "") -> str | None:
        return None
