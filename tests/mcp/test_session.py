"""MCP servers through a whole rein session: the faux model calls `mcp__demo__add` on a real MCP server
(stdio and streamable HTTP), the result reaches the model, approval asks for it, and a server that
cannot start is one line while the session goes on."""

from __future__ import annotations

import asyncio
import sys
import time

import pytest

from rein.ai import AssistantMessage, Context, TextContent, ToolCall, ToolResultMessage
from rein.ai.providers.faux import FauxTurn
from rein.builtins.approval import ALLOW_PROJECT, ALLOW_SESSION, DENY, PROJECT_OPTIONS
from tests.mcp.conftest import Harness, MakeHarness, stdio_entry, write_mcp_json

pytestmark = pytest.mark.slow


def add(id: str, a: int, b: int) -> ToolCall:
    return ToolCall(id=id, name="mcp__demo__add", arguments={"a": a, "b": b})


def run(h: Harness, *prompts: str) -> None:
    async def go() -> None:
        await h.session.start()
        try:
            for prompt in prompts:
                await h.session.prompt(prompt)
        finally:
            await h.session.shutdown()

    asyncio.run(go())


def results(h: Harness) -> list[ToolResultMessage]:
    return [m for m in h.session.messages if isinstance(m, ToolResultMessage)]


class Seen:
    """A faux turn that records the last message the model was sent, then answers `done`."""

    def __init__(self) -> None:
        self.last: object = None
        self.tools: list[str] = []

    def __call__(self, context: Context) -> FauxTurn:
        self.last = context.messages[-1]
        self.tools = [tool.name for tool in context.tools]
        return [TextContent(text="done")]


def test_the_model_calls_a_stdio_server_tool_and_reads_its_result(harness: MakeHarness) -> None:
    seen = Seen()
    h = harness([[add("1", 2, 40)], seen])
    write_mcp_json(h.project, {"demo": stdio_entry()})
    run(h, "add")
    assert isinstance(seen.last, ToolResultMessage)
    assert seen.last.tool_name == "mcp__demo__add" and seen.last.text == "42" and not seen.last.is_error
    assert {"mcp__demo__add", "mcp__demo__fail", "mcp__demo__picture", "bash"} <= set(seen.tools)
    assert ("mcp: demo (4 tools)", "info") in h.ui.notices


def test_the_model_calls_a_streamable_http_server_tool(harness: MakeHarness, http_demo: str) -> None:
    seen = Seen()
    h = harness([[add("1", 1, 2)], seen])
    write_mcp_json(h.project, {"demo": {"type": "http", "url": http_demo}})
    run(h, "add")
    assert isinstance(seen.last, ToolResultMessage) and seen.last.text == "3"


def test_an_error_result_and_an_image_reach_the_model_as_text(harness: MakeHarness) -> None:
    h = harness(
        [
            [
                ToolCall(id="1", name="mcp__demo__fail", arguments={"message": "no such issue"}),
                ToolCall(id="2", name="mcp__demo__picture", arguments={}),
            ],
            [TextContent(text="done")],
        ]
    )
    write_mcp_json(h.project, {"demo": stdio_entry()})
    run(h, "go")
    failed, picture = results(h)
    assert failed.is_error and "no such issue" in failed.text
    assert not picture.is_error
    assert picture.text == "a dot\n[image: image/png, 33 bytes, not shown]"


def test_approval_asks_for_an_mcp_tool_and_remembers_it_for_the_session(harness: MakeHarness) -> None:
    h = harness([[add("1", 1, 1)], [add("2", 2, 2)], [TextContent(text="done")]], approve="ask")
    write_mcp_json(h.project, {"demo": stdio_entry()})
    h.ui.answers = [ALLOW_SESSION]
    run(h, "go")
    assert [r.text for r in results(h)] == ["2", "4"]
    assert len(h.ui.asked) == 1
    title, options = h.ui.asked[0]
    assert options == PROJECT_OPTIONS
    assert title.startswith('Allow the agent to call mcp__demo__add with {"a": 1, "b": 1}?')


