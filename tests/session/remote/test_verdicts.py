"""The server's steering verdicts on the client: a call the server blocked does not run, and the model
reads the server's reason as the call's result."""

from __future__ import annotations

import asyncio
from pathlib import Path

from rein.agent.tools import Ls
from rein.ai import FauxProvider, Model, TextContent, ToolCall, ToolResultMessage
from rein.session import AgentSession, Session
from rein.session.remote import server_verdicts
from tests.session.test_agent_writes import QuietUI


def test_a_call_the_server_blocked_does_not_run_and_its_reason_reaches_the_model(tmp_path: Path) -> None:
    (tmp_path / "visible.txt").write_text("x")
    faux = FauxProvider([
        [ToolCall(id="c1", name="ls", arguments={"path": "."})],
        [ToolCall(id="c2", name="ls", arguments={"path": "."})],
        [TextContent(text="done")],
    ])  # fmt: skip
    blocked = {"c1": "[steering:no-ls@server] listing is not allowed here"}
    session = AgentSession(
        store=Session.in_memory(str(tmp_path)),
        provider=faux,
        model=Model(provider="faux", id="faux-1"),
        cwd=str(tmp_path),
        ui=QuietUI(),
        tools=[Ls()],
    )
    session.load_extension("server-verdicts", server_verdicts(blocked))

    async def go() -> list[ToolResultMessage]:
        added = await session.run([])
        return [m for m in added if isinstance(m, ToolResultMessage)]

    first, second = asyncio.run(go())
    assert first.is_error and "listing is not allowed here" in first.text
    assert not second.is_error and "visible.txt" in second.text, "an unblocked call runs"
    assert blocked == {}, "a verdict is used once"
