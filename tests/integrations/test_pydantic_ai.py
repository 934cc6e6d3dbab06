"""rein in a real pydantic-ai agent: an `Agent` on `OpenAIChatModel`, talking to the local SSE server
through the OpenAI SDK, with `ReinCapability` guarding it. A blocked bash call never runs and its result
is rein's reason; a stream-rule cut cancels the model call and re-issues it with the rule injected; the
timebox stops the run."""

from __future__ import annotations

import json
from collections.abc import AsyncIterable, Callable, Coroutine
from pathlib import Path
from typing import Any, TypeVar

import pytest

pytest.importorskip("pydantic_ai", reason="the pydantic-ai extra is not installed")

from pydantic_ai import Agent, AgentStreamEvent, PartStartEvent, RunContext, TextPart
from pydantic_ai.models.openai import OpenAIChatModel
from pydantic_ai.providers.openai import OpenAIProvider

from rein.ai import TextContent, ToolCall
from rein.ai.testing import Hang, Reply, Request, SseServer, chat_reply
from rein.integrations import Guard
from rein.integrations.pydantic_ai import ReinCapability, ReinModel, TimeboxExceeded
from tests.ai.helpers import run

T = TypeVar("T")
FORCE_PUSH = "git push --force origin main"
REASON_TAG = "[steering:no-force-push@defaults]"
RULE = "---\ncondition: forbidden\n---\nNever write the forbidden word; say it another way.\n"
VIOLATION = "Here is the forbidden word, which the rule cuts off before this sentence ends."


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / ".rein" / "rules").mkdir(parents=True)
    (root / ".rein" / "rules" / "no-word.md").write_text(RULE)
    (tmp_path / "home").mkdir()
    return root


def guard_for(project: Path, **options: Any) -> Guard:
    return Guard(project, home=project.parent / "home", **options)


def bash_tool(marker: Path) -> Callable[[str], str]:
    def bash(command: str) -> str:
        """Run a shell command."""
        marker.write_text(command)
        return f"ran {command}"

    return bash


def agent_for(server: SseServer, capability: ReinCapability[None], marker: Path) -> Agent[None, str]:
    model = OpenAIChatModel("gpt-test", provider=OpenAIProvider(base_url=server.url + "/v1", api_key="k"))
    return Agent(model, tools=[bash_tool(marker)], capabilities=[capability])


def call(command: str, call_id: str = "call_1") -> Reply:
    arguments = json.dumps({"command": command})
    return Reply(
        steps=chat_reply(
            ToolCall(id=call_id, name="bash", raw_arguments=arguments), finish_reason="tool_calls"
        )
    )


def text(words: str) -> Reply:
    return Reply(steps=chat_reply(TextContent(text=words)))


def endless(words: str) -> Reply:
    """A reply that never ends by itself: only a client that cancels it ends it."""
    return Reply(steps=[*chat_reply(TextContent(text=words), finish_reason=None, usage=None)[:-1], Hang()])


def messages(request: Request) -> list[dict[str, Any]]:
    assert isinstance(request.body, dict)
    found = request.body["messages"]
    assert isinstance(found, list) and all(isinstance(m, dict) for m in found)
    return [dict(m) for m in found if isinstance(m, dict)]


def bounded(coroutine: Coroutine[Any, Any, T]) -> T:
    return run(coroutine, timeout=20.0)


# steering -----------------------------------------------------------------------------------------


def test_a_blocked_bash_call_never_runs_and_the_model_reads_reins_reason(project: Path) -> None:
    marker = project / "ran.txt"
    capability: ReinCapability[None] = ReinCapability(guard_for(project))

    async def scenario() -> tuple[str, list[Request]]:
        async with SseServer([call(FORCE_PUSH), text("Understood, no force push.")]) as server:
            result = await agent_for(server, capability, marker).run("push my work")
            return result.output, server.requests

    output, requests = bounded(scenario())
    assert not marker.exists()
    assert output == "Understood, no force push."
    tool_message = messages(requests[1])[-1]
    assert tool_message["role"] == "tool" and tool_message["tool_call_id"] == "call_1"
    assert REASON_TAG in tool_message["content"]
    assert (
        capability.blocked == [("bash", capability.blocked[0][1])] and REASON_TAG in capability.blocked[0][1]
    )


def test_an_allowed_bash_call_runs_and_its_result_reaches_the_model(project: Path) -> None:
    marker = project / "ran.txt"
    capability: ReinCapability[None] = ReinCapability(guard_for(project))

    async def scenario() -> list[Request]:
        async with SseServer([call("git status"), text("Clean.")]) as server:
            await agent_for(server, capability, marker).run("status?")
            return server.requests

    requests = bounded(scenario())
    assert marker.read_text() == "git status"
    assert messages(requests[1])[-1]["content"] == "ran git status"
    assert capability.blocked == []


