"""OpenAI Chat Completions through the official SDK's async client; also any OpenAI-compatible server.

Key from `StreamOptions.api_key` or OPENAI_API_KEY; base URL from `Model.base_url`, OPENAI_BASE_URL,
or OpenAI's own. With a custom base URL (Ollama, vLLM, llama.cpp) a missing key is allowed, since
local servers rarely check one. Reasoning from compatible servers arrives as `reasoning_content` (or
`reasoning`) and becomes thinking; the API has no way to take it back, so thinking is not replayed
to the model that produced it. Tool results are text only in this API; images in them are noted.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator, Iterator
from typing import Literal

from openai import APIConnectionError, APIError, APIStatusError, APITimeoutError, AsyncOpenAI, not_given
from openai.types.chat import (
    ChatCompletionAssistantMessageParam,
    ChatCompletionChunk,
    ChatCompletionContentPartParam,
    ChatCompletionMessageFunctionToolCallParam,
    ChatCompletionMessageParam,
)
from openai.types.chat.chat_completion_chunk import ChoiceDelta
from openai.types.chat.completion_create_params import CompletionCreateParamsStreaming
from openai.types.completion_usage import CompletionUsage

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
from rein.ai.providers import replayable, resolve_base_url, resolve_key, same_model, status_text

DEFAULT_BASE_URL = "https://api.openai.com/v1"
_NO_IMAGE = "[image omitted: this API takes text only in tool results]"
_FINISH: dict[str, Literal["stop", "length", "tool_use"]] = {
    "stop": "stop",
    "length": "length",
    "tool_calls": "tool_use",
    "function_call": "tool_use",
}


class OpenAIChatProvider:
    """The "openai" provider; follows the `Provider` contract."""

    def stream(self, model: Model, context: Context, options: StreamOptions | None = None) -> AssistantStream:
        opts = options or StreamOptions()
        base_url = resolve_base_url(model, "OPENAI_BASE_URL", DEFAULT_BASE_URL)

        async def body(builder: MessageBuilder, reader: Reader) -> AsyncGenerator[AssistantEvent, None]:
            async with openai_client(base_url, opts) as client:
                request = build_request(model, context, opts, official=base_url == DEFAULT_BASE_URL)
                chunks = await reader.read(lambda: client.chat.completions.create(**request))
                async with chunks:
                    async for event in _translate(builder, reader.each(chunks)):
                        yield event

        builder = MessageBuilder(provider=model.provider, model=model.id)
        return run_stream(builder, body, opts, lambda exc: describe(exc, base_url))


def openai_client(base_url: str, options: StreamOptions) -> AsyncOpenAI:
    """A client for one stream; a missing key is an error only against OpenAI's own endpoint."""
    key = resolve_key(options.api_key, "OPENAI_API_KEY")
    if key is None:
        if base_url == DEFAULT_BASE_URL:
            raise ProviderError("no OpenAI API key: set OPENAI_API_KEY or pass StreamOptions(api_key=)")
        key = "unused"  # the SDK insists on a key; local servers ignore it
    return AsyncOpenAI(
        api_key=key,
        base_url=base_url,
        max_retries=options.max_retries,
        timeout=not_given if options.timeout is None else options.timeout,
    )


