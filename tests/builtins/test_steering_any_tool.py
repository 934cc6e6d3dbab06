"""Steering rules and observers on tools an extension adds (issue 37): a tool named `db_query` and one
named as an MCP server's (`mcp__pg__query`, registered here by a test extension), in a whole session."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping

from rein.agent import ToolContext, ToolOutput
from rein.agent.tools import Ls
from rein.ai import Context, TextContent, ToolCall, ToolResultMessage
from rein.builtins.steering import ENTRY as STEERING_ENTRY
from rein.extensions import ExtensionAPI
from tests.builtins.conftest import Harness, MakeHarness

CONFIG = """
[[rule]]
name = "no-prod-writes"
reason = "The production database is read-only: query it, and write a migration for changes."
tool = "mcp__pg__*"
field = "sql"
sql = ["write"]

[[rule]]
name = "no-drop"
reason = "Dropping tables goes through a migration: write one instead."
tool = "db_query"
field = "statement.text"
sql = ["drop"]

[[observer]]
name = "reads"
writes = ["db-read"]
watch = { tool = "mcp__pg__*", field = "sql", pattern = "(?i)^select" }
"""


def query_tool(name: str, ran: list[tuple[str, Mapping[str, object]]]) -> Ls:
    class Query(Ls):
        async def execute(self, args: Mapping[str, object], context: ToolContext) -> ToolOutput:
            ran.append((name, dict(args)))
            return ToolOutput(text="1 row")

    tool = Query()
    tool.name = name
    return tool


def session_with_tools(
    harness: MakeHarness, script: list[object]
) -> tuple[Harness, list[tuple[str, Mapping[str, object]]]]:
    ran: list[tuple[str, Mapping[str, object]]] = []

    def load(rein: ExtensionAPI) -> None:
        rein.register_tool(query_tool("db_query", ran))
        rein.register_tool(query_tool("mcp__pg__query", ran))

    h = harness(script)
    (h.project / ".rein").mkdir()
    (h.project / ".rein" / "steering.toml").write_text(CONFIG)
    h.session.load_extension("db", load)
    return h, ran


def test_a_rule_on_an_mcp_named_tool_blocks_a_write_and_the_model_reads_why(harness: MakeHarness) -> None:
    seen: list[str] = []

    def after(context: Context) -> TextContent:
        seen.extend(
            str(block) for m in context.messages if isinstance(m, ToolResultMessage) for block in m.content
        )
        return TextContent(text="ok")

    calls = [
        ToolCall(id="w", name="mcp__pg__query", arguments={"sql": "DELETE FROM users WHERE id = 7"}),
        ToolCall(id="r", name="mcp__pg__query", arguments={"sql": "SELECT count(*) FROM users"}),
    ]
    h, ran = session_with_tools(harness, [calls, after])
    asyncio.run(h.session.start())
    added = asyncio.run(h.session.prompt("clean up user 7"))
    results = {m.tool_call_id: m for m in added if isinstance(m, ToolResultMessage)}
    assert results["w"].is_error and "[steering:no-prod-writes@user]" in str(results["w"].content[0])
    assert not results["r"].is_error
    assert ran == [("mcp__pg__query", {"sql": "SELECT count(*) FROM users"})]
    assert any("[steering:no-prod-writes@user] The production database is read-only" in s for s in seen)
    entries = [e for e in h.session.custom_entries(STEERING_ENTRY) if e["type"] == "db-read"]
    assert len(entries) == 1 and entries[0]["data"] == {
        "observer": "reads",
        "tool": "mcp__pg__query",
        "args": {"sql": "SELECT count(*) FROM users"},
        "error": False,
    }


def test_a_rule_on_an_extension_tool_reads_a_nested_argument(harness: MakeHarness) -> None:
    calls = [
        ToolCall(id="d", name="db_query", arguments={"statement": {"text": "drop table users"}}),
        ToolCall(
            id="u", name="db_query", arguments={"statement": {"text": "UPDATE t SET a = 1 WHERE id = 2"}}
        ),
        ToolCall(id="m", name="db_query", arguments={"sql": "drop table users"}),
    ]
    h, ran = session_with_tools(harness, [calls, [TextContent(text="ok")]])
    asyncio.run(h.session.start())
    added = asyncio.run(h.session.prompt("go"))
    results = {m.tool_call_id: m for m in added if isinstance(m, ToolResultMessage)}
    assert results["d"].is_error and "[steering:no-drop@user]" in str(results["d"].content[0])
    assert not results["u"].is_error and not results["m"].is_error  # an update; no `statement.text` at all
    assert [args for _, args in ran] == [
        {"statement": {"text": "UPDATE t SET a = 1 WHERE id = 2"}},
        {"sql": "drop table users"},
    ]


def test_an_mcp_tools_own_command_argument_is_data_not_a_shell_line(harness: MakeHarness) -> None:
    # an MCP tool named by a rule, whose arguments carry a `command`: its rules decide, not the
    # fail-closed check for a shell line sent under another tool's name
    calls = [
        ToolCall(id="c", name="mcp__pg__query", arguments={"command": "status", "sql": "SELECT 1"}),
        ToolCall(id="w", name="mcp__pg__query", arguments={"command": "run", "sql": "DELETE FROM t"}),
    ]
    h, ran = session_with_tools(harness, [calls, [TextContent(text="ok")]])
    asyncio.run(h.session.start())
    added = asyncio.run(h.session.prompt("go"))
    results = {m.tool_call_id: m for m in added if isinstance(m, ToolResultMessage)}
    assert not results["c"].is_error
    assert results["w"].is_error and "[steering:no-prod-writes@user]" in str(results["w"].content[0])
    assert ran == [("mcp__pg__query", {"command": "status", "sql": "SELECT 1"})]
