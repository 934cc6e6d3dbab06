"""`rein proxy` on `/v1/responses` end to end: the official openai SDK (async) as the client, the real
proxy in a subprocess, and the local SSE server as the upstream, scripted with violations."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from openai import AsyncOpenAI
from openai.types.responses import Response, ResponseStreamEvent

from rein.ai import JsonValue, TextContent, ThinkingContent, ToolCall
from rein.ai.testing import Event, Reply, SseServer, openai_http_error, response_object, responses_reply
from tests.ai.helpers import run
from tests.proxy.conftest import RM, RULE, RunningProxy, sent_list, start_proxy

pytestmark = pytest.mark.slow

ASK = "Tell me the word."


def sdk(proxy: RunningProxy) -> AsyncOpenAI:
    return AsyncOpenAI(base_url=f"{proxy.url}/v1", api_key="sk-test", max_retries=0, timeout=20)


async def streamed(proxy: RunningProxy) -> tuple[list[ResponseStreamEvent], Response]:
    """Every event the SDK's stream helper parsed (it checks order and ids), and its final response."""
    events: list[ResponseStreamEvent] = []
    async with sdk(proxy) as client, client.responses.stream(model="gpt-test", input=ASK) as stream:
        async for event in stream:
            events.append(event)
        return events, await stream.get_final_response()


def renamed(steps: list[Event], response_id: str, suffix: str) -> list[Event]:
    """A scripted reply with other ids, as a second upstream response has."""
    text = json.dumps([s.data for s in steps])
    for old in ("msg_", "rs_", "fc_"):
        text = text.replace(f'"{old}', f'"{old}{suffix}')
    datas = json.loads(text.replace('"resp_test"', f'"{response_id}"'))
    return [Event(event=s.event, data=d) for s, d in zip(steps, datas, strict=True)]


