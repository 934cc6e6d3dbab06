"""Servers an editor passes over ACP (`session/new`'s `mcpServers`): read as rein's configurations, and
through a real `rein acp` process that starts the demo server, the faux model calls its tool, and the
editor is asked for permission first."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest

pytest.importorskip("acp", reason="the acp extra (agent-client-protocol) is not installed")

from acp import PROTOCOL_VERSION, text_block
from acp.schema import (
    AcpMcpServer,
    EnvVariable,
    HttpHeader,
    HttpMcpServer,
    McpServerStdio,
    PermissionOption,
    SseMcpServer,
    ToolCallUpdate,
)

from rein.acp import editor_servers
from rein.mcp import ServerConfig
from tests.acp.client import RecordingClient, faux_script, rein_acp
from tests.mcp.conftest import DEMO


def test_an_editors_servers_become_configs_and_sse_is_refused() -> None:
    configs, problems = editor_servers(
        [
            McpServerStdio(name="fs", command="srv", args=["-v"], env=[EnvVariable(name="K", value="v")]),
            HttpMcpServer(
                name="web", url="https://w/mcp", headers=[HttpHeader(name="A", value="b")], type="http"
            ),
            SseMcpServer(name="old", url="https://o/sse", headers=[], type="sse"),
        ]
    )
    assert configs == [
        ServerConfig(
            name="fs", transport="stdio", source="the editor", command="srv", args=("-v",), env={"K": "v"}
        ),
        ServerConfig(
            name="web", transport="http", source="the editor", url="https://w/mcp", headers={"A": "b"}
        ),
    ]
    assert problems == [
        "MCP server old (the editor): SSE servers are not supported (stdio and streamable HTTP are); the"
        " session goes on without it"
    ]


def allow_once(call: ToolCallUpdate, options: list[PermissionOption]) -> str | None:
    return "Allow once"


@pytest.mark.slow
def test_an_editors_stdio_server_is_started_and_its_tool_called(tmp_path: Path) -> None:
    asyncio.run(_an_editors_stdio_server_is_started_and_its_tool_called(tmp_path))


async def _an_editors_stdio_server_is_started_and_its_tool_called(tmp_path: Path) -> None:
    project, home = tmp_path / "project", tmp_path / "home"
    project.mkdir()
    home.mkdir()
    script = faux_script(
        tmp_path / "s.json",
        [
            [{"tool": "mcp__ed__add", "id": "c1", "arguments": {"a": 20, "b": 22}}],
            [{"text": "Added."}],
        ],
    )
    client = RecordingClient(allow_once)
    servers: list[HttpMcpServer | SseMcpServer | AcpMcpServer | McpServerStdio] = [
        McpServerStdio(name="ed", command=sys.executable, args=[str(DEMO)], env=[]),
        SseMcpServer(name="old", url="http://127.0.0.1:9/sse", headers=[], type="sse"),
    ]
    args = ("--provider", "faux", "--approve", "ask")
    async with rein_acp(client, *args, cwd=project, home=home, script=script) as conn:
        await conn.initialize(protocol_version=PROTOCOL_VERSION)
        session = await conn.new_session(cwd=str(project), mcp_servers=servers)
        response = await conn.prompt(session_id=session.session_id, prompt=[text_block("add")])
        assert response.stop_reason == "end_turn"
        await client.until(lambda: "completed" in client.statuses("c1") and client.text().endswith("Added."))
    (asked, _options) = client.permissions[0]
    assert asked.tool_call_id == "c1" and "mcp__ed__add" in (asked.title or "")
    assert "42" in client.tool_output("c1")
    assert "[rein] mcp: ed (4 tools)" in client.text()
    assert (
        "[rein] warning: mcp: MCP server old (the editor): SSE servers are not supported (stdio and"
        " streamable HTTP are); the session goes on without it"
    ) in client.text()
