"""pi-ai message JSON <-> rein messages, proxy events, and a branch's context (`rein.server._wire`)."""

from __future__ import annotations

import asyncio

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rein.ai import (
    AssistantMessage,
    Context,
    FauxProvider,
    JsonValue,
    Message,
    Model,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    Usage,
    UserMessage,
    message_to_json,
)
from rein.server._errors import ProtocolError
from rein.server._wire import branch_messages, pi_message, proxy_event, replay_events, wire_message
from tests.ai import strategies

# pi's JSON is JavaScript's: integers in arguments stay small, times within what a number holds exactly
messages = strategies.messages(
    integers=st.integers(-1000, 1000),
    timestamps=st.integers(min_value=0, max_value=2**45),
    mime_types=st.sampled_from(["image/png", "image/jpeg"]),
)


@given(messages)
def test_rein_to_pi_to_rein_is_the_identity(message: Message) -> None:
    assert wire_message(pi_message(message), "m") == message


@given(messages)
def test_reins_own_json_is_accepted_too(message: Message) -> None:
    assert wire_message(message_to_json(message), "m") == message


def test_pi_fields_are_pis() -> None:
    reply = AssistantMessage(
        content=(ToolCall(id="c1", name="bash", arguments={"command": "ls"}),),
        provider="anthropic",
        model="m",
        usage=Usage(input=3, output=2, cache_read=1),
        stop_reason="tool_use",
        timestamp=5,
    )
    pi = pi_message(reply)
    assert pi["stopReason"] == "toolUse"
    assert pi["api"] == "anthropic-messages"
    assert pi["usage"] == {
        "input": 3, "output": 2, "cacheRead": 1, "cacheWrite": 0, "totalTokens": 6,
        "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0},
    }  # fmt: skip
    assert pi["content"] == [{"type": "toolCall", "id": "c1", "name": "bash", "arguments": {"command": "ls"}}]
    result = wire_message(
        {"role": "toolResult", "toolCallId": "c1", "toolName": "bash", "content": "ok", "isError": False},
        "m",
    )
    assert result == ToolResultMessage(
        tool_call_id="c1", tool_name="bash", content=(TextContent(text="ok"),), timestamp=0
    )


@pytest.mark.parametrize(
    "stop", ["pending", "stop", "length", "toolUse", "error", "aborted", "deferred", "a-later-reason"]
)
def test_every_stop_reason_pi_has_and_any_later_one_is_accepted(stop: str) -> None:
    """pi-ai's `StopReason` (types.ts, the fork's commit 54b1ac3) and a value a later pi may add: the
    client resends its whole context every turn, so refusing one would fail every turn after it."""
    message = wire_message(
        {"role": "assistant", "content": [{"type": "text", "text": "t"}], "stopReason": stop}, "m"
    )
    assert isinstance(message, AssistantMessage) and message.content == (TextContent(text="t"),)
    known = {
        "stop": "stop",
        "length": "length",
        "toolUse": "tool_use",
        "error": "error",
        "aborted": "aborted",
    }
    assert message.stop_reason == known.get(stop, "stop")


@pytest.mark.parametrize(
    ("obj", "field"),
    [
        ({"role": "robot", "content": []}, "contextOverlay[2].role"),
        ({"role": "assistant", "content": [], "stopReason": 7}, "contextOverlay[2].stopReason"),
        ({"role": "user", "content": [{"type": "video"}]}, "contextOverlay[2].content[0].type"),
        ({"role": "tool_result", "content": []}, "contextOverlay[2].tool_call_id"),
    ],
)
def test_a_bad_message_is_a_400_naming_the_field(obj: object, field: str) -> None:
    with pytest.raises(ProtocolError) as caught:
        wire_message(obj, "contextOverlay[2]")
    assert caught.value.status == 400
    assert caught.value.code == "INVALID_REQUEST"
    assert field in caught.value.message


def test_a_faux_reply_streams_as_the_forks_proxy_events() -> None:
    faux = FauxProvider(
        [
            [
                ThinkingContent(thinking="hm", signature="sig"),
                TextContent(text="hello"),
                ToolCall(id="c", name="ls"),
            ]
        ],
        chunk_size=3,
    )

    async def collect() -> list[dict[str, JsonValue] | None]:
        async with faux.stream(Model(provider="faux", id="f"), context_of()) as stream:
            return [proxy_event(event) async for event in stream]

    events = asyncio.run(collect())
    kinds = [e["type"] for e in events if e is not None]
    assert kinds == [
        "start", "thinking_start", "thinking_delta", "thinking_end", "text_start", "text_delta",
        "text_delta", "text_end", "toolcall_start", "toolcall_delta", "toolcall_end", "done",
    ]  # fmt: skip
    assert events[3] == {"type": "thinking_end", "contentIndex": 0, "contentSignature": "sig"}
    assert events[8] == {"type": "toolcall_start", "contentIndex": 2, "id": "c", "toolName": "ls"}
    assert events[-1] is not None and events[-1]["reason"] == "toolUse"


def test_a_replay_rebuilds_the_message_from_its_events() -> None:
    reply = AssistantMessage(
        content=(TextContent(text="hi"), ToolCall(id="c", name="bash", arguments={"command": "ls"})),
        provider="faux",
        model="f",
        stop_reason="tool_use",
    )
    events = replay_events(reply)
    assert [e["type"] for e in events] == [
        "start", "text_start", "text_delta", "text_end",
        "toolcall_start", "toolcall_delta", "toolcall_end", "done",
    ]  # fmt: skip
    assert events[2]["delta"] == "hi"
    assert events[-1]["message"] == pi_message(reply)


def test_branch_messages_count_compactions_and_custom_messages_as_a_local_run() -> None:
    entries: list[dict[str, object]] = [
        {"type": "message", "id": "a", "parentId": None, "timestamp": "t",
         "message": {"role": "user", "content": "old question", "timestamp": 1}},
        {"type": "message", "id": "b", "parentId": "a", "timestamp": "t",
         "message": {"role": "assistant", "content": [{"type": "text", "text": "old answer"}],
                     "provider": "faux", "model": "f", "stopReason": "stop", "timestamp": 2}},
        {"type": "message", "id": "c", "parentId": "b", "timestamp": "t",
         "message": message_to_json(UserMessage(content=(TextContent(text="kept"),), timestamp=3))},
        {"type": "compaction", "id": "d", "parentId": "c", "timestamp": "t", "summary": "they talked",
         "firstKeptEntryId": "c", "tokensBefore": 10},
        {"type": "custom_message", "id": "e", "parentId": "d", "timestamp": "t",
         "customType": "ttsr-injection", "content": "a rule", "display": False},
        {"type": "custom", "id": "f", "parentId": "e", "timestamp": "t", "customType": "x", "data": {}},
    ]  # fmt: skip
    got = branch_messages(entries)
    assert [type(m).__name__ for m in got] == ["UserMessage", "UserMessage", "UserMessage"]
    texts = [m.text for m in got if isinstance(m, UserMessage)]
    assert "they talked" in texts[0]
    assert texts[1:] == ["kept", "a rule"]


def context_of() -> Context:
    return Context(messages=(UserMessage.of("hi"),))
