"""rein as LangChain v1 agent middleware: a real `create_agent` on `ChatOpenAI`, real `@tool` functions,
the model scripted by the local SSE server. A blocked tool never runs and the model reads the reason; a
stream rule cuts the streamed reply mid-stream (or checks the finished one) and the call is re-issued
with the rule injected; the timebox ends the run."""

from __future__ import annotations

import asyncio
import json
import subprocess
from collections.abc import Coroutine
from pathlib import Path
from typing import Any, TypeVar

import pytest

pytest.importorskip("langchain.agents", reason="the langchain extra is not installed")
pytest.importorskip("langchain_openai", reason="the langchain extra is not installed")

from langchain.agents import create_agent
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.tools import BaseTool, tool
from langchain_openai import ChatOpenAI
from pydantic import SecretStr

from rein.ai import TextContent, ToolCall
from rein.ai.testing import Hang, Reply, SseServer, chat_reply
from rein.integrations import Guard
from rein.integrations.langchain import ReinMiddleware

T = TypeVar("T")
FORCE_PUSH = ToolCall(id="call_1", name="bash", arguments={"command": "git push --force origin main"})
RULE = "---\ncondition: forbidden\n---\nNever write the forbidden word; say it another way.\n"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    subprocess.run(["git", "init", "-q", "-b", "feature", str(root)], check=True)
    (root / ".rein" / "rules").mkdir(parents=True)
    (root / ".rein" / "rules" / "no-word.md").write_text(RULE)
    return root


def guard_for(project: Path, timebox: str | None = None) -> Guard:
    return Guard(project, home=project.parent / "home", timebox=timebox)


def bash_tool(project: Path) -> BaseTool:
    @tool
    def bash(command: str) -> str:
        """Run a shell command."""
        (project / "ran.txt").write_text(command)
        return "done"

    return bash


def agent_for(server: SseServer, project: Path, middleware: ReinMiddleware) -> Any:
    model = ChatOpenAI(model="m", base_url=server.url + "/v1", api_key=SecretStr("k"), max_retries=0)
    return create_agent(model, [bash_tool(project)], middleware=[middleware])


def completion(text: str = "", *calls: ToolCall) -> Reply:
    """A non-streamed Chat Completions answer."""
    message: dict[str, Any] = {"role": "assistant", "content": text or None}
    if calls:
        message["tool_calls"] = [
            {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments_text}}
            for c in calls
        ]
    choice = {"index": 0, "message": message, "finish_reason": "tool_calls" if calls else "stop"}
    usage = {"prompt_tokens": 20, "completion_tokens": 10, "total_tokens": 30}
    body = {
        "id": "c",
        "object": "chat.completion",
        "created": 1,
        "model": "m",
        "choices": [choice],
        "usage": usage,
    }
    return Reply(body=json.loads(json.dumps(body)))


def run(coroutine: Coroutine[Any, Any, T]) -> T:
    async def bounded() -> T:
        async with asyncio.timeout(10):
            return await coroutine

    return asyncio.run(bounded())


def sent(server: SseServer, index: int) -> list[dict[str, Any]]:
    body = server.requests[index].body
    assert isinstance(body, dict) and isinstance(body["messages"], list)
    return [m for m in body["messages"] if isinstance(m, dict)]


def last_text(result: dict[str, Any]) -> str:
    messages: list[BaseMessage] = result["messages"]
    assert isinstance(messages[-1], AIMessage)
    return messages[-1].text


