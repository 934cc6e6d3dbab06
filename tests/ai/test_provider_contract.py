"""Every SDK-backed provider, run with its real SDK against the local SSE server, keeps the contract:
start first, one final event, never an exception, an abort closes the connection at once."""

from __future__ import annotations

import asyncio
import socket
import time

import pytest

from rein.ai import (
    AbortSignal,
    AssistantEvent,
    Context,
    Model,
    StreamOptions,
    TextContent,
    TextDeltaEvent,
    ThinkingContent,
    Tool,
    ToolCall,
    UserMessage,
    stream,
)
from rein.ai.testing import Cut, Hang, Raw, Reply, SseServer, Step
from tests.ai.apis import APIS, IDS, OPTIONS, Api
from tests.ai.helpers import abort_at_first, assert_rein_only, check_contract, collect, kinds, run

CONTEXT = Context(
    system_prompt="Be brief.",
    messages=(UserMessage.of("read a.py"),),
    tools=(Tool(name="read", description="Read a file"),),
)
BLOCKS = (
    ThinkingContent(thinking="Let me see.", signature="sig"),
    TextContent(text="Hello there"),
    ToolCall(id="call_1", name="read", raw_arguments='{"path": "a.py"}'),
)
parametrize = pytest.mark.parametrize("api", APIS, ids=IDS)


async def stream_from(
    api: Api, reply: Reply, options: StreamOptions = OPTIONS
) -> tuple[list[AssistantEvent], SseServer]:
    async with SseServer([reply]) as server:
        events = await collect(stream(api.model(server), CONTEXT, options))
        return events, server


@parametrize
def test_a_full_reply_streams_every_block(api: Api) -> None:
    events, server = run(stream_from(api, Reply(steps=api.reply(*BLOCKS))))
    message = check_contract(events)
    assert_rein_only(events)
    thinking = message.content[0]
    assert isinstance(thinking, ThinkingContent) and thinking.thinking == "Let me see."
    assert message.content[1:] == (
        TextContent(text="Hello there"),
        ToolCall(id="call_1", name="read", arguments={"path": "a.py"}, raw_arguments='{"path": "a.py"}'),
    )
    assert message.stop_reason == "tool_use"
    assert message.usage.input > 0 and message.usage.output > 0
    assert (message.provider, message.model) == (api.provider, "model-test")
    assert message.response_id
    assert sum(isinstance(e, TextDeltaEvent) for e in events) == 4  # "Hel", "lo ", "the", "re"
    request = server.requests[0]
    assert (request.method, request.path) == ("POST", api.path)
    assert "test-key" in request.headers.get("authorization", "") + request.headers.get("x-api-key", "")


@parametrize
@pytest.mark.parametrize(
    ("status", "hint"), [(400, "bad model"), (401, "check the API key"), (503, "bad model")]
)
def test_an_http_error_before_streaming(api: Api, status: int, hint: str) -> None:
    events, server = run(stream_from(api, api.http_error(status, "bad model")))
    assert kinds(events) == ["start", "error"]
    message = check_contract(events)
    assert f"returned HTTP {status}" in (message.error_message or "")
    assert hint in (message.error_message or "")
    assert len(server.requests) == 1, "max_retries=0: no retry"


@parametrize
@pytest.mark.parametrize(
    ("tail", "says"),
    [
        ("stream_error", "Overloaded"),
        ("cut", "incomplete chunked read"),
        ("end", "ended"),
        ("malformed", "malformed data"),
    ],
)
def test_a_failure_mid_stream_keeps_the_text_so_far(api: Api, tail: str, says: str) -> None:
    endings: dict[str, list[Step]] = {
        "stream_error": [api.stream_error],
        "cut": [Cut()],
        "end": [],
        "malformed": [Raw(data=b"event: content_block_delta\ndata: {not json\n\n")],
    }
    events, _ = run(stream_from(api, Reply(steps=[*api.hello_prefix(), *endings[tail]])))
    message = check_contract(events)
    assert message.stop_reason == "error"
    assert says in (message.error_message or ""), message.error_message
    assert message.content == (TextContent(text="Hello "),)


