"""`/rein/status` counts a client abort only when the client left before its reply ended: the openai SDK
closing its connection right after `[DONE]` (the sync client at once, the async one after a short drain)
is a completed stream, whether upstream ends its body at once or a moment later."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

import pytest
from anthropic import Anthropic
from anthropic.types import MessageParam
from openai import AsyncOpenAI, OpenAI
from openai.types.chat import ChatCompletionChunk

from rein.ai import JsonValue, TextContent
from rein.ai.testing import Hang, Pause, Reply, SseServer, anthropic_reply, chat_reply, responses_reply
from tests.ai.helpers import run
from tests.proxy.conftest import RULE, RunningProxy, start_proxy

pytestmark = pytest.mark.slow

STREAMS = 4
TEXT = "A short answer, streamed in small pieces."


def lingering() -> Reply:
    """A reply whose upstream keeps the body open a moment after `[DONE]` (the race the SDK wins)."""
    return Reply(steps=[*chat_reply(TextContent(text=TEXT)), Pause(seconds=0.4)])


def sync_stream(proxy: RunningProxy) -> str:
    with OpenAI(base_url=f"{proxy.url}/v1", api_key="sk-test", max_retries=0, timeout=20) as client:
        stream = client.chat.completions.create(
            model="m", messages=[{"role": "user", "content": "go"}], stream=True
        )
        return "".join(chunk.choices[0].delta.content or "" for chunk in stream if chunk.choices)


async def async_stream(proxy: RunningProxy) -> str:
    async with AsyncOpenAI(
        base_url=f"{proxy.url}/v1", api_key="sk-test", max_retries=0, timeout=20
    ) as client:
        stream = await client.chat.completions.create(
            model="m", messages=[{"role": "user", "content": "go"}], stream=True
        )
        return "".join([chunk.choices[0].delta.content or "" async for chunk in stream if chunk.choices])


def leave_after(proxy: RunningProxy, enough: Callable[[ChatCompletionChunk], bool]) -> None:
    """Read a stream until `enough` says so, then close it (in a thread: the sync SDK blocks)."""
    with OpenAI(base_url=f"{proxy.url}/v1", api_key="k", max_retries=0, timeout=20) as client:
        stream = client.chat.completions.create(
            model="m", messages=[{"role": "user", "content": "go"}], stream=True
        )
        for chunk in stream:
            if enough(chunk):
                break
        stream.close()


async def settled(proxy: RunningProxy, streams: int) -> dict[str, JsonValue]:
    """The status once no stream is active (the proxy finishes its side after the client left)."""
    for _ in range(100):
        status = proxy.status()
        if status["active"] == 0 and status["streams"] == streams:
            return status
        await asyncio.sleep(0.05)
    raise AssertionError(proxy.status())


def test_sdk_streams_that_end_are_not_aborts(tmp_path: Path) -> None:
    async def scenario() -> None:
        replies = [lingering() for _ in range(2 * STREAMS)] + [
            Reply(steps=chat_reply(TextContent(text=TEXT))) for _ in range(2 * STREAMS)
        ]
        async with (
            SseServer(replies) as server,
            start_proxy(server.url, tmp_path, rules={"w": RULE}) as proxy,
        ):
            for _ in range(2):
                texts = [await asyncio.to_thread(sync_stream, proxy) for _ in range(STREAMS)]
                texts += [await async_stream(proxy) for _ in range(STREAMS)]
                assert texts == [TEXT] * 2 * STREAMS
            status = await settled(proxy, 4 * STREAMS)
        assert status["client_aborts"] == 0, status
        assert status["requests"] == {"chat": 4 * STREAMS}, status

    run(scenario(), timeout=60)


def test_clients_that_leave_at_the_end_event_of_the_other_formats_are_not_aborts(tmp_path: Path) -> None:
    """The other formats' ends (`message_stop`, `response.completed`): a client that closes the moment
    it has one (as the openai SDK does at `[DONE]`) got its whole reply."""

    def messages(proxy: RunningProxy) -> str:
        ask: list[MessageParam] = [{"role": "user", "content": "go"}]
        text = ""
        with Anthropic(base_url=proxy.url, api_key="k", max_retries=0, timeout=20) as client:
            stream = client.messages.create(model="claude-test", max_tokens=64, messages=ask, stream=True)
            for event in stream:
                if event.type == "content_block_delta" and event.delta.type == "text_delta":
                    text += event.delta.text
                if event.type == "message_stop":
                    break
            stream.close()
        return text

    def responses(proxy: RunningProxy) -> str:
        text = ""
        with OpenAI(base_url=f"{proxy.url}/v1", api_key="k", max_retries=0, timeout=20) as client:
            stream = client.responses.create(model="m", input="go", stream=True)
            for event in stream:
                if event.type == "response.output_text.delta":
                    text += event.delta
                if event.type == "response.completed":
                    break
            stream.close()
        return text

    async def scenario() -> None:
        linger = Pause(seconds=0.4)
        replies = [Reply(steps=[*anthropic_reply(TextContent(text=TEXT)), linger]) for _ in range(2)]
        replies += [Reply(steps=[*responses_reply(TextContent(text=TEXT)), linger]) for _ in range(2)]
        async with (
            SseServer(replies) as server,
            start_proxy(server.url, tmp_path, rules={"w": RULE}) as proxy,
        ):
            texts = [await asyncio.to_thread(messages, proxy) for _ in range(2)]
            texts += [await asyncio.to_thread(responses, proxy) for _ in range(2)]
            assert texts == [TEXT] * 4
            status = await settled(proxy, 4)
        assert status["client_aborts"] == 0, status
        assert status["requests"] == {"messages": 2, "responses": 2}, status

    run(scenario(), timeout=60)


def test_a_client_that_leaves_mid_stream_is_one_abort(tmp_path: Path) -> None:
    first = chat_reply(TextContent(text="a long story that goes on and on"))[:-3]

    async def scenario() -> None:
        replies = [Reply(steps=[*first, Hang()]), lingering()]
        async with (
            SseServer(replies) as server,
            start_proxy(server.url, tmp_path, rules={"w": RULE}) as proxy,
        ):
            await asyncio.to_thread(
                leave_after, proxy, lambda c: bool(c.choices and c.choices[0].delta.content)
            )
            await server.wait_disconnects(1, timeout=5)
            assert await asyncio.to_thread(sync_stream, proxy) == TEXT
            status = await settled(proxy, 2)
        assert status["client_aborts"] == 1, status

    run(scenario(), timeout=60)


def test_a_client_that_leaves_before_done_is_an_abort(tmp_path: Path) -> None:
    """Everything but `[DONE]` received is still an abort: the reply had not ended."""
    steps = chat_reply(TextContent(text=TEXT))

    async def scenario() -> None:
        async with (
            SseServer([Reply(steps=[*steps[:-1], Hang()])]) as server,
            start_proxy(server.url, tmp_path, rules={"w": RULE}) as proxy,
        ):
            await asyncio.to_thread(leave_after, proxy, lambda c: c.usage is not None)
            await server.wait_disconnects(1, timeout=5)
            status = await settled(proxy, 1)
        assert status["client_aborts"] == 1, status

    run(scenario(), timeout=60)
