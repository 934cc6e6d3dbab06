"""Messages as summarizer input: one labelled transcript line per block, every message kind."""

from __future__ import annotations

from rein.agent import CustomMessage
from rein.ai import (
    AssistantMessage,
    ImageContent,
    StopReason,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from rein.session.compaction._serialize import serialize

IMAGE = ImageContent(data="aGk=", mime_type="image/png")


def reply(
    *blocks: TextContent | ThinkingContent | ToolCall,
    stop_reason: StopReason = "stop",
    error_message: str | None = None,
) -> AssistantMessage:
    return AssistantMessage(
        content=blocks, provider="faux", model="faux-1", stop_reason=stop_reason, error_message=error_message
    )


def test_user_text_and_images() -> None:
    assert serialize(UserMessage.of("fix the tests")) == "[User]: fix the tests"
    assert serialize(UserMessage.of("look", IMAGE)) == "[User]: look\n[image]"


def test_assistant_text_thinking_and_tool_call_in_block_order() -> None:
    message = reply(
        ThinkingContent(thinking="the test imports a missing name"),
        TextContent(text="Running the tests."),
        ToolCall(id="c1", name="bash", arguments={"command": "pytest -q tests/a.py"}),
    )
    assert serialize(message) == (
        "[Assistant thinking]: the test imports a missing name\n"
        "[Assistant]: Running the tests.\n"
        '[Assistant tool call] bash: {"command": "pytest -q tests/a.py"}'
    )


def test_tool_call_arguments_are_decoded_values_not_streamed_spacing() -> None:
    call = ToolCall(
        id="c1", name="edit", arguments={"path": "src/ä.py"}, raw_arguments='{ "path" :  "src/\\u00e4.py" }'
    )
    assert serialize(reply(call)) == '[Assistant tool call] edit: {"path": "src/ä.py"}'


def test_tool_call_with_undecodable_arguments_keeps_the_raw_text() -> None:
    call = ToolCall(
        id="c1", name="bash", raw_arguments='{"command": "ls', arguments_error="unterminated string"
    )
    assert serialize(reply(call)) == '[Assistant tool call] bash: {"command": "ls'


def test_redacted_thinking_and_empty_text_are_left_out() -> None:
    message = reply(ThinkingContent(thinking="", signature="sig", redacted=True), TextContent(text="done"))
    assert serialize(message) == "[Assistant]: done"
    assert serialize(reply()) == "[Assistant]: (no content)"


def test_failed_reply_says_how_it_failed() -> None:
    message = reply(TextContent(text="Let me"), stop_reason="error", error_message="overloaded")
    assert serialize(message) == "[Assistant]: Let me\n[Assistant error]: overloaded"


def test_tool_results_name_the_tool_and_mark_errors() -> None:
    ok = ToolResultMessage(tool_call_id="c1", tool_name="bash", content=(TextContent(text="3 passed"),))
    failed = ToolResultMessage(
        tool_call_id="c2", tool_name="bash", content=(TextContent(text="exit code 1"),), is_error=True
    )
    shot = ToolResultMessage(tool_call_id="c3", tool_name="screenshot", content=(IMAGE,))
    assert serialize(ok) == "[Tool result bash]: 3 passed"
    assert serialize(failed) == "[Tool result bash (error)]: exit code 1"
    assert serialize(shot) == "[Tool result screenshot]: [image]"


def test_custom_messages_name_their_type() -> None:
    message = CustomMessage(custom_type="ttsr", content="Do not use print() in library code.")
    assert serialize(message) == "[Context ttsr]: Do not use print() in library code."
