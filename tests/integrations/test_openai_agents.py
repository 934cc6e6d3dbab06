"""rein in the OpenAI Agents SDK: a real `agents.Agent` run by `Runner.run` / `Runner.run_streamed`,
its `OpenAIChatCompletionsModel` talking to the local SSE server through the real OpenAI client.
Steering blocks a tool call through a tool input guardrail (the tool never runs, the model reads the
reason); a stream rule cuts the model call and re-issues it with the rule injected; the timebox stops
the run."""

from __future__ import annotations

import asyncio
import subprocess
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("agents", reason="the openai-agents extra not installed")

from agents import (
    Agent,
    FunctionTool,
    OpenAIChatCompletionsModel,
    RunConfig,
    Runner,
    function_tool,
    set_tracing_disabled,
)
from openai import AsyncOpenAI

from rein.ai import JsonValue, TextContent, ToolCall
from rein.ai.testing import Hang, Reply, SseServer, chat_reply
from rein.integrations import Cut, Guard
from rein.integrations.openai_agents import ReinModel, TimeboxExceeded, guard_agent, guard_tools
from tests.integrations.helpers import commit_gated_on_pytest

RULE = "---\ncondition: forbidden\n---\nNever write the word it matches; say it another way.\n"
REASON = "[steering:no-force-push@defaults]"
TESTS_BEFORE_COMMIT = commit_gated_on_pytest(exit_code=False)

Run = Callable[[Agent[Any], str], Awaitable[str]]
Turn = tuple[str, Sequence[ToolCall]]
"""One model reply: its text and its tool calls."""


set_tracing_disabled(True)  # the SDK would export traces to OpenAI; left off for the whole process


@pytest.fixture
def project(tmp_path: Path) -> Path:
    subprocess.run(["git", "init", "-q", "-b", "feature", str(tmp_path)], check=True)
    (tmp_path / ".rein" / "rules").mkdir(parents=True)
    (tmp_path / ".rein" / "rules" / "no-word.md").write_text(RULE)
    return tmp_path


async def run_whole(agent: Agent[Any], prompt: str) -> str:
    result = await Runner.run(agent, prompt, run_config=RunConfig(tracing_disabled=True))
    return str(result.final_output)


async def run_streamed(agent: Agent[Any], prompt: str) -> str:
    result = Runner.run_streamed(agent, prompt, run_config=RunConfig(tracing_disabled=True))
    async for _ in result.stream_events():
        pass
    return str(result.final_output)


RUNS = pytest.mark.parametrize("run", [run_whole, run_streamed], ids=["run", "run_streamed"])


def bash_tool(project: Path) -> FunctionTool:
    """A bash tool that records each command it is given in a marker file (and runs nothing)."""

    @function_tool
    def bash(command: str) -> str:
        """Run a shell command."""
        with (project / "ran.txt").open("a") as marker:
            marker.write(command + "\n")
        return f"ran: {command}"

    return bash