@parametrize
def test_a_missing_key_is_an_error_event(api: Api, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(api.key_variable, raising=False)
    monkeypatch.delenv(api.base_variable, raising=False)
    model = Model(provider=api.provider, id="m")  # the vendor's own endpoint, never reached
    message = check_contract(run(collect(stream(model, CONTEXT, StreamOptions(max_retries=0)))))
    assert message.error_message is not None
    assert message.error_message.startswith("no ") and api.key_variable in message.error_message


@parametrize
def test_an_unreachable_server_is_an_error_event(api: Api) -> None:
    with socket.socket() as bound:  # held, never listening: refused, and no parallel test can take it
        bound.bind(("127.0.0.1", 0))
        port = bound.getsockname()[1]
        model = Model(provider=api.provider, id="m", base_url=f"http://127.0.0.1:{port}")
        message = check_contract(run(collect(stream(model, CONTEXT, OPTIONS))))
    assert "ConnectError" in (message.error_message or ""), message.error_message


@parametrize
def test_a_slow_server_times_out(api: Api) -> None:
    options = StreamOptions(api_key="k", max_retries=0, timeout=0.2)
    events, _ = run(stream_from(api, Reply(hang_before_headers=True), options))
    assert "timed out" in (check_contract(events).error_message or "")


@parametrize
def test_abort_between_two_deltas_stops_at_once_and_disconnects(api: Api) -> None:
    async def scenario() -> list[AssistantEvent]:
        async with SseServer([Reply(steps=[*api.hello_prefix(), Hang()])]) as server:
            signal = AbortSignal()
            events_stream = stream(
                api.model(server), CONTEXT, StreamOptions(api_key="k", max_retries=0, signal=signal)
            )
            events = await collect(events_stream, abort_at_first(TextDeltaEvent, signal))
            await server.wait_disconnects(1, timeout=2)
            return events

    events = run(scenario())
    assert kinds(events)[-3:] == ["text_start", "text_delta", "error"], "no delta after the abort"
    message = check_contract(events)
    assert (message.stop_reason, message.error_message) == ("aborted", "rule fired")
    assert message.content == (TextContent(text="Hel"),)


@parametrize
@pytest.mark.parametrize("where", ["headers", "body"])
def test_abort_while_a_read_is_pending(api: Api, where: str) -> None:
    reply = (
        Reply(hang_before_headers=True) if where == "headers" else Reply(steps=[*api.hello_prefix(), Hang()])
    )

    async def scenario() -> tuple[list[AssistantEvent], float]:
        async with SseServer([reply]) as server:
            signal = AbortSignal()
            loop = asyncio.get_running_loop()

            def after_hello(event: AssistantEvent) -> None:
                if isinstance(event, TextDeltaEvent) and event.partial.text == "Hello ":
                    loop.call_later(0.1, signal.abort, "user pressed escape")  # the next read hangs

            options = StreamOptions(api_key="k", max_retries=0, signal=signal)
            consumer = asyncio.create_task(collect(stream(api.model(server), CONTEXT, options), after_hello))
            if where == "headers":
                await server.wait_requests(1)
                loop.call_later(0.1, signal.abort, "user pressed escape")
            started = time.monotonic()
            events = await consumer
            elapsed = time.monotonic() - started
            await server.wait_disconnects(1)
            return events, elapsed

    events, elapsed = run(scenario())
    message = check_contract(events)
    assert (message.stop_reason, message.error_message) == ("aborted", "user pressed escape")
    assert elapsed < 2
    assert message.content == (() if where == "headers" else (TextContent(text="Hello "),))


@parametrize
def test_an_aborted_signal_sends_no_request(api: Api) -> None:
    signal = AbortSignal()
    signal.abort()
    events, server = run(
        stream_from(api, Reply(steps=api.reply(TextContent(text="x"))), StreamOptions(signal=signal))
    )
    assert kinds(events) == ["start", "error"]
    assert check_contract(events).stop_reason == "aborted"
    assert server.requests == []


@parametrize
def test_cancelling_the_consumer_propagates_and_closes_the_connection(api: Api) -> None:
    async def scenario() -> int:
        async with SseServer([Reply(steps=[*api.hello_prefix(), Hang()])]) as server:
            task = asyncio.create_task(collect(stream(api.model(server), CONTEXT, OPTIONS)))
            await server.wait_requests(1)
            await asyncio.sleep(0.05)
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            await server.wait_disconnects(1, timeout=2)
            return server.disconnects

    assert run(scenario()) == 1
