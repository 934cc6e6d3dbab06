"""`rein proxy` on `/v1/chat/completions` end to end: the official openai SDK (async) as the client, the
real proxy in a subprocess, and the local SSE server as the upstream, scripted with violations."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from openai import AsyncOpenAI
from openai.lib.streaming.chat import ChatCompletionStreamState, ParsedChatCompletionSnapshot
from openai.types.chat import ChatCompletionChunk, ChatCompletionMessageParam

from rein.ai import TextContent, ThinkingContent, ToolCall
from rein.ai.testing import Event, Reply, SseServer, chat_reply
from tests.ai.helpers import run
from tests.proxy.conftest import RM, RULE, RunningProxy, sent_list, start_proxy

pytestmark = pytest.mark.slow

ASK: list[ChatCompletionMessageParam] = [{"role": "user", "content": "Tell me the word."}]


def sdk(proxy: RunningProxy) -> AsyncOpenAI:
    return AsyncOpenAI(base_url=f"{proxy.url}/v1", api_key="sk-test", max_retries=0, timeout=20)


def renamed(steps: list[Event], ident: str) -> list[Event]:
    """A reply whose chunks carry another id (a second attempt's own)."""
    out: list[Event] = []
    for step in steps:
        if isinstance(step.data, dict):
            out.append(Event(data={**step.data, "id": ident, "created": 99}))
        else:
            out.append(step)
    return out


async def streamed(proxy: RunningProxy) -> tuple[list[ChatCompletionChunk], ParsedChatCompletionSnapshot]:
    """Every chunk the SDK parsed, and the completion its stream accumulator makes of them."""
    chunks: list[ChatCompletionChunk] = []
    state: ChatCompletionStreamState[None] = ChatCompletionStreamState()
    async with sdk(proxy) as client:
        stream = await client.chat.completions.create(
            model="gpt-test",
            messages=ASK,
            stream=True,
            stream_options={"include_usage": True},
        )
        async for chunk in stream:
            chunks.append(chunk)
            list(state.handle_chunk(chunk))
    return chunks, state.current_completion_snapshot


def test_a_violation_in_text_never_reaches_the_client_and_the_retry_carries_the_rule(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with SseServer() as server:
            server.push(
                Reply(steps=chat_reply(TextContent(text="Sure. The word is forbidden, you see."))),
                Reply(
                    steps=renamed(
                        chat_reply(TextContent(text="I will not say it."), usage=(33, 7, 0)), "chatcmpl-2"
                    )
                ),
            )
            async with start_proxy(server.url, tmp_path, rules={"no-word": RULE}) as proxy:
                chunks, completion = await streamed(proxy)
            assert len(server.requests) == 2
            retry = server.requests[1].body
        assert isinstance(retry, dict)
        text = completion.choices[0].message.content or ""
        assert "forbidden" not in text and text.endswith("I will not say it.")
        assert {(c.id, c.created) for c in chunks} == {("chatcmpl-test", 1)}
        assert sum(1 for c in chunks for ch in c.choices if ch.delta.role) == 1
        assert completion.choices[0].finish_reason == "stop"
        assert completion.usage is not None and (
            completion.usage.prompt_tokens,
            completion.usage.total_tokens,
        ) == (33, 40)
        shown = text.removesuffix("I will not say it.")
        assert shown and "Sure. The word is ".startswith(shown)
        messages = retry["messages"]
        assert isinstance(messages, list)
        assert messages[:-1] == [*ASK, {"role": "assistant", "content": shown}]
        last = messages[-1]
        assert isinstance(last, dict) and last["role"] == "user" and set(last) == {"role", "content"}
        assert "Never write the word." in json.dumps(messages[-1])
        assert retry["stream_options"] == {"include_usage": True} and retry["model"] == "gpt-test"

    run(scenario(), timeout=30)


def test_tool_calls_arrive_whole_and_a_violating_one_is_replaced(tmp_path: Path) -> None:
    bad = ToolCall(id="call_bad", name="bash", arguments={"command": "rm -rf build"})
    good = [ToolCall(id="call_1", name="bash", arguments={"command": "ls build"}),
            ToolCall(id="call_2", name="write", arguments={"path": "a.txt", "content": "x"})]  # fmt: skip

    async def scenario() -> None:
        async with SseServer() as server:
            server.push(
                Reply(steps=chat_reply(TextContent(text="Cleaning up."), bad, finish_reason="tool_calls")),
                Reply(steps=renamed(chat_reply(*good, finish_reason="tool_calls"), "chatcmpl-2")),
            )
            async with start_proxy(server.url, tmp_path, rules={"no-rm": RM}) as proxy:
                chunks, completion = await streamed(proxy)
            retry = sent_list(server, 1, "messages")
        assert "rm -rf" not in repr(chunks)
        message = completion.choices[0].message
        assert message.content == "Cleaning up."
        assert message.tool_calls is not None
        assert [(t.id, t.function.name, json.loads(t.function.arguments)) for t in message.tool_calls] == [
            (c.id, c.name, dict(c.arguments)) for c in good
        ]
        assert retry[-2] == {"role": "assistant", "content": "Cleaning up."}
        assert completion.choices[0].finish_reason == "tool_calls"
        calls = [t for c in chunks for ch in c.choices for t in ch.delta.tool_calls or ()]
        assert [(t.index, t.id) for t in calls if t.id] == [(0, "call_1"), (1, "call_2")]

    run(scenario(), timeout=30)


def test_reasoning_and_unknown_fields_pass(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with SseServer() as server:
            steps = chat_reply(ThinkingContent(thinking="Plan: answer."), TextContent(text="Hello there."))
            steps[-2] = Event(data={**steps[-2].data, "timings": {"predicted_ms": 1.5}})  # type: ignore[dict-item]
            server.push(Reply(steps=steps))
            async with start_proxy(server.url, tmp_path, rules={"no-word": RULE}) as proxy:
                chunks, completion = await streamed(proxy)
            assert len(server.requests) == 1
        reasoning = "".join(
            str((ch.delta.model_extra or {}).get("reasoning_content") or "")
            for c in chunks
            for ch in c.choices
        )
        assert reasoning == "Plan: answer."
        assert completion.choices[0].message.content == "Hello there."
        assert (chunks[-1].model_extra or {}).get("timings") == {"predicted_ms": 1.5}

    run(scenario(), timeout=30)


def test_when_retries_run_out_the_stream_still_ends_validly(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with SseServer() as server:
            server.push(Reply(steps=chat_reply(TextContent(text="Plain words, then forbidden ones."))))
            async with start_proxy(
                server.url, tmp_path, rules={"no-word": RULE}, args=["--max-retries", "0"]
            ) as proxy:
                chunks, completion = await streamed(proxy)
            assert len(server.requests) == 1
        assert chunks[-1].usage is None or chunks[-1].usage.total_tokens >= 0
        text = completion.choices[0].message.content or ""
        assert "forbidden" not in text and "Plain words, then ".startswith(text)
        assert completion.id == "chatcmpl-test"
        assert completion.choices[0].finish_reason == "content_filter"

    run(scenario(), timeout=30)


def test_non_streaming_is_checked_whole_and_usage_summed(tmp_path: Path) -> None:
    def reply(text: str, usage: tuple[int, int]) -> Reply:
        return Reply(body={"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "gpt-test",
                           "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                                        "finish_reason": "stop"}],
                           "usage": {"prompt_tokens": usage[0], "completion_tokens": usage[1],
                                     "total_tokens": sum(usage)}})  # fmt: skip

    async def scenario() -> None:
        async with SseServer() as server:
            server.push(reply("It is forbidden.", (10, 4)), reply("I cannot say.", (15, 3)))
            async with (
                start_proxy(server.url, tmp_path, rules={"no-word": RULE}) as proxy,
                sdk(proxy) as client,
            ):
                completion = await client.chat.completions.create(model="gpt-test", messages=ASK)
            retry = sent_list(server, 1, "messages")
        assert completion.choices[0].message.content == "I cannot say."
        assert completion.usage is not None
        assert (completion.usage.prompt_tokens, completion.usage.completion_tokens) == (25, 7)
        assert completion.usage.total_tokens == 32
        assert retry[:-1] == ASK and "Never write the word." in json.dumps(retry[-1])

    run(scenario(), timeout=30)
