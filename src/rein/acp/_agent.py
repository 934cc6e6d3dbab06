"""`ReinAgent`: the ACP `Agent` side of `rein acp`, one per connection (one editor).

Sessions are rein's own session files (`~/.rein/sessions/<cwd slug>/<timestamp>_<id>.jsonl`): the
ACP session id is the rein session id, so `rein sessions` lists what the editor started, and
`session/load` (or `rein --resume FILE`) carries one on. Requests of one session are served one
prompt at a time; sessions of one connection run side by side.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Sequence
from pathlib import Path

from acp import PROTOCOL_VERSION, Client, RequestError
from acp.schema import (
    AgentCapabilities,
    AuthenticateResponse,
    ClientCapabilities,
    CloseSessionResponse,
    ForkSessionResponse,
    Implementation,
    InitializeResponse,
    ListSessionsResponse,
    LoadSessionResponse,
    NewSessionResponse,
    PromptCapabilities,
    PromptResponse,
    ResumeSessionResponse,
    SessionCapabilities,
    SessionInfo,
    SessionListCapabilities,
    SetSessionConfigOptionResponse,
    SetSessionModeResponse,
)

from rein import __version__
from rein.acp._convert import PromptBlock, prompt_text
from rein.acp._live import LiveSession
from rein.acp._mcp_servers import McpServer, editor_servers
from rein.acp._types import SessionFactory, StartFailed, UnknownSession
from rein.acp._ui import EditorUI, Outbox
from rein.builtins import add_editor_servers
from rein.session import list_sessions, sessions_dir

SESSION_ID = re.compile(r"[A-Za-z0-9_-]{1,128}")


class ReinAgent:
    """Implements the SDK's `acp.Agent` protocol. A request rein cannot serve answers with a JSON-RPC
    error (`method_not_found`, or `invalid_params` naming the problem in one line)."""

    def __init__(self, factory: SessionFactory, *, home: Path) -> None:
        self.factory = factory
        self.home = home
        self.sessions: dict[str, LiveSession] = {}
        self._conn: Client | None = None

    def on_connect(self, conn: Client) -> None:
        self._conn = conn

    @property
    def conn(self) -> Client:
        assert self._conn is not None, "the SDK connects the agent before any request"
        return self._conn

    async def initialize(
        self,
        protocol_version: int,
        client_capabilities: ClientCapabilities | None = None,
        client_info: Implementation | None = None,
        **kwargs: object,
    ) -> InitializeResponse:
        capabilities = AgentCapabilities(
            load_session=True,
            prompt_capabilities=PromptCapabilities(image=False, audio=False, embedded_context=True),
            session_capabilities=SessionCapabilities(list=SessionListCapabilities()),
        )
        return InitializeResponse(
            protocol_version=min(protocol_version, PROTOCOL_VERSION),
            agent_capabilities=capabilities,
            agent_info=Implementation(name="rein", title="rein", version=__version__),
        )

    async def authenticate(self, method_id: str, **kwargs: object) -> AuthenticateResponse | None:
        return AuthenticateResponse()  # provider keys come from rein's environment, not the editor

    async def new_session(
        self,
        cwd: str,
        additional_directories: list[str] | None = None,
        mcp_servers: list[McpServer] | None = None,
        **kwargs: object,
    ) -> NewSessionResponse:
        live = self._open(cwd, None, mcp_servers)
        await live.start()
        # Runs after this response is queued (the SDK queues it without yielding): an update for a
        # session id the editor has not seen yet would be dropped.
        asyncio.get_running_loop().call_soon(live.open)
        return NewSessionResponse(session_id=live.id, modes=live.mode_state())

    async def load_session(
        self,
        cwd: str,
        session_id: str,
        mcp_servers: list[McpServer] | None = None,
        additional_directories: list[str] | None = None,
        **kwargs: object,
    ) -> LoadSessionResponse | None:
        old = self.sessions.pop(session_id, None)
        if old is not None:  # loaded again: one live session per file
            await old.close()
        try:
            path = self._find(cwd, session_id)
        except UnknownSession as error:
            raise RequestError.invalid_params({"sessionId": session_id, "problem": str(error)}) from None
        live = self._open(cwd, path, mcp_servers)
        await live.start(replayed=True)
        return LoadSessionResponse(modes=live.mode_state())

    async def list_sessions(
        self, cwd: str | None = None, cursor: str | None = None, **kwargs: object
    ) -> ListSessionsResponse:
        if cwd is None:
            return ListSessionsResponse(sessions=[])
        infos = list_sessions(self.home, str(Path(cwd).resolve()))
        return ListSessionsResponse(
            sessions=[
                SessionInfo(
                    session_id=info.id,
                    cwd=info.cwd or cwd,
                    title=info.first_prompt or None,
                    updated_at=info.modified.isoformat(),
                )
                for info in infos
                if info.problem is None
            ]
        )

    async def prompt(self, session_id: str, prompt: list[PromptBlock], **kwargs: object) -> PromptResponse:
        live = self._live(session_id)
        text = prompt_text(prompt)
        if not text:
            raise RequestError.invalid_params({"problem": "the prompt has no text"})
        return PromptResponse(stop_reason=await live.prompt(text))

    async def cancel(self, session_id: str, **kwargs: object) -> None:
        live = self.sessions.get(session_id)
        if live is not None:
            live.cancel()

    async def close_session(self, session_id: str, **kwargs: object) -> CloseSessionResponse | None:
        live = self.sessions.pop(session_id, None)
        if live is not None:
            await live.close()
        return CloseSessionResponse()

    async def close(self) -> None:
        """The editor went away: every session ends (`session_shutdown`), its file complete."""
        for live in list(self.sessions.values()):
            await live.close(connected=False)
        self.sessions.clear()

    async def set_session_mode(
        self, session_id: str, mode_id: str, **kwargs: object
    ) -> SetSessionModeResponse | None:
        """The editor's mode picker: rein's approval mode (`/approve`) for this session."""
        if not await self._live(session_id).set_mode(mode_id):
            raise RequestError.invalid_params(
                {"modeId": mode_id, "problem": "not one of this session's modes"}
            )
        return SetSessionModeResponse()

    # What rein does not offer: the methods exist so the SDK's protocol is met, and say so.

    async def set_config_option(
        self, config_id: str, session_id: str, value: str | bool, **kwargs: object
    ) -> SetSessionConfigOptionResponse | None:
        raise RequestError.method_not_found("session/set_config_option")

    async def fork_session(
        self,
        session_id: str,
        cwd: str,
        additional_directories: list[str] | None = None,
        mcp_servers: list[McpServer] | None = None,
        **kwargs: object,
    ) -> ForkSessionResponse:
        raise RequestError.method_not_found("session/fork")

    async def resume_session(
        self,
        session_id: str,
        cwd: str,
        additional_directories: list[str] | None = None,
        mcp_servers: list[McpServer] | None = None,
        **kwargs: object,
    ) -> ResumeSessionResponse:
        raise RequestError.method_not_found("session/resume")

    async def ext_method(self, method: str, params: dict[str, object]) -> dict[str, object]:
        raise RequestError.method_not_found(method)

    async def ext_notification(self, method: str, params: dict[str, object]) -> None:
        return None

    # -- sessions --------------------------------------------------------------------------------

    def _open(self, cwd: str, path: Path | None, mcp_servers: list[McpServer] | None) -> LiveSession:
        outbox = Outbox(self.conn)
        try:
            session = self.factory(Path(cwd), path, EditorUI(outbox))
        except StartFailed as error:
            raise RequestError.invalid_params({"cwd": cwd, "problem": str(error)}) from None
        add_editor_servers(session, *editor_servers(mcp_servers))  # started with the session
        live = LiveSession(session, outbox)
        self.sessions[live.id] = live
        return live

    def _live(self, session_id: str) -> LiveSession:
        live = self.sessions.get(session_id)
        if live is None:
            raise RequestError.invalid_params(
                {"sessionId": session_id, "problem": "no such session here: create or load it first"}
            )
        return live

    def _find(self, cwd: str, session_id: str) -> Path:
        where = sessions_dir(self.home, Path(cwd).resolve())
        if SESSION_ID.fullmatch(session_id):
            found: Sequence[Path] = sorted(where.glob(f"*_{session_id}.jsonl"))
            if found:
                return found[-1]
        raise UnknownSession(session_id, where)
