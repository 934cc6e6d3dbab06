"""An ACP client for the tests: the SDK's client side over `rein acp`'s stdio, recording every update
and answering permission requests as the test says."""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

acp = pytest.importorskip("acp", reason="the acp extra (agent-client-protocol) is not installed")

from acp import RequestError, spawn_agent_process  # noqa: E402
from acp.client.connection import ClientSideConnection  # noqa: E402
from acp.schema import (  # noqa: E402
    AgentMessageChunk,
    AgentThoughtChunk,
    AllowedOutcome,
    CreateElicitationResponse,
    CreateTerminalResponse,
    DeniedOutcome,
    EnvVariable,
    KillTerminalResponse,
    PermissionOption,
    ReadTextFileResponse,
    ReleaseTerminalResponse,
    RequestPermissionResponse,
    TerminalOutputResponse,
    TextContentBlock,
    ToolCallProgress,
    ToolCallStart,
    ToolCallUpdate,
    UserMessageChunk,
    WaitForTerminalExitResponse,
    WriteTextFileResponse,
)

from tests.cli.helpers import rein_env  # noqa: E402

Answer = Callable[[ToolCallUpdate, list[PermissionOption]], str | None]
"""Picks a permission option's id, or None to answer "cancelled"."""


class RecordingClient:
    """Implements the SDK's `acp.Client` protocol; what the editor would show is in `updates`."""

    def __init__(self, answer: Answer | None = None) -> None:
        self.answer = answer
        self.updates: list[object] = []
        self.permissions: list[tuple[ToolCallUpdate, list[PermissionOption]]] = []
        self._changed = asyncio.Condition()

    async def until(self, predicate: Callable[[], bool], timeout: float = 20.0) -> None:
        """Wait until `predicate()` holds (checked on every update)."""

        async def wait() -> None:
            async with self._changed:
                await self._changed.wait_for(predicate)

        await asyncio.wait_for(wait(), timeout)

    async def _record(self, item: object) -> None:
        async with self._changed:
            self.updates.append(item)
            self._changed.notify_all()

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        await self._record(update)

    async def request_permission(
        self, session_id: str, tool_call: ToolCallUpdate, options: list[PermissionOption], **kwargs: Any
    ) -> RequestPermissionResponse:
        self.permissions.append((tool_call, options))
        await self._record(("permission", tool_call.tool_call_id))
        chosen = self.answer(tool_call, options) if self.answer is not None else None
        if chosen is None:
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        return RequestPermissionResponse(outcome=AllowedOutcome(outcome="selected", option_id=chosen))

    # -- what rein never asks of the editor -------------------------------------------------------

    async def write_text_file(
        self, session_id: str, path: str, content: str, **kwargs: Any
    ) -> WriteTextFileResponse | None:
        raise RequestError.method_not_found("fs/write_text_file")

    async def read_text_file(
        self, session_id: str, path: str, line: int | None = None, limit: int | None = None, **kwargs: Any
    ) -> ReadTextFileResponse:
        raise RequestError.method_not_found("fs/read_text_file")

    async def create_terminal(
        self,
        session_id: str,
        command: str,
        args: list[str] | None = None,
        env: list[EnvVariable] | None = None,
        cwd: str | None = None,
        output_byte_limit: int | None = None,
        **kwargs: Any,
    ) -> CreateTerminalResponse:
        raise RequestError.method_not_found("terminal/create")

    async def terminal_output(
        self, session_id: str, terminal_id: str, **kwargs: Any
    ) -> TerminalOutputResponse:
        raise RequestError.method_not_found("terminal/output")

    async def release_terminal(
        self, session_id: str, terminal_id: str, **kwargs: Any
    ) -> ReleaseTerminalResponse | None:
        raise RequestError.method_not_found("terminal/release")

    async def wait_for_terminal_exit(
        self, session_id: str, terminal_id: str, **kwargs: Any
    ) -> WaitForTerminalExitResponse:
        raise RequestError.method_not_found("terminal/wait_for_exit")

    async def kill_terminal(
        self, session_id: str, terminal_id: str, **kwargs: Any
    ) -> KillTerminalResponse | None:
        raise RequestError.method_not_found("terminal/kill")

    async def create_elicitation(self, message: str, mode: Any, **kwargs: Any) -> CreateElicitationResponse:
        raise RequestError.method_not_found("elicitation/create")

    async def complete_elicitation(self, elicitation_id: str, **kwargs: Any) -> None:
        return None

    async def ext_method(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        raise RequestError.method_not_found(method)

    async def ext_notification(self, method: str, params: dict[str, Any]) -> None:
        return None

    def on_connect(self, conn: Any) -> None:
        return None

    # -- reading what was shown ---------------------------------------------------------------------

    def text(self) -> str:
        return "".join(_text(u.content) for u in self.updates if isinstance(u, AgentMessageChunk))

    def thoughts(self) -> str:
        return "".join(_text(u.content) for u in self.updates if isinstance(u, AgentThoughtChunk))

    def user_text(self) -> str:
        return "".join(_text(u.content) for u in self.updates if isinstance(u, UserMessageChunk))

    def tool_updates(self, call_id: str) -> list[ToolCallStart | ToolCallProgress]:
        return [
            u
            for u in self.updates
            if isinstance(u, ToolCallStart | ToolCallProgress) and u.tool_call_id == call_id
        ]

    def statuses(self, call_id: str) -> list[str]:
        return [u.status for u in self.tool_updates(call_id) if u.status is not None]

    def tool_output(self, call_id: str) -> str:
        return "".join(
            _text(item.content)
            for u in self.tool_updates(call_id)
            for item in u.content or ()
            if getattr(item, "type", None) == "content"
        )


def _text(block: object) -> str:
    return block.text if isinstance(block, TextContentBlock) else ""


def faux_script(path: Path, replies: list[object], *, delay: float = 0.0, chunk: int = 4) -> Path:
    """A `REIN_FAUX_SCRIPT` file (see rein.ai.providers.faux_script)."""
    path.write_text(json.dumps({"delay": delay, "chunkSize": chunk, "replies": replies}))
    return path


@asynccontextmanager
async def rein_acp(
    client: RecordingClient, *args: str, cwd: Path, home: Path, script: Path | None = None
) -> AsyncIterator[ClientSideConnection]:
    """`rein acp ARGS` as the editor starts it, initialized; the connection to talk to it."""
    env = rein_env(home)
    if script is not None:
        env["REIN_FAUX_SCRIPT"] = str(script)
    async with spawn_agent_process(
        client, sys.executable, "-m", "rein.cli", "acp", *args, env=env, cwd=cwd
    ) as (conn, _process):
        yield conn
