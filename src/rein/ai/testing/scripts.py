"""Canned replies in each API's real wire format, for `SseServer`.

A reply is described with rein's own blocks and cut into many small deltas (`chunk` characters), so
a test exercises the same reassembly a real stream needs:

    anthropic_reply(ThinkingContent(thinking="...", signature="sig"), TextContent(text="Hi"))
    chat_reply(TextContent(text="Hi"), ToolCall(id="call_1", name="ls", raw_arguments='{"d":"."}'))
    responses_reply(TextContent(text="Hi"), usage=(10, 3, 0))

`usage` is (input, output, cached input) tokens as the API counts them.
"""

from __future__ import annotations

from rein.ai._messages import JsonValue, TextContent, ThinkingContent, ToolCall
from rein.ai.providers.faux import pieces
from rein.ai.testing.sse_server import Event, Reply

Block = TextContent | ThinkingContent | ToolCall


# Anthropic Messages -------------------------------------------------------------------------------


def anthropic_reply(
    *blocks: Block,
    stop_reason: str = "end_turn",
    usage: tuple[int, int, int] = (12, 34, 0),
    chunk: int = 3,
    message_id: str = "msg_test",
    model: str = "claude-test",
) -> list[Event]:
    """A complete stream: message_start, a ping, each block, message_delta, message_stop."""
    start_usage: JsonValue = {
        "input_tokens": usage[0],
        "output_tokens": 1,
        "cache_read_input_tokens": usage[2],
        "cache_creation_input_tokens": 0,
    }
    events = [
        _anthropic(
            "message_start",
            message={
                "id": message_id,
                "type": "message",
                "role": "assistant",
                "model": model,
                "content": [],
                "stop_reason": None,
                "stop_sequence": None,
                "usage": start_usage,
            },
        ),
        _anthropic("ping"),
    ]
    for index, block in enumerate(blocks):
        events.extend(anthropic_block(index, block, chunk))
    events.append(
        _anthropic(
            "message_delta",
            delta={"stop_reason": stop_reason, "stop_sequence": None},
            usage={"output_tokens": usage[1]},
        )
    )
    events.append(_anthropic("message_stop"))
    return events


def anthropic_block(index: int, block: Block, chunk: int = 3) -> list[Event]:
    start: dict[str, JsonValue]
    deltas: list[dict[str, JsonValue]]
    match block:
        case TextContent():
            start = {"type": "text", "text": ""}
            deltas = [{"type": "text_delta", "text": p} for p in pieces(block.text, chunk)]
        case ThinkingContent() if block.redacted:
            start, deltas = {"type": "redacted_thinking", "data": block.signature or ""}, []
        case ThinkingContent():
            start = {"type": "thinking", "thinking": "", "signature": ""}
            deltas = [{"type": "thinking_delta", "thinking": p} for p in pieces(block.thinking, chunk)]
            deltas.append({"type": "signature_delta", "signature": block.signature or ""})
        case ToolCall():
            start = {"type": "tool_use", "id": block.id, "name": block.name, "input": {}}
            deltas = [
                {"type": "input_json_delta", "partial_json": p} for p in pieces(block.arguments_text, chunk)
            ]
    return [
        _anthropic("content_block_start", index=index, content_block=start),
        *(_anthropic("content_block_delta", index=index, delta=delta) for delta in deltas),
        _anthropic("content_block_stop", index=index),
    ]


def anthropic_stream_error(kind: str = "overloaded_error", message: str = "Overloaded") -> Event:
    """The `error` event the API sends mid-stream."""
    return _anthropic("error", error={"type": kind, "message": message})


def anthropic_http_error(status: int, kind: str, message: str) -> Reply:
    return Reply(
        status=status,
        body={"type": "error", "error": {"type": kind, "message": message}},
        headers={"request-id": "req_test"},
    )


def _anthropic(kind: str, **fields: JsonValue) -> Event:
    return Event(event=kind, data={"type": kind, **fields})


# OpenAI Chat Completions --------------------------------------------------------------------------


def chat_reply(
    *blocks: Block,
    finish_reason: str | None = "stop",
    usage: tuple[int, int, int] | None = (20, 10, 0),
    chunk: int = 3,
    reasoning_field: str = "reasoning_content",
    model: str = "gpt-test",
) -> list[Event]:
    """Chunks with a role chunk first, content / reasoning / tool-call fragments, the finish chunk,
    the usage chunk (`stream_options.include_usage`) and `[DONE]`. Thinking uses `reasoning_field`,
    as OpenAI-compatible servers do."""
    deltas: list[dict[str, JsonValue]] = [{"role": "assistant", "content": ""}]
    calls = 0
    for block in blocks:
        match block:
            case TextContent():
                deltas.extend({"content": p} for p in pieces(block.text, chunk))
            case ThinkingContent():
                deltas.extend({reasoning_field: p} for p in pieces(block.thinking, chunk))
            case ToolCall():
                head: JsonValue = {
                    "index": calls,
                    "id": block.id,
                    "type": "function",
                    "function": {"name": block.name, "arguments": ""},
                }
                deltas.append({"tool_calls": [head]})
                deltas.extend(
                    {"tool_calls": [{"index": calls, "function": {"arguments": p}}]}
                    for p in pieces(block.arguments_text, chunk)
                )
                calls += 1
    events = [chat_chunk({"index": 0, "delta": d, "finish_reason": None}, model=model) for d in deltas]
    if finish_reason is not None:
        events.append(chat_chunk({"index": 0, "delta": {}, "finish_reason": finish_reason}, model=model))
    if usage is not None:
        usage_data: JsonValue = {
            "prompt_tokens": usage[0],
            "completion_tokens": usage[1],
            "total_tokens": usage[0] + usage[1],
            "prompt_tokens_details": {"cached_tokens": usage[2]},
        }
        events.append(chat_chunk(None, model=model, usage=usage_data))
    events.append(Event(data="[DONE]"))
    return events