def reply(text: str = "", calls: Sequence[ToolCall] = (), usage: tuple[int, int] = (20, 10)) -> Reply:
    """`run` asks without streaming: a whole chat completion."""
    message: dict[str, JsonValue] = {"role": "assistant", "content": text or None}
    if calls:
        message["tool_calls"] = [
            {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments_text}}
            for c in calls
        ]
    choice: JsonValue = {"index": 0, "message": message, "finish_reason": "tool_calls" if calls else "stop"}
    counts: JsonValue = {"prompt_tokens": usage[0], "completion_tokens": usage[1], "total_tokens": sum(usage)}
    head: dict[str, JsonValue] = {"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "m"}
    return Reply(body={**head, "choices": [choice], "usage": counts})


def streamed(text: str = "", calls: Sequence[ToolCall] = (), usage: tuple[int, int] = (20, 10)) -> Reply:
    blocks: list[TextContent | ToolCall] = [TextContent(text=text)] if text else []
    return Reply(steps=chat_reply(*blocks, *calls, usage=(*usage, 0)))


def replies(run: Run, *turns: Turn, usage: tuple[int, int] = (20, 10)) -> list[Reply]:
    build = reply if run is run_whole else streamed
    return [build(text, calls, usage) for text, calls in turns]


def call(command: str, call_id: str = "call_1") -> ToolCall:
    return ToolCall(id=call_id, name="bash", arguments={"command": command})


def agent_for(server: SseServer, client: AsyncOpenAI, project: Path) -> Agent[Any]:
    model = OpenAIChatCompletionsModel(model="m", openai_client=client)
    return Agent(name="coder", instructions="You write code.", model=model, tools=[bash_tool(project)])


def messages(server: SseServer, index: int) -> list[dict[str, Any]]:
    body = server.requests[index].body
    assert isinstance(body, dict) and isinstance(body["messages"], list)
    return [m for m in body["messages"] if isinstance(m, dict)]


async def with_server(
    body: Callable[[SseServer, AsyncOpenAI], Awaitable[None]], *answers: Reply
) -> SseServer:
    async with SseServer(answers) as server:
        client = AsyncOpenAI(base_url=server.url + "/v1", api_key="k", max_retries=0)
        try:
            await body(server, client)
        finally:
            await client.close()
    return server


@RUNS
def test_a_blocked_call_never_runs_and_the_model_reads_the_reason(run: Run, project: Path) -> None:
    async def body(server: SseServer, client: AsyncOpenAI) -> None:
        agent = guard_agent(agent_for(server, client, project), Guard(project, home=project))
        assert await run(agent, "push it") == "I will not force-push."

    turns: list[Turn] = [("", [call("git push --force origin main")]), ("I will not force-push.", [])]
    server = asyncio.run(with_server(body, *replies(run, *turns)))
    assert not (project / "ran.txt").exists()
    result = next(m for m in messages(server, 1) if m["role"] == "tool")
    assert result["tool_call_id"] == "call_1" and result["content"].startswith(REASON)


@RUNS
def test_an_allowed_call_runs_and_its_output_reaches_the_model(run: Run, project: Path) -> None:
    async def body(server: SseServer, client: AsyncOpenAI) -> None:
        agent = guard_agent(agent_for(server, client, project), Guard(project, home=project))
        assert await run(agent, "look") == "Done."

    server = asyncio.run(with_server(body, *replies(run, ("", [call("git status")]), ("Done.", []))))
    assert (project / "ran.txt").read_text() == "git status\n"
    assert next(m for m in messages(server, 1) if m["role"] == "tool")["content"] == "ran: git status"


@RUNS
def test_finished_calls_reach_steering_observers(run: Run, project: Path) -> None:
    (project / ".rein" / "steering.toml").write_text(TESTS_BEFORE_COMMIT)

    async def body(server: SseServer, client: AsyncOpenAI) -> None:
        agent = guard_agent(agent_for(server, client, project), Guard(project, home=project))
        assert await run(agent, "commit") == "Committed."

    commit, tests = call("git commit -m x", "call_1"), call("pytest -q", "call_2")
    turns: list[Turn] = [
        ("", [commit]),
        ("", [tests]),
        ("", [call("git commit -m x", "call_3")]),
        ("Committed.", []),
    ]
    server = asyncio.run(with_server(body, *replies(run, *turns)))
    assert (project / "ran.txt").read_text() == "pytest -q\ngit commit -m x\n"
    assert "test-before-commit" in next(m for m in messages(server, 1) if m["role"] == "tool")["content"]


@RUNS
def test_a_stream_rule_cuts_the_call_and_reissues_it_with_the_rule(run: Run, project: Path) -> None:
    cuts: list[Cut] = []

    async def body(server: SseServer, client: AsyncOpenAI) -> None:
        agent = guard_agent(
            agent_for(server, client, project), Guard(project, home=project), on_cut=cuts.append
        )
        assert await run(agent, "say it") == "That word is not allowed here."

    turns: list[Turn] = [("This is forbidden text.", []), ("That word is not allowed here.", [])]
    server = asyncio.run(with_server(body, *replies(run, *turns)))
    assert [m.name for cut in cuts for m in cut.matches] == ["no-word"]
    assert len(server.requests) == 2
    retry = messages(server, 1)
    assert retry[-1]["role"] == "user" and "Never write the word it matches" in retry[-1]["content"]
    assert not any(m["role"] == "assistant" for m in retry)  # the cut reply is dropped, not kept


@RUNS
def test_a_rule_on_tool_arguments_cuts_the_call_before_the_tool_runs(run: Run, project: Path) -> None:
    rule = "---\ncondition: rm -rf\nscope: tool:bash\n---\nDelete with `git clean`, not rm.\n"
    (project / ".rein" / "rules" / "no-rm.md").write_text(rule)

    async def body(server: SseServer, client: AsyncOpenAI) -> None:
        agent = guard_agent(agent_for(server, client, project), Guard(project, home=project))
        assert await run(agent, "clean up") == "Done."

    turns: list[Turn] = [("", [call("rm -rf build")]), ("", [call("git clean -n")]), ("Done.", [])]
    server = asyncio.run(with_server(body, *replies(run, *turns)))
    assert (project / "ran.txt").read_text() == "git clean -n\n"
    assert "Delete with `git clean`, not rm." in messages(server, 1)[-1]["content"]


def test_a_streamed_cut_closes_the_provider_stream_at_once(project: Path) -> None:
    async def body(server: SseServer, client: AsyncOpenAI) -> None:
        agent = guard_agent(agent_for(server, client, project), Guard(project, home=project))
        assert await run_streamed(agent, "say it") == "Fine."
        assert server.disconnects == 1

    hanging = Reply(
        steps=[*chat_reply(TextContent(text="so forbidden"), finish_reason=None, usage=None)[:-1], Hang()]
    )
    asyncio.run(with_server(body, hanging, streamed("Fine.")))


@RUNS
def test_the_injection_stays_in_the_later_calls_of_the_run(run: Run, project: Path) -> None:
    async def body(server: SseServer, client: AsyncOpenAI) -> None:
        agent = guard_agent(agent_for(server, client, project), Guard(project, home=project))
        assert await run(agent, "go") == "Done."

    turns: list[Turn] = [("forbidden", []), ("", [call("ls")]), ("Done.", [])]
    server = asyncio.run(with_server(body, *replies(run, *turns)))
    last = messages(server, 2)
    users = [m["content"] for m in last if m["role"] == "user"]
    assert users[0] == "go" and "Never write the word it matches" in users[1]
    assert [m["role"] for m in last][-2:] == ["assistant", "tool"]


@RUNS
def test_the_timebox_stops_the_run_before_the_next_model_call(run: Run, project: Path) -> None:
    async def body(server: SseServer, client: AsyncOpenAI) -> None:
        agent = guard_agent(
            agent_for(server, client, project), Guard(project, home=project, timebox="turns:1")
        )
        with pytest.raises(TimeboxExceeded, match="Timebox budget spent"):
            await run(agent, "work")

    server = asyncio.run(with_server(body, *replies(run, ("", [call("ls")]), ("Never asked.", []))))
    assert len(server.requests) == 1
    assert (project / "ran.txt").read_text() == "ls\n"  # the turn's tool ran; the next call did not


@RUNS
def test_a_token_budget_nudges_then_stops(run: Run, project: Path) -> None:
    async def body(server: SseServer, client: AsyncOpenAI) -> None:
        guard = Guard(project, home=project, timebox="tokens:1k")
        agent = guard_agent(agent_for(server, client, project), guard)
        with pytest.raises(TimeboxExceeded, match="Timebox budget spent"):
            await run(agent, "work")

    turns: list[Turn] = [("", [call("ls", "call_1")]), ("", [call("pwd", "call_2")]), ("Never asked.", [])]
    server = asyncio.run(with_server(body, *replies(run, *turns, usage=(700, 150))))
    assert len(server.requests) == 2
    nudge = messages(server, 1)[-1]
    assert nudge["role"] == "user" and "IMPORTANT" in nudge["content"]


def test_only_function_tools_are_guarded_and_a_named_model_is_refused(project: Path) -> None:
    guard = Guard(project, home=project)
    tool = bash_tool(project)
    guarded = guard_tools([tool], guard)[0]
    assert isinstance(guarded, FunctionTool) and guarded is not tool
    assert [g.get_name() for g in guarded.tool_input_guardrails or ()] == ["rein_steering"]
    assert [g.get_name() for g in guarded.tool_output_guardrails or ()] == ["rein_observe"]
    assert tool.tool_input_guardrails is None  # the caller's tool is left as it was
    with pytest.raises(ValueError, match="agent 'a': rein needs a Model instance"):
        guard_agent(Agent(name="a", model="gpt-5"), guard)


def test_rein_model_keeps_the_wrapped_model(project: Path) -> None:
    client = AsyncOpenAI(base_url="http://127.0.0.1:9/v1", api_key="k")
    inner = OpenAIChatCompletionsModel(model="m", openai_client=client)
    agent = guard_agent(Agent(name="a", model=inner), Guard(project, home=project))
    assert isinstance(agent.model, ReinModel) and agent.model.model is inner
    asyncio.run(client.close())