def test_a_blocked_tool_never_runs_and_the_model_reads_the_reason(project: Path) -> None:
    async def scenario() -> tuple[SseServer, dict[str, Any]]:
        replies = [
            Reply(steps=chat_reply(FORCE_PUSH, finish_reason="tool_calls")),
            Reply(steps=chat_reply(TextContent(text="I will not force push."))),
        ]
        async with SseServer(replies) as server:
            agent = agent_for(server, project, ReinMiddleware(guard_for(project)))
            result = await agent.ainvoke({"messages": [{"role": "user", "content": "push it"}]})
            return server, result

    server, result = run(scenario())
    assert not (project / "ran.txt").exists()
    answer = [m for m in sent(server, 1) if m["role"] == "tool"]
    assert len(answer) == 1 and answer[0]["tool_call_id"] == "call_1"
    assert str(answer[0]["content"]).startswith("[steering:no-force-push@defaults]")
    assert last_text(result) == "I will not force push."
    assert all(r.body["stream"] is True for r in server.requests if isinstance(r.body, dict))


def test_an_allowed_tool_runs(project: Path) -> None:
    async def scenario() -> SseServer:
        call = ToolCall(id="call_1", name="bash", arguments={"command": "git status"})
        replies = [
            Reply(steps=chat_reply(call, finish_reason="tool_calls")),
            Reply(steps=chat_reply(TextContent(text="ok"))),
        ]
        async with SseServer(replies) as server:
            agent = agent_for(server, project, ReinMiddleware(guard_for(project)))
            await agent.ainvoke({"messages": [{"role": "user", "content": "status"}]})
            return server

    server = run(scenario())
    assert (project / "ran.txt").read_text() == "git status"
    assert [m["content"] for m in sent(server, 1) if m["role"] == "tool"] == ["done"]


def test_a_stream_rule_cuts_mid_stream_and_the_call_is_reissued_with_the_rule(project: Path) -> None:
    """The first reply hangs after the violation: only a cut mid-stream lets the run go on."""

    async def scenario() -> tuple[SseServer, dict[str, Any], ReinMiddleware]:
        violating = chat_reply(
            TextContent(text="Sure, this is forbidden territory"), finish_reason=None, usage=None
        )
        replies = [
            Reply(steps=[*violating[:-1], Hang()]),
            Reply(steps=chat_reply(TextContent(text="Sure, this is off-limits territory."))),
        ]
        async with SseServer(replies) as server:
            middleware = ReinMiddleware(guard_for(project))
            agent = agent_for(server, project, middleware)
            result = await agent.ainvoke({"messages": [{"role": "user", "content": "describe it"}]})
            await server.wait_disconnects(1)
            return server, result, middleware

    server, result, middleware = run(scenario())
    assert len(server.requests) == 2
    assert [m.name for cut in middleware.cuts for m in cut.matches] == ["no-word"]
    retry = sent(server, 1)
    assert retry[-1]["role"] == "user" and "Never write the forbidden word" in str(retry[-1]["content"])
    assert not any(m["role"] == "assistant" for m in retry)  # the partial reply is dropped
    assert last_text(result) == "Sure, this is off-limits territory."
    assert not any("forbidden" in m.text for m in result["messages"] if isinstance(m, AIMessage))


def test_without_streaming_the_finished_reply_is_checked_sync(project: Path) -> None:
    """`stream=False` and the sync API: the tool guard and a retry on the finished reply."""

    async def scenario() -> tuple[SseServer, dict[str, Any]]:
        replies = [
            completion("", FORCE_PUSH),
            completion("It is forbidden."),
            completion("It is off-limits."),
        ]
        async with SseServer(replies) as server:
            agent = agent_for(server, project, ReinMiddleware(guard_for(project), stream=False))
            prompt = {"messages": [{"role": "user", "content": "push it"}]}
            result: dict[str, Any] = await asyncio.to_thread(agent.invoke, prompt)
            return server, result

    server, result = run(scenario())
    assert not (project / "ran.txt").exists()
    assert len(server.requests) == 3
    assert all(isinstance(r.body, dict) and not r.body.get("stream") for r in server.requests)
    tool_answer = [m for m in sent(server, 1) if m["role"] == "tool"]
    assert str(tool_answer[0]["content"]).startswith("[steering:no-force-push@defaults]")
    retry = sent(server, 2)
    assert retry[-1]["role"] == "user" and "Never write the forbidden word" in str(retry[-1]["content"])
    assert last_text(result) == "It is off-limits."