def chat_chunk(choice: JsonValue, *, model: str = "gpt-test", usage: JsonValue = None) -> Event:
    data: dict[str, JsonValue] = {
        "id": "chatcmpl-test",
        "object": "chat.completion.chunk",
        "created": 1,
        "model": model,
        "choices": [choice] if choice is not None else [],
    }
    if usage is not None:
        data["usage"] = usage
    return Event(data=data)


def openai_http_error(status: int, message: str, kind: str = "invalid_request_error") -> Reply:
    return Reply(
        status=status,
        body={"error": {"message": message, "type": kind, "param": None, "code": None}},
        headers={"x-request-id": "req_test"},
    )


def chat_stream_error(message: str = "The server had an error") -> Event:
    """What OpenAI-compatible servers send when generation fails after the stream began."""
    return Event(data={"error": {"message": message, "type": "server_error", "code": None}})


# OpenAI Responses ---------------------------------------------------------------------------------


class _Seq:
    def __init__(self) -> None:
        self.n = 0

    def event(self, kind: str, **fields: JsonValue) -> Event:
        self.n += 1
        return Event(event=kind, data={"type": kind, "sequence_number": self.n - 1, **fields})


def responses_reply(
    *blocks: Block,
    status: str = "completed",
    usage: tuple[int, int, int] = (30, 15, 0),
    chunk: int = 3,
    incomplete_reason: str | None = None,
    error: tuple[str, str] | None = None,
    model: str = "gpt-test",
) -> list[Event]:
    """response.created, per block output_item.added / deltas / output_item.done, then
    response.completed, .incomplete or .failed (`error` is its (code, message))."""
    seq = _Seq()
    events = [seq.event("response.created", response=response_object(model, "in_progress", []))]
    output: list[JsonValue] = []
    for index, block in enumerate(blocks):
        item_events, item = responses_item(seq, index, block, chunk)
        events.extend(item_events)
        output.append(item)
    final = response_object(model, status, output, usage)
    if incomplete_reason is not None:
        final["incomplete_details"] = {"reason": incomplete_reason}
    if error is not None:
        final["error"] = {"code": error[0], "message": error[1]}
    kind = {"completed": "response.completed", "incomplete": "response.incomplete"}.get(
        status, "response.failed"
    )
    events.append(seq.event(kind, response=final))
    return events


def responses_item(seq: _Seq, index: int, block: Block, chunk: int) -> tuple[list[Event], JsonValue]:
    events: list[Event] = []
    done: dict[str, JsonValue]
    match block:
        case TextContent():
            item_id = f"msg_{index}"
            added: JsonValue = {
                "type": "message",
                "id": item_id,
                "status": "in_progress",
                "role": "assistant",
                "content": [],
            }
            events.append(seq.event("response.output_item.added", output_index=index, item=added))
            events.extend(
                seq.event(
                    "response.output_text.delta",
                    item_id=item_id,
                    output_index=index,
                    content_index=0,
                    delta=p,
                    logprobs=[],
                )
                for p in pieces(block.text, chunk)
            )
            done = {
                "type": "message",
                "id": item_id,
                "status": "completed",
                "role": "assistant",
                "content": [{"type": "output_text", "text": block.text, "annotations": []}],
            }
        case ThinkingContent():
            item_id = f"rs_{index}"
            added = {"type": "reasoning", "id": item_id, "summary": []}
            events.append(seq.event("response.output_item.added", output_index=index, item=added))
            events.extend(
                seq.event(
                    "response.reasoning_summary_text.delta",
                    item_id=item_id,
                    output_index=index,
                    summary_index=0,
                    delta=p,
                )
                for p in pieces(block.thinking, chunk)
            )
            done = {
                "type": "reasoning",
                "id": item_id,
                "summary": [{"type": "summary_text", "text": block.thinking}],
                "encrypted_content": block.signature,
            }
        case ToolCall():
            item_id = f"fc_{index}"
            added = {
                "type": "function_call",
                "id": item_id,
                "call_id": block.id,
                "name": block.name,
                "arguments": "",
                "status": "in_progress",
            }
            events.append(seq.event("response.output_item.added", output_index=index, item=added))
            events.extend(
                seq.event(
                    "response.function_call_arguments.delta", item_id=item_id, output_index=index, delta=p
                )
                for p in pieces(block.arguments_text, chunk)
            )
            done = {**added, "arguments": block.arguments_text, "status": "completed"}
    events.append(seq.event("response.output_item.done", output_index=index, item=done))
    return events, done


def response_object(
    model: str, status: str, output: list[JsonValue], usage: tuple[int, int, int] | None = None
) -> dict[str, JsonValue]:
    data: dict[str, JsonValue] = {
        "id": "resp_test",
        "object": "response",
        "created_at": 1,
        "model": model,
        "status": status,
        "output": output,
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        "error": None,
        "incomplete_details": None,
    }
    if usage is not None:
        data["usage"] = {
            "input_tokens": usage[0],
            "input_tokens_details": {"cached_tokens": usage[2], "cache_write_tokens": 0},
            "output_tokens": usage[1],
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": usage[0] + usage[1],
        }
    return data


def responses_stream_error(code: str = "server_error", message: str = "The server had an error") -> Event:
    """The `error` event the Responses API sends mid-stream."""
    return Event(
        event="error",
        data={"type": "error", "code": code, "message": message, "param": None, "sequence_number": 99},
    )