# stream rules -------------------------------------------------------------------------------------


def test_a_stream_rule_cuts_the_call_and_the_retry_carries_the_injection(project: Path) -> None:
    capability: ReinCapability[None] = ReinCapability(guard_for(project))

    async def scenario() -> tuple[str, str, list[Request], int]:
        async with SseServer([endless(VIOLATION), text("Here is the word, said another way.")]) as server:
            result = await agent_for(server, capability, project / "ran.txt").run("say it")
            await server.wait_disconnects(1)
            history = str(result.all_messages())
            return result.output, history, server.requests, server.disconnects

    output, history, requests, disconnects = bounded(scenario())
    assert output == "Here is the word, said another way."
    assert disconnects == 1  # the cut closed the first call; it would never have ended by itself
    assert len(requests) == 2
    first, second = messages(requests[0]), messages(requests[1])
    assert second[: len(first)] == first
    injected = second[-1]
    assert injected["role"] == "user" and "Never write the forbidden word" in str(injected["content"])
    assert "forbidden" not in history  # neither the cut attempt nor the injection is in the run's history
    assert [m.rule.name for cut in capability.cuts for m in cut.matches] == ["no-word"]


def test_a_streamed_run_replaces_the_cut_part_and_ends_clean(project: Path) -> None:
    capability: ReinCapability[None] = ReinCapability(guard_for(project))
    events: list[AgentStreamEvent] = []

    async def record(ctx: RunContext[None], stream: AsyncIterable[AgentStreamEvent]) -> None:
        async for event in stream:
            events.append(event)

    async def scenario() -> tuple[str, int]:
        async with SseServer([endless(VIOLATION), text("Said another way.")]) as server:
            agent = agent_for(server, capability, project / "ran.txt")
            result = await agent.run("say it", event_stream_handler=record)
            return result.output, len(server.requests)

    output, count = bounded(scenario())
    assert output == "Said another way." and count == 2
    starts = [e for e in events if isinstance(e, PartStartEvent)]
    assert [e.index for e in starts] == [0, 0]  # the retry's part replaces the cut one
    assert isinstance(starts[-1].part, TextPart)


def test_a_rule_is_let_through_once_the_retries_are_spent(project: Path) -> None:
    capability: ReinCapability[None] = ReinCapability(guard_for(project), retries=0)

    async def scenario() -> str:
        async with SseServer([text(VIOLATION)]) as server:
            result = await agent_for(server, capability, project / "ran.txt").run("say it")
            return result.output

    assert bounded(scenario()) == VIOLATION
    assert capability.cuts == []


def test_rein_model_alone_cuts_and_retries_without_the_capability(project: Path) -> None:
    guard = guard_for(project)

    async def scenario() -> tuple[str, ReinModel]:
        async with SseServer([endless(VIOLATION), text("Fine.")]) as server:
            inner = OpenAIChatModel(
                "gpt-test", provider=OpenAIProvider(base_url=server.url + "/v1", api_key="k")
            )
            model = ReinModel(inner, guard)
            result = await Agent(model).run("say it")
            return result.output, model

    output, model = bounded(scenario())
    assert output == "Fine." and len(model.cuts) == 1


# timebox ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("budget", ["turns:1", "tokens:20"])
def test_the_timebox_stops_the_run_before_the_next_model_call(project: Path, budget: str) -> None:
    marker = project / "ran.txt"
    capability: ReinCapability[None] = ReinCapability(guard_for(project, timebox=budget))

    async def scenario() -> int:
        async with SseServer([call("ls"), text("never sent")]) as server:
            with pytest.raises(TimeboxExceeded) as stopped:
                await agent_for(server, capability, marker).run("list")
            assert "timebox" in str(stopped.value).lower()
            return len(server.requests)

    assert bounded(scenario()) == 1
    assert marker.read_text() == "ls"  # the turn in flight finished its tool call


def test_the_timebox_nudges_the_model_before_it_stops_the_run(project: Path) -> None:
    capability: ReinCapability[None] = ReinCapability(guard_for(project, timebox="tokens:35"))

    async def scenario() -> list[Request]:
        async with SseServer([call("ls"), call("ls", "call_2"), text("never sent")]) as server:
            with pytest.raises(TimeboxExceeded):
                await agent_for(server, capability, project / "ran.txt").run("list")
            return server.requests

    requests = bounded(scenario())
    assert len(requests) == 2  # 30 of 35 tokens after the first call: a nudge; 60 after the second: a stop
    assert not any("timebox" in str(m.get("content", "")).lower() for m in messages(requests[0]))
    nudges = [m for m in messages(requests[1]) if "timebox" in str(m.get("content", "")).lower()]
    assert len(nudges) == 1, messages(requests[1])
