"""OpenAI Responses API through the official SDK's async client.

Same key and base URL rules as the "openai" provider. Requests are stateless (`store: false`): with
reasoning on, the encrypted reasoning item is requested, kept as the thinking block's `signature`
(JSON of its id and encrypted content), and sent back to the same model so it can continue its
thought across tool calls.
"""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator, AsyncIterator

from openai.types.responses import (
    ResponseCompletedEvent,
    ResponseCreatedEvent,
    ResponseErrorEvent,
    ResponseFailedEvent,
    ResponseFunctionCallArgumentsDeltaEvent,
    ResponseFunctionToolCall,
    ResponseIncompleteEvent,
    ResponseInputItemParam,
    ResponseInputMessageContentListParam,
    ResponseOutputItemAddedEvent,
    ResponseOutputItemDoneEvent,
    ResponseOutputMessage,
    ResponseReasoningItem,
    ResponseReasoningSummaryPartAddedEvent,
    ResponseReasoningSummaryTextDeltaEvent,
    ResponseReasoningTextDeltaEvent,
    ResponseRefusalDeltaEvent,
    ResponseStreamEvent,
    ResponseTextDeltaEvent,
    ResponseUsage,
)
from openai.types.responses.response_create_params import ResponseCreateParamsStreaming

from rein.ai._events import AssistantEvent, MessageBuilder
from rein.ai._messages import (
    AssistantMessage,
    Context,
    Model,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    Usage,
    UserMessage,
)
from rein.ai._stream import AssistantStream, Reader, StreamOptions, run_stream
from rein.ai.errors import ProviderError
from rein.ai.providers import replayable, resolve_base_url, same_model
from rein.ai.providers.openai_chat import DEFAULT_BASE_URL, describe, openai_client

_NO_IMAGE = "[image omitted: tool results are sent as text]"


class OpenAIResponsesProvider:
    """The "openai-responses" provider; follows the `Provider` contract."""

    def stream(self, model: Model, context: Context, options: StreamOptions | None = None) -> AssistantStream:
        opts = options or StreamOptions()
        base_url = resolve_base_url(model, "OPENAI_BASE_URL", DEFAULT_BASE_URL)

        async def body(builder: MessageBuilder, reader: Reader) -> AsyncGenerator[AssistantEvent, None]:
            async with openai_client(base_url, opts) as client:
                request = build_request(model, context, opts)
                events = await reader.read(lambda: client.responses.create(**request))
                async with events:
                    async for event in _translate(builder, reader.each(events)):
                        yield event

        builder = MessageBuilder(provider=model.provider, model=model.id)
        return run_stream(builder, body, opts, lambda exc: describe(exc, base_url))


def build_request(model: Model, context: Context, options: StreamOptions) -> ResponseCreateParamsStreaming:
    """The Responses API request for `context`."""
    request: ResponseCreateParamsStreaming = {
        "model": model.id,
        "input": _input(context, model),
        "stream": True,
        "store": False,
    }
    if context.system_prompt:
        request["instructions"] = context.system_prompt
    if context.tools:
        request["tools"] = [
            {
                "type": "function",
                "name": t.name,
                "description": t.description,
                "parameters": dict(t.parameters),
                "strict": False,
            }
            for t in context.tools
        ]
    if max_tokens := options.max_tokens or model.max_output_tokens:
        request["max_output_tokens"] = max_tokens
    if options.temperature is not None:
        request["temperature"] = options.temperature
    if options.reasoning is not None:
        request["reasoning"] = {"effort": options.reasoning, "summary": "auto"}
        request["include"] = ["reasoning.encrypted_content"]
    return request


def _input(context: Context, model: Model) -> list[ResponseInputItemParam]:
    items: list[ResponseInputItemParam] = []
    for message in replayable(context.messages):
        if isinstance(message, UserMessage):
            content: ResponseInputMessageContentListParam = [
                {"type": "input_text", "text": block.text}
                if isinstance(block, TextContent)
                else {
                    "type": "input_image",
                    "detail": "auto",
                    "image_url": f"data:{block.mime_type};base64,{block.data}",
                }
                for block in message.content
            ]
            items.append({"role": "user", "content": content})
        elif isinstance(message, ToolResultMessage):
            output = "".join(b.text if isinstance(b, TextContent) else _NO_IMAGE for b in message.content)
            items.append({"type": "function_call_output", "call_id": message.tool_call_id, "output": output})
        else:
            items.extend(_assistant_items(message, model))
    return items


def _assistant_items(message: AssistantMessage, model: Model) -> list[ResponseInputItemParam]:
    items: list[ResponseInputItemParam] = []
    own = same_model(message, model)
    for block in message.content:
        match block:
            case TextContent() if block.text:
                items.append({"role": "assistant", "content": block.text})
            case ThinkingContent() if own:
                if item := _reasoning_item(block):
                    items.append(item)
            case ThinkingContent() if block.thinking and not block.redacted:
                items.append({"role": "assistant", "content": block.thinking})
            case ToolCall():
                arguments = block.arguments_text
                items.append(
                    {"type": "function_call", "call_id": block.id, "name": block.name, "arguments": arguments}
                )
    return items


