"""`rein proxy` on `/v1/messages` end to end: the official anthropic SDK (async) as the client, the real
proxy in a subprocess, and the local SSE server as the upstream, scripted with violations."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from anthropic import AsyncAnthropic
from anthropic.lib.streaming import ParsedMessageStreamEvent
from anthropic.types import Message, MessageParam

from rein.ai import JsonValue, TextContent, ThinkingContent, ToolCall
from rein.ai.testing import Reply, SseServer, anthropic_reply
from tests.ai.helpers import run
from tests.proxy.conftest import RM, RULE, RunningProxy, start_proxy

pytestmark = pytest.mark.slow

ASK: list[MessageParam] = [{"role": "user", "content": "Tell me the word."}]
SAFE = TextContent(text="I will not say it.")


def sdk(proxy: RunningProxy) -> AsyncAnthropic:
    return AsyncAnthropic(base_url=proxy.url, api_key="sk-test", max_retries=0, timeout=20)


async def streamed(proxy: RunningProxy) -> tuple[list[ParsedMessageStreamEvent[None]], Message]:
    """Every event the SDK parsed (its own helper events too), and its accumulated message."""
    events: list[ParsedMessageStreamEvent[None]] = []
    async with (
        sdk(proxy) as client,
        client.messages.stream(model="claude-test", max_tokens=64, messages=ASK) as stream,
    ):
        async for event in stream:
            events.append(event)
        return events, await stream.get_final_message()


def texts(message: Message) -> list[str]:
    return [b.text for b in message.content if b.type == "text"]


def last_messages(server: SseServer, attempt: int) -> list[JsonValue]:
    body = server.requests[attempt].body
    assert isinstance(body, dict) and isinstance(body["messages"], list)
    return body["messages"]


def test_a_violation_in_text_never_reaches_the_client_and_the_retry_carries_the_rule(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with SseServer() as server:
            server.push(
                Reply(steps=anthropic_reply(TextContent(text="Sure. The word is forbidden, you see."))),
                Reply(steps=anthropic_reply(SAFE, message_id="msg_retry", usage=(20, 5, 0))),
            )
            async with start_proxy(server.url, tmp_path, rules={"no-word": RULE}) as proxy:
                events, message = await streamed(proxy)
            assert len(server.requests) == 2
            retry = last_messages(server, 1)
        text = "".join(texts(message))
        assert "forbidden" not in text and text.endswith("I will not say it.")
        assert (message.id, message.stop_reason) == ("msg_test", "end_turn")
        assert [e.type for e in events].count("message_start") == 1
        assert (message.usage.input_tokens, message.usage.output_tokens) == (32, 6)
        shown = text.removesuffix("I will not say it.")
        assert shown and "Sure. The word is ".startswith(shown)
        assert retry[:-1] == [*ASK, {"role": "assistant", "content": [{"type": "text", "text": shown}]}]
        injected = retry[-1]
        assert isinstance(injected, dict) and injected["role"] == "user"
        assert "Never write the word." in json.dumps(injected)

    run(scenario(), timeout=30)


def test_tool_calls_arrive_whole_and_a_violating_one_is_replaced(tmp_path: Path) -> None:
    bad = ToolCall(id="toolu_bad", name="bash", arguments={"command": "rm -rf build"})
    good = [ToolCall(id="toolu_1", name="bash", arguments={"command": "ls build"}),
            ToolCall(id="toolu_2", name="write", arguments={"path": "a.txt", "content": "x"})]  # fmt: skip

    async def scenario() -> None:
        async with SseServer() as server:
            server.push(
                Reply(steps=anthropic_reply(TextContent(text="Cleaning up."), bad, stop_reason="tool_use")),
                Reply(steps=anthropic_reply(*good, stop_reason="tool_use", message_id="msg_retry")),
            )
            async with start_proxy(server.url, tmp_path, rules={"no-rm": RM}) as proxy:
                events, message = await streamed(proxy)
            retry = last_messages(server, 1)
        assert "rm -rf" not in repr(events)
        assert [b.type for b in message.content] == ["text", "tool_use", "tool_use"]
        assert [(b.id, b.name, b.input) for b in message.content if b.type == "tool_use"] == [
            (c.id, c.name, dict(c.arguments)) for c in good
        ]
        assert [e.index for e in events if e.type == "content_block_start"] == [0, 1, 2]
        assert retry[-2] == {"role": "assistant", "content": [{"type": "text", "text": "Cleaning up."}]}
        assert message.stop_reason == "tool_use"

    run(scenario(), timeout=30)


def test_thinking_and_its_signature_pass_exactly(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with SseServer() as server:
            plan = ThinkingContent(thinking="Plan: answer.", signature="U2ln+/==")
            server.push(Reply(steps=anthropic_reply(plan, TextContent(text="Hello there."))))
            async with start_proxy(server.url, tmp_path, rules={"no-word": RULE}) as proxy:
                _, message = await streamed(proxy)
            assert len(server.requests) == 1
        thinking = message.content[0]
        assert thinking.type == "thinking"
        assert (thinking.thinking, thinking.signature) == ("Plan: answer.", "U2ln+/==")
        assert texts(message) == ["Hello there."]

    run(scenario(), timeout=30)


def test_when_retries_run_out_the_stream_still_ends_validly(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with SseServer() as server:
            server.push(Reply(steps=anthropic_reply(TextContent(text="Plain words, then forbidden ones."))))
            async with start_proxy(
                server.url, tmp_path, rules={"no-word": RULE}, args=["--max-retries", "0"]
            ) as proxy:
                events, message = await streamed(proxy)
            assert len(server.requests) == 1
        assert "forbidden" not in "".join(texts(message))
        assert message.stop_reason == "end_turn" and message.id == "msg_test"
        assert events[-1].type == "message_stop"

    run(scenario(), timeout=30)


def test_non_streaming_is_checked_whole_and_usage_summed(tmp_path: Path) -> None:
    def reply(text: str, usage: tuple[int, int]) -> Reply:
        counts: JsonValue = {"input_tokens": usage[0], "output_tokens": usage[1]}
        return Reply(body={"id": "msg_1", "type": "message", "role": "assistant", "model": "claude-test",
                           "content": [{"type": "text", "text": text}], "stop_reason": "end_turn",
                           "stop_sequence": None, "usage": counts})  # fmt: skip

    async def scenario() -> None:
        async with SseServer() as server:
            server.push(reply("It is forbidden.", (10, 4)), reply("I cannot say.", (15, 3)))
            async with (
                start_proxy(server.url, tmp_path, rules={"no-word": RULE}) as proxy,
                sdk(proxy) as client,
            ):
                message = await client.messages.create(model="claude-test", max_tokens=64, messages=ASK)
            retry = last_messages(server, 1)
        assert texts(message) == ["I cannot say."]
        assert (message.usage.input_tokens, message.usage.output_tokens) == (25, 7)
        assert retry[:-1] == ASK and "Never write the word." in json.dumps(retry[-1])

    run(scenario(), timeout=30)
