"""Messages: construction helpers and the JSON round trip the session store relies on."""

from __future__ import annotations

import dataclasses
import json

import pytest
from hypothesis import given

from rein.ai import (
    AssistantMessage,
    ImageContent,
    JsonValue,
    Message,
    MessageFormatError,
    TextContent,
    ThinkingContent,
    ToolCall,
    Usage,
    UserMessage,
    message_from_json,
    message_to_json,
)
from tests.ai import strategies

messages = strategies.messages()


@given(messages)
def test_json_round_trip_is_exact(message: Message) -> None:
    encoded = json.dumps(message_to_json(message))
    assert message_from_json(json.loads(encoded)) == message


def test_json_shape_uses_field_names() -> None:
    call = ToolCall(id="c1", name="read", arguments={"path": "a.py"}, raw_arguments='{"path":"a.py"}')
    message = AssistantMessage(
        content=(call,), provider="faux", model="m", stop_reason="tool_use", timestamp=5
    )
    assert message_to_json(message) == {
        "role": "assistant",
        "content": [
            {
                "type": "tool_call",
                "id": "c1",
                "name": "read",
                "arguments": {"path": "a.py"},
                "raw_arguments": '{"path":"a.py"}',
                "arguments_error": None,
            }
        ],
        "provider": "faux",
        "model": "m",
        "usage": {"input": 0, "output": 0, "cache_read": 0, "cache_write": 0},
        "stop_reason": "tool_use",
        "error_message": None,
        "response_id": None,
        "timestamp": 5,
    }


@pytest.mark.parametrize(
    ("data", "path"),
    [
        ([], "message"),
        ({"role": "system"}, "message.role"),
        ({"role": "user", "content": "hi", "timestamp": 1}, "message.content"),
        ({"role": "user", "content": [{"type": "tool_call"}], "timestamp": 1}, "message.content[0].type"),
        (
            {"role": "user", "content": [{"type": "text", "text": 3}], "timestamp": 1},
            "message.content[0].text",
        ),
        ({"role": "user", "content": [], "timestamp": True}, "message.timestamp"),
        (
            {
                "role": "tool_result",
                "tool_call_id": "c",
                "tool_name": "t",
                "content": [],
                "is_error": "no",
                "timestamp": 1,
            },
            "message.is_error",
        ),
        (
            {"role": "assistant", "content": [{"type": "image", "data": "", "mime_type": ""}]},
            "message.content[0].type",
        ),
    ],
)
def test_bad_json_names_the_field(data: object, path: str) -> None:
    with pytest.raises(MessageFormatError) as caught:
        message_from_json(data)
    assert caught.value.path == path
    assert str(caught.value).startswith(f"{path}: expected")


def test_bad_assistant_fields_name_the_field() -> None:
    good = message_to_json(AssistantMessage(provider="p", model="m", timestamp=1))
    for key, value, path in [
        ("stop_reason", "done", "message.stop_reason"),
        ("usage", {"input": 1}, "message.usage.output"),
        ("error_message", 7, "message.error_message"),
    ]:
        with pytest.raises(MessageFormatError) as caught:
            message_from_json({**good, key: value})
        assert caught.value.path == path
    bad_call: dict[str, JsonValue] = {
        **good,
        "content": [{"type": "tool_call", "id": "c", "name": "n", "arguments": [], "raw_arguments": ""}],
    }
    with pytest.raises(MessageFormatError, match=r"content\[0\]\.arguments: expected a JSON object"):
        message_from_json(bad_call)


def test_values_are_frozen_and_keyword_only() -> None:
    message = UserMessage.of("hi")
    with pytest.raises(dataclasses.FrozenInstanceError):
        message.content = ()  # type: ignore[misc]
    with pytest.raises(TypeError):
        TextContent("positional")  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        TextContent(type="image", text="x")  # type: ignore[call-arg]


def test_helpers() -> None:
    image = ImageContent(data="aGk=", mime_type="image/png")
    user = UserMessage.of("look", image)
    assert user.content == (TextContent(text="look"), image)
    call = ToolCall(id="c", name="ls")
    reply = AssistantMessage(
        content=(ThinkingContent(thinking="hm"), TextContent(text="a"), call, TextContent(text="b")),
        provider="p",
        model="m",
    )
    assert reply.text == "ab"
    assert reply.tool_calls == (call,)
    assert Usage(input=1, output=2, cache_read=3, cache_write=4).total == 10