def test_the_timebox_ends_the_run(project: Path) -> None:
    async def scenario() -> tuple[SseServer, dict[str, Any]]:
        call = ToolCall(id="call_1", name="bash", arguments={"command": "ls"})
        replies = [
            Reply(steps=chat_reply(call, finish_reason="tool_calls")),
            Reply(steps=chat_reply(TextContent(text="more"))),
        ]
        async with SseServer(replies) as server:
            agent = agent_for(server, project, ReinMiddleware(guard_for(project, timebox="turns:1")))
            result = await agent.ainvoke({"messages": [{"role": "user", "content": "list"}]})
            return server, result

    server, result = run(scenario())
    assert (project / "ran.txt").read_text() == "ls"
    assert len(server.requests) == 1
    assert "Timebox budget spent" in last_text(result)


def test_a_stream_rule_cuts_a_tool_call_while_its_arguments_stream(project: Path) -> None:
    async def scenario() -> tuple[SseServer, ReinMiddleware]:
        call = ToolCall(id="call_1", name="bash", arguments={"command": "echo forbidden words here"})
        violating = chat_reply(call, finish_reason=None, usage=None)
        replies = [Reply(steps=[*violating[:-1], Hang()]), Reply(steps=chat_reply(TextContent(text="Done.")))]
        async with SseServer(replies) as server:
            middleware = ReinMiddleware(guard_for(project))
            agent = agent_for(server, project, middleware)
            await agent.ainvoke({"messages": [{"role": "user", "content": "say it"}]})
            await server.wait_disconnects(1)
            return server, middleware

    server, middleware = run(scenario())
    assert not (project / "ran.txt").exists()
    assert [m.name for cut in middleware.cuts for m in cut.matches] == ["no-word"]
    assert "Never write the forbidden word" in str(sent(server, 1)[-1]["content"])


def test_streaming_the_agent_sees_the_cut_and_the_clean_retry(project: Path) -> None:
    """`stream_mode="messages"`: LangGraph's own token handler and rein's share the model call."""

    async def scenario() -> list[str]:
        violating = chat_reply(TextContent(text="It is forbidden, truly."), finish_reason=None, usage=None)
        replies = [
            Reply(steps=[*violating[:-1], Hang()]),
            Reply(steps=chat_reply(TextContent(text="It is fine."))),
        ]
        async with SseServer(replies) as server:
            agent = agent_for(server, project, ReinMiddleware(guard_for(project)))
            prompt = {"messages": [{"role": "user", "content": "say it"}]}
            return [chunk.text async for chunk, _ in agent.astream(prompt, stream_mode="messages")]

    tokens = run(scenario())
    assert "".join(tokens).endswith("It is fine.")
    assert "forbid" in "".join(tokens)  # tokens already sent before the cut cannot be taken back


def test_the_timebox_nudges_the_model_before_it_stops(project: Path) -> None:
    """Each reply reports 30 tokens: past 80 percent of 35 after the first, a user message warns."""

    async def scenario() -> SseServer:
        call = ToolCall(id="call_1", name="bash", arguments={"command": "ls"})
        replies = [
            Reply(steps=chat_reply(call, finish_reason="tool_calls", usage=(20, 10, 0))),
            Reply(steps=chat_reply(TextContent(text="Wrapping up."))),
        ]
        async with SseServer(replies) as server:
            agent = agent_for(server, project, ReinMiddleware(guard_for(project, timebox="tokens:35")))
            await agent.ainvoke({"messages": [{"role": "user", "content": "list"}]})
            return server

    server = run(scenario())
    warning = sent(server, 1)[-1]
    assert warning["role"] == "user" and "IMPORTANT" in str(warning["content"])