def test_always_allow_saves_the_tool_for_the_project(harness: MakeHarness) -> None:
    h = harness([[add("1", 1, 1)], [TextContent(text="done")]], approve="ask")
    write_mcp_json(h.project, {"demo": stdio_entry()})
    h.ui.answers = [ALLOW_PROJECT]
    run(h, "go")
    saved = (h.project / ".rein" / "approved.toml").read_text()
    assert '[[allow]]\ntool = "mcp__demo__add"\n' in saved
    later = harness([[add("1", 5, 5)], [TextContent(text="done")]], approve="ask")
    run(later, "again")
    assert later.ui.asked == [] and [r.text for r in results(later)] == ["10"]


def test_a_denied_call_does_not_reach_the_server(harness: MakeHarness) -> None:
    h = harness([[add("1", 1, 1)], [TextContent(text="done")]], approve="ask")
    write_mcp_json(h.project, {"demo": stdio_entry()})
    h.ui.answers = [DENY, "not now"]
    run(h, "go")
    (result,) = results(h)
    assert (
        result.is_error and "the user denied this mcp__demo__add call. Their reason: not now" in result.text
    )


def test_deny_mode_blocks_and_print_mode_denies_without_asking(harness: MakeHarness) -> None:
    for approve, interactive in (("deny", True), ("ask", False)):
        h = harness([[add("1", 1, 1)], [TextContent(text="done")]], approve=approve, interactive=interactive)
        write_mcp_json(h.project, {"demo": stdio_entry()})
        run(h, "go")
        (result,) = results(h)
        assert result.is_error and result.text.startswith("[approval] not run"), approve
        assert h.ui.asked == []


def test_a_server_whose_command_does_not_exist_is_one_line_and_the_session_goes_on(
    harness: MakeHarness,
) -> None:
    seen = Seen()
    h = harness([[add("1", 1, 2)], seen])
    write_mcp_json(h.project, {"demo": stdio_entry(), "ghost": {"command": "no-such-mcp-server-xyz"}})
    run(h, "add")
    warnings = [message for message, level in h.ui.notices if level == "warning"]
    assert warnings == [
        "mcp: MCP server ghost (.mcp.json) failed to start: command not found: no-such-mcp-server-xyz;"
        " the session goes on without its tools"
    ]
    assert isinstance(seen.last, ToolResultMessage) and seen.last.text == "3"


def test_a_server_that_dies_is_one_line_and_its_tools_answer_an_error(harness: MakeHarness) -> None:
    h = harness(
        [
            [ToolCall(id="1", name="mcp__demo__crash", arguments={})],
            [add("2", 1, 1)],
            [TextContent(text="done")],
        ]
    )
    write_mcp_json(h.project, {"demo": stdio_entry()})
    run(h, "go")
    crashed, after = results(h)
    assert crashed.is_error and "MCP server demo is not running" in crashed.text
    assert after.is_error and "MCP server demo is not running" in after.text
    gone = [message for message, _ in h.ui.notices if "stopped" in message]
    assert len(gone) == 1 and gone[0].startswith("mcp: MCP server demo stopped (the connection closed")


def test_a_server_that_does_not_start_in_time_is_one_line(harness: MakeHarness) -> None:
    h = harness([[TextContent(text="still here")]], settings={"mcp": {"startup_timeout": 1}})
    hang = {"command": sys.executable, "args": ["-c", "import time; time.sleep(60)"]}
    write_mcp_json(h.project, {"slow": hang})
    started = time.monotonic()
    run(h, "hello")
    assert time.monotonic() - started < 20
    warnings = [message for message, level in h.ui.notices if level == "warning"]
    assert warnings == [
        "mcp: MCP server slow (.mcp.json) failed to start: did not start within 1 s; the session goes on"
        " without its tools"
    ]
    assert [m.text for m in h.session.messages if isinstance(m, AssistantMessage)] == ["still here"]