def build_request(
    model: Model, context: Context, options: StreamOptions, *, official: bool
) -> CompletionCreateParamsStreaming:
    """The Chat Completions request; `official` selects OpenAI's own spelling of the token limit."""
    messages: list[ChatCompletionMessageParam] = []
    if context.system_prompt:
        messages.append({"role": "system", "content": context.system_prompt})
    for message in replayable(context.messages):
        if isinstance(message, UserMessage):
            messages.append({"role": "user", "content": _user_parts(message)})
        elif isinstance(message, ToolResultMessage):
            text = "".join(b.text if isinstance(b, TextContent) else _NO_IMAGE for b in message.content)
            messages.append({"role": "tool", "tool_call_id": message.tool_call_id, "content": text})
        elif assistant := _assistant(message, model):
            messages.append(assistant)
    request: CompletionCreateParamsStreaming = {
        "model": model.id,
        "messages": messages,
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    if context.tools:
        request["tools"] = [
            {
                "type": "function",
                "function": {"name": t.name, "description": t.description, "parameters": dict(t.parameters)},
            }
            for t in context.tools
        ]
    if max_tokens := options.max_tokens or model.max_output_tokens:
        # OpenAI's reasoning models reject max_tokens; compatible servers may not know the new name.
        request["max_completion_tokens" if official else "max_tokens"] = max_tokens
    if options.temperature is not None:
        request["temperature"] = options.temperature
    if options.reasoning is not None:
        request["reasoning_effort"] = options.reasoning
    return request


def _user_parts(message: UserMessage) -> str | list[ChatCompletionContentPartParam]:
    if len(message.content) == 1 and isinstance(message.content[0], TextContent):
        return message.content[0].text  # the plain form every compatible server understands
    parts: list[ChatCompletionContentPartParam] = []
    for block in message.content:
        if isinstance(block, TextContent):
            parts.append({"type": "text", "text": block.text})
        else:
            url = f"data:{block.mime_type};base64,{block.data}"
            parts.append({"type": "image_url", "image_url": {"url": url}})
    return parts


def _assistant(message: AssistantMessage, model: Model) -> ChatCompletionAssistantMessageParam | None:
    own = same_model(message, model)
    text: list[str] = []
    calls: list[ChatCompletionMessageFunctionToolCallParam] = []
    for block in message.content:
        match block:
            case TextContent():
                text.append(block.text)
            case ThinkingContent() if not own and not block.redacted:
                text.append(block.thinking)
            case ToolCall():
                arguments = block.arguments_text
                calls.append(
                    {
                        "id": block.id,
                        "type": "function",
                        "function": {"name": block.name, "arguments": arguments},
                    }
                )
    content = "".join(text)
    if not content and not calls:
        return None
    param: ChatCompletionAssistantMessageParam = {"role": "assistant", "content": content or None}
    if calls:
        param["tool_calls"] = calls
    return param


async def _translate(
    builder: MessageBuilder, chunks: AsyncIterator[ChatCompletionChunk]
) -> AsyncGenerator[AssistantEvent, None]:
    finish: str | None = None
    call_index: int | None = None  # the API's index of the open tool call
    ended_calls: set[int] = set()
    async for chunk in chunks:
        builder.response_id = builder.response_id or chunk.id
        if chunk.usage is not None:
            builder.usage = _usage(chunk.usage)
        if not chunk.choices:
            continue
        choice = chunk.choices[0]
        delta = choice.delta
        if reasoning := _reasoning(delta):
            for event in _switch(builder, ThinkingContent):
                yield event
            yield builder.append(reasoning)
        if delta.content:
            for event in _switch(builder, TextContent):
                yield event
            yield builder.append(delta.content)
        for fragment in delta.tool_calls or ():
            if fragment.index != call_index:
                if fragment.index in ended_calls:
                    raise ProviderError(f"tool call {fragment.index} continued after the next one began")
                for event in _switch(builder, None):
                    yield event
                if call_index is not None:
                    ended_calls.add(call_index)
                call_index = fragment.index
                function = fragment.function
                name = (function.name if function else None) or ""
                yield builder.begin_tool_call(id=fragment.id or f"call_{fragment.index}", name=name)
            if fragment.function and fragment.function.arguments:
                yield builder.append(fragment.function.arguments)
        finish = choice.finish_reason or finish
    for event in _switch(builder, None):
        yield event
    if finish is None:
        raise ProviderError("stream ended without a finish reason (cut short by the server or the network)")
    if finish == "content_filter":
        yield builder.error(
            "error", "the reply was stopped by the content filter (finish reason content_filter)"
        )
    else:
        yield builder.done(_FINISH.get(finish, "stop"))


def _switch(
    builder: MessageBuilder, kind: type[TextContent] | type[ThinkingContent] | None
) -> Iterator[AssistantEvent]:
    """End the open block unless it is of `kind`, then open a block of `kind` if none is open."""
    block = builder.open_block
    if block is not None and (kind is None or not isinstance(block, kind)):
        yield builder.end()
        block = None
    if block is None and kind is TextContent:
        yield builder.begin_text()
    elif block is None and kind is ThinkingContent:
        yield builder.begin_thinking()


def _reasoning(delta: ChoiceDelta) -> str | None:
    # Compatible servers add the field the SDK does not declare: vLLM and DeepSeek `reasoning_content`,
    # newer vLLM, Ollama and OpenRouter `reasoning`.
    extra = delta.model_extra or {}
    for key in ("reasoning_content", "reasoning"):
        value = extra.get(key)
        if isinstance(value, str) and value:
            return value
    return None


def _usage(usage: CompletionUsage) -> Usage:
    details = usage.prompt_tokens_details
    cached = (details.cached_tokens or 0) if details else 0
    written = (details.cache_write_tokens or 0) if details else 0
    return Usage(
        input=max(0, usage.prompt_tokens - cached - written),
        output=usage.completion_tokens,
        cache_read=cached,
        cache_write=written,
    )


def describe(exc: Exception, base_url: str) -> str:
    """rein's text for an SDK or transport exception (shared with the Responses provider)."""
    api = "openai" if base_url == DEFAULT_BASE_URL else f"the server at {base_url}"
    if isinstance(exc, APITimeoutError):
        return f"request to {api} timed out"
    if isinstance(exc, APIConnectionError):
        cause = exc.__cause__ or exc
        return f"connection to {api} failed: {type(cause).__name__}: {cause}"
    if isinstance(exc, APIStatusError):
        return status_text(api, exc.status_code, _detail(exc.body) or exc.message)
    if isinstance(exc, APIError):
        return f"stream error from {api}: {exc.message}"
    if isinstance(exc, ValueError):
        return f"malformed data from {api}: {exc}"
    return f"stream from {api} failed: {type(exc).__name__}: {exc}"


def _detail(body: object) -> str | None:
    """The error body's message. llama.cpp's server puts the sizes beside it (`n_prompt_tokens`,
    `n_ctx`): they are kept, because they tell compaction how large the window really is."""
    if isinstance(body, list) and body and isinstance(body[0], dict):  # Gemini: `[{"error": {...}}]`
        body = body[0].get("error", body[0])
    if not isinstance(body, dict) or not isinstance(message := body.get("message"), str):
        return None
    sizes = [f"{key} {body[key]}" for key in ("n_prompt_tokens", "n_ctx") if isinstance(body.get(key), int)]
    return f"{message} ({', '.join(sizes)})" if sizes else message