def _reasoning_item(block: ThinkingContent) -> ResponseInputItemParam | None:
    """The reasoning item kept in the signature; None when there is none (stateless requests cannot
    refer to an item by id alone)."""
    try:
        kept = json.loads(block.signature or "")
    except json.JSONDecodeError:
        return None
    if not isinstance(kept, dict) or not isinstance(kept.get("id"), str) or not kept.get("encrypted_content"):
        return None
    return {
        "type": "reasoning",
        "id": kept["id"],
        "summary": [{"type": "summary_text", "text": block.thinking}] if block.thinking else [],
        "encrypted_content": str(kept["encrypted_content"]),
    }


async def _translate(
    builder: MessageBuilder, events: AsyncIterator[ResponseStreamEvent]
) -> AsyncGenerator[AssistantEvent, None]:
    current: int | None = None  # output_index of the item being mirrored; other items are skipped
    async for event in events:
        if isinstance(event, ResponseCreatedEvent):
            builder.response_id = event.response.id
        elif isinstance(event, ResponseOutputItemAddedEvent):
            item = event.item
            if isinstance(item, ResponseReasoningItem):
                yield builder.begin_thinking()
            elif isinstance(item, ResponseOutputMessage):
                yield builder.begin_text()
            elif isinstance(item, ResponseFunctionToolCall):
                yield builder.begin_tool_call(id=item.call_id, name=item.name)
            else:
                continue
            current = event.output_index
        elif isinstance(event, _DELTAS) and event.output_index == current:
            if delta := _delta(event):
                yield builder.append(delta)
        elif isinstance(event, ResponseOutputItemDoneEvent) and event.output_index == current:
            for done in _finish_item(builder, event):
                yield done
            current = None
        elif isinstance(event, ResponseCompletedEvent | ResponseIncompleteEvent | ResponseFailedEvent):
            if builder.open_block is not None:
                yield builder.end()
            if event.response.usage is not None:
                builder.usage = _usage(event.response.usage)
            yield _final(builder, event)
            return
        elif isinstance(event, ResponseErrorEvent):
            raise ProviderError(f"responses stream error: {event.code or 'error'}: {event.message}")
    raise ProviderError("responses stream ended before response.completed (the connection closed early)")


_DELTAS = (
    ResponseTextDeltaEvent,
    ResponseRefusalDeltaEvent,
    ResponseReasoningSummaryTextDeltaEvent,
    ResponseReasoningTextDeltaEvent,
    ResponseFunctionCallArgumentsDeltaEvent,
    ResponseReasoningSummaryPartAddedEvent,
)


def _delta(
    event: ResponseTextDeltaEvent
    | ResponseRefusalDeltaEvent
    | ResponseReasoningSummaryTextDeltaEvent
    | ResponseReasoningTextDeltaEvent
    | ResponseFunctionCallArgumentsDeltaEvent
    | ResponseReasoningSummaryPartAddedEvent,
) -> str:
    if isinstance(event, ResponseReasoningSummaryPartAddedEvent):
        return "\n\n" if event.summary_index > 0 else ""  # separate the summary's parts
    return event.delta


def _finish_item(builder: MessageBuilder, event: ResponseOutputItemDoneEvent) -> list[AssistantEvent]:
    """End the mirrored item; from servers that sent no deltas, the item's full text goes in first."""
    item, full = event.item, ""
    if isinstance(item, ResponseReasoningItem):
        full = "\n\n".join(part.text for part in item.summary)
        if item.encrypted_content:
            builder.sign(json.dumps({"id": item.id, "encrypted_content": item.encrypted_content}))
    elif isinstance(item, ResponseOutputMessage):
        full = "".join(part.refusal if part.type == "refusal" else part.text for part in item.content)
    elif isinstance(item, ResponseFunctionToolCall):
        full = item.arguments
    events: list[AssistantEvent] = [builder.append(full)] if full and not _streamed(builder) else []
    events.append(builder.end())
    return events


def _streamed(builder: MessageBuilder) -> str:
    match block := builder.open_block:
        case TextContent():
            return block.text
        case ThinkingContent():
            return block.thinking
        case ToolCall():
            return block.raw_arguments
        case None:
            return ""


def _final(
    builder: MessageBuilder, event: ResponseCompletedEvent | ResponseIncompleteEvent | ResponseFailedEvent
) -> AssistantEvent:
    response = event.response
    if isinstance(event, ResponseFailedEvent):
        error = response.error
        detail = f"{error.code}: {error.message}" if error else "no detail"
        return builder.error("error", f"the response failed: {detail}")
    if isinstance(event, ResponseIncompleteEvent):
        reason = response.incomplete_details.reason if response.incomplete_details else None
        if reason == "content_filter":
            return builder.error("error", "the content filter stopped the reply (incomplete: content_filter)")
        return builder.done("length")
    return builder.done("stop")  # `done` makes it "tool_use" when the reply has function calls


def _usage(usage: ResponseUsage) -> Usage:
    details = usage.input_tokens_details
    cached = details.cached_tokens if details else 0
    written = details.cache_write_tokens if details else 0
    return Usage(
        input=max(0, usage.input_tokens - cached - written),
        output=usage.output_tokens,
        cache_read=cached,
        cache_write=written,
    )