def test_a_violation_never_reaches_the_client_and_the_retry_carries_the_rule(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with SseServer() as server:
            server.push(
                Reply(steps=responses_reply(TextContent(text="Sure. The word is forbidden, you see."))),
                Reply(
                    steps=renamed(
                        responses_reply(TextContent(text="I will not say it."), usage=(40, 6, 0)),
                        "resp_2",
                        "r",
                    )
                ),
            )
            async with start_proxy(server.url, tmp_path, rules={"no-word": RULE}) as proxy:
                events, response = await streamed(proxy)
            assert len(server.requests) == 2
            retry = sent_list(server, 1, "input")
        assert "forbidden" not in repr(events)
        text = response.output_text
        assert "forbidden" not in text and text.endswith("I will not say it.")
        assert response.id == "resp_test" and response.status == "completed"
        assert [e.type for e in events].count("response.created") == 1
        assert [e.sequence_number for e in events] == list(range(len(events)))
        assert [item.id for item in response.output] == ["msg_0"]
        assert response.usage is not None and response.usage.input_tokens == 40
        shown = text.removesuffix("I will not say it.")
        assert shown and "Sure. The word is ".startswith(shown)
        assert retry[:-1] == [{"role": "user", "content": ASK}, {"role": "assistant", "content": shown}]
        assert "Never write the word." in json.dumps(retry[-1])

    run(scenario(), timeout=30)


def test_tool_calls_arrive_whole_and_a_violating_one_is_replaced(tmp_path: Path) -> None:
    bad = ToolCall(id="call_bad", name="bash", arguments={"command": "rm -rf build"})
    good = [ToolCall(id="call_1", name="bash", arguments={"command": "ls build"}),
            ToolCall(id="call_2", name="write", arguments={"path": "a.txt", "content": "x"})]  # fmt: skip

    async def scenario() -> None:
        async with SseServer() as server:
            server.push(
                Reply(steps=responses_reply(ThinkingContent(thinking="Clean.", signature="E"), bad)),
                Reply(steps=renamed(responses_reply(*good), "resp_2", "r")),
            )
            async with start_proxy(server.url, tmp_path, rules={"no-rm": RM}) as proxy:
                events, response = await streamed(proxy)
            retry = sent_list(server, 1, "input")
        assert "rm -rf" not in repr(events)
        calls = [item for item in response.output if item.type == "function_call"]
        assert [(c.call_id, c.name, json.loads(c.arguments)) for c in calls] == [
            (c.id, c.name, dict(c.arguments)) for c in good
        ]
        added = [e for e in events if e.type == "response.output_item.added"]
        assert [e.item.type for e in added] == ["reasoning", "function_call", "function_call"]
        assert retry[-1] != {"role": "assistant"} and "list the files" in json.dumps(retry[-1])

    run(scenario(), timeout=30)


def test_when_retries_run_out_the_response_ends_incomplete(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with SseServer() as server:
            server.push(Reply(steps=responses_reply(TextContent(text="Plain words, then forbidden ones."))))
            async with (
                start_proxy(
                    server.url, tmp_path, rules={"no-word": RULE}, args=["--max-retries", "0"]
                ) as proxy,
                sdk(proxy) as client,
            ):
                stream = await client.responses.create(model="gpt-test", input=ASK, stream=True)
                events = [event async for event in stream]
        assert "forbidden" not in repr(events)
        last = events[-1]
        assert last.type == "response.incomplete"
        assert last.response.id == "resp_test" and last.response.incomplete_details is not None
        assert last.response.incomplete_details.reason == "content_filter"
        text = "".join(e.delta for e in events if e.type == "response.output_text.delta")
        assert "Plain words, then ".startswith(text)
        assert last.response.output_text == text

    run(scenario(), timeout=30)


def test_non_streaming_is_checked_whole_and_usage_summed(tmp_path: Path) -> None:
    def reply(text: str, usage: tuple[int, int, int]) -> Reply:
        item: JsonValue = {"type": "message", "id": "msg_1", "status": "completed", "role": "assistant",
                           "content": [{"type": "output_text", "text": text, "annotations": []}]}  # fmt: skip
        return Reply(body=response_object("gpt-test", "completed", [item], usage))

    async def scenario() -> None:
        async with SseServer() as server:
            server.push(reply("It is forbidden.", (10, 4, 0)), reply("I cannot say.", (15, 3, 2)))
            async with (
                start_proxy(server.url, tmp_path, rules={"no-word": RULE}) as proxy,
                sdk(proxy) as client,
            ):
                response = await client.responses.create(model="gpt-test", input=ASK)
            retry = sent_list(server, 1, "input")
        assert response.output_text == "I cannot say."
        assert response.usage is not None
        assert (response.usage.input_tokens, response.usage.output_tokens, response.usage.total_tokens) == (
            25,
            7,
            32,
        )
        assert response.usage.input_tokens_details.cached_tokens == 2
        assert retry[0] == {"role": "user", "content": ASK} and "Never write the word." in json.dumps(
            retry[-1]
        )

    run(scenario(), timeout=30)


def test_a_failed_retry_ends_the_stream_with_an_error_the_sdk_surfaces(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with SseServer() as server:
            server.push(
                Reply(steps=responses_reply(TextContent(text="Plain words, then forbidden ones."))),
                openai_http_error(500, "upstream broke"),
            )
            async with (
                start_proxy(server.url, tmp_path, rules={"no-word": RULE}) as proxy,
                sdk(proxy) as client,
            ):
                stream = await client.responses.create(model="gpt-test", input=ASK, stream=True)
                events = [event async for event in stream]
        assert "forbidden" not in repr(events)
        error, failed = events[-2:]
        assert error.type == "error" and failed.type == "response.failed"
        assert failed.response.id == "resp_test" and failed.response.error is not None
        assert failed.response.error.code == "server_error"
        assert [e.sequence_number for e in events] == list(range(len(events)))

    run(scenario(), timeout=30)
