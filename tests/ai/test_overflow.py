"""`context_overflow`: the providers' real overflow texts, as they reach `error_message`, are found with
the window they name; rate limits, server errors and an ordinary truncation are not overflows."""

from __future__ import annotations

import pytest

from rein.ai import (
    AssistantMessage,
    Context,
    JsonValue,
    Model,
    Overflow,
    ProviderError,
    StopReason,
    StreamOptions,
    TextContent,
    Usage,
    UserMessage,
    context_overflow,
    stream,
)
from rein.ai.testing import (
    Reply,
    SseServer,
    anthropic_http_error,
    anthropic_reply,
    openai_http_error,
    responses_reply,
)
from tests.ai.apis import ANTHROPIC, CHAT, OPTIONS, RESPONSES, Api
from tests.ai.helpers import check_contract, collect, run


def failed(text: str) -> AssistantMessage:
    return AssistantMessage(provider="p", model="m", stop_reason="error", error_message=text)


def ended(reason: StopReason, usage: Usage) -> AssistantMessage:
    return AssistantMessage(provider="p", model="m", stop_reason=reason, usage=usage)


# Each text as rein's provider words it: `status_text` puts "<api> returned HTTP <status>: " first.
OVERFLOWS: list[tuple[str, str, int | None]] = [
    (
        "anthropic",
        "anthropic returned HTTP 400: invalid_request_error: prompt is too long: 210345 tokens > 200000 "
        "maximum",
        200000,
    ),
    (
        "anthropic max_tokens",
        "anthropic returned HTTP 400: invalid_request_error: input length and `max_tokens` exceed context "
        "limit: 197000 + 8192 > 200000, decrease input length or `max_tokens` and try again",
        200000,
    ),
    (
        "anthropic 413",
        "anthropic returned HTTP 413: request_too_large: Request exceeds the maximum allowed number of "
        "bytes.",
        None,
    ),
    (
        "openai chat",
        "openai returned HTTP 400: This model's maximum context length is 128000 tokens. However, your "
        "messages resulted in 130512 tokens. Please reduce the length of the messages.",
        128000,
    ),
    (
        "openai responses",
        "openai returned HTTP 400: Your input exceeds the context window of this model. Please adjust your "
        "input and try again.",
        None,
    ),
    (
        "openai responses, failed event",
        "the response failed: context_length_exceeded: Your input exceeds the context window of this model.",
        None,
    ),
    (
        "vllm",
        "the server at http://gpu:8000/v1 returned HTTP 400: This model's maximum context length is 4096 "
        "tokens. However, you requested 5000 tokens (4000 in the messages, 1000 in the completion). Please "
        "reduce the length of the messages or completion.",
        4096,
    ),
    (
        "vllm max_tokens",
        "the server at http://gpu:8000/v1 returned HTTP 400: 'max_tokens' or 'max_completion_tokens' is too "
        "large: 1000. This model's maximum context length is 4096 tokens and your request has 3500 input "
        "tokens (1000 > 4096 - 3500).",
        4096,
    ),
    (
        "vllm decoder prompt",
        "the server at http://gpu:8000/v1 returned HTTP 400: The decoder prompt (length 5000) is longer than "
        "the maximum model length of 4096. Make sure that `max_model_len` is no smaller than the number of "
        "text tokens.",
        4096,
    ),
    (
        "llama.cpp server",
        "the server at http://127.0.0.1:8080/v1 returned HTTP 400: the request exceeds the available context "
        "size, try increasing it (n_prompt_tokens 9000, n_ctx 8192)",
        8192,
    ),
    (
        "llama_cpp.server",
        "the server at http://127.0.0.1:8000/v1 returned HTTP 400: This model's maximum context length is "
        "2048 tokens. However, you requested 2100 tokens (2000 in the messages, 100 in the completion). "
        "Please reduce the length of the messages or completion.",
        2048,
    ),
    (
        "ollama",
        "the server at http://localhost:11434/v1 returned HTTP 400: prompt too long; exceeded max context "
        "length by 1200 tokens",
        None,
    ),
    (
        "lm studio, keep",
        "the server at http://localhost:1234/v1 returned HTTP 400: The number of tokens to keep from the "
        "initial prompt is greater than the context length. Try to load the model with a larger context "
        "length, or provide a shorter input",
        None,
    ),
    (
        "lm studio, overflow",
        "the server at http://localhost:1234/v1 returned HTTP 400: Trying to keep the first 5310 tokens when "
        "context the overflows. However, the model is loaded with context length of only 4096 tokens, which "
        "is not enough. Try to load the model with a larger context length, or provide a shorter input",
        4096,
    ),
    (
        "gemini",
        "the server at https://generativelanguage.googleapis.com/v1beta/openai returned HTTP 400: The input "
        "token count (1200000) exceeds the maximum number of tokens allowed (1048576).",
        1048576,
    ),
    (
        "mistral",
        "the server at https://api.mistral.ai/v1 returned HTTP 400: Prompt contains 40000 tokens and 0 draft "
        "tokens, too large for model with 32768 maximum context length",
        32768,
    ),
    ("local", "the prompt is 9000 tokens; the model's context is 8192", 8192),
    ("llama-cpp-python", "Requested tokens (9000) exceed context window of 8192", 8192),
]
NOT_OVERFLOWS: list[tuple[str, str]] = [
    (
        "anthropic 429",
        "anthropic returned HTTP 429: rate_limit_error: This request would exceed the rate "
        "limit for your organization of 40,000 input tokens per minute. (rate limited; retry later)",
    ),
    (
        "openai 429 tpm",
        "openai returned HTTP 429: Request too large for gpt-4o in organization org-x on "
        "tokens per min (TPM): Limit 30000, Requested 45000. The input or output tokens must be reduced in "
        "order to run successfully. (rate limited; retry later)",
    ),
    (
        "gemini quota",
        "the server at https://g/v1 returned HTTP 429: Resource has been exhausted (e.g. check "
        "quota). too many tokens",
    ),
    ("anthropic overloaded", "anthropic returned HTTP 529: overloaded_error: Overloaded"),
    ("openai 500", "openai returned HTTP 500: The server had an error while processing your request."),
    ("auth", "anthropic returned HTTP 401: authentication_error: invalid x-api-key (check the API key)"),
    ("connection", "connection to openai failed: ConnectError: [Errno 111] Connection refused"),
    ("bad request", "openai returned HTTP 400: Invalid value for 'max_tokens': must be a positive integer."),
    ("stream cut", "stream ended without a finish reason (cut short by the server or the network)"),
]


@pytest.mark.parametrize(
    ("text", "window"), [(t, w) for _, t, w in OVERFLOWS], ids=[i for i, _, _ in OVERFLOWS]
)
def test_each_providers_overflow_text_is_found_with_its_window(text: str, window: int | None) -> None:
    assert context_overflow(failed(text)) == Overflow(text=text, window=window)


@pytest.mark.parametrize("text", [t for _, t in NOT_OVERFLOWS], ids=[i for i, _ in NOT_OVERFLOWS])
def test_other_failures_are_not_overflows(text: str) -> None:
    assert context_overflow(failed(text)) is None
    assert context_overflow(failed(text), window=200000) is None


def test_an_overflow_text_counts_only_on_a_failed_reply() -> None:
    text = "prompt is too long: 210345 tokens > 200000 maximum"
    for reason in ("stop", "length", "tool_use", "aborted"):
        message = AssistantMessage(provider="p", model="m", stop_reason=reason, error_message=text)
        assert context_overflow(message) is None, reason


def test_a_length_stop_that_filled_the_window_is_an_overflow() -> None:
    # Anthropic's `model_context_window_exceeded` arrives as "length"; so does a local model out of room.
    full = ended("length", Usage(input=1000, output=7000, cache_read=190000, cache_write=2000))
    found = context_overflow(full, window=200000)
    assert found is not None and found.window is None
    assert "window is full" in found.text
    assert context_overflow(full) is None, "without a window nothing says it was full"


def test_a_length_stop_of_a_small_request_is_output_truncation() -> None:
    assert context_overflow(ended("length", Usage(input=3000, output=8192)), window=200000) is None


def test_a_prompt_larger_than_the_window_is_a_silent_overflow() -> None:
    found = context_overflow(ended("stop", Usage(input=9000, output=20)), window=8192)
    assert found is not None and "larger" in found.text
    assert context_overflow(ended("stop", Usage(input=8000, output=150)), window=8192) is None
    assert context_overflow(ended("aborted", Usage(input=9000)), window=8192) is None


def test_a_window_of_zero_or_a_number_of_zero_is_no_window() -> None:
    assert context_overflow(ended("length", Usage(input=10, output=10)), window=0) is None
    assert context_overflow(failed("prompt is too long: 5 tokens > 0 maximum")) == Overflow(
        text="prompt is too long: 5 tokens > 0 maximum", window=None
    )


def test_the_local_providers_own_error_is_found_with_the_window() -> None:
    error = ProviderError("the prompt is 300 tokens; the model's context is 256")
    assert context_overflow(failed(str(error))) == Overflow(text=str(error), window=256)


# End to end: each API's real error body through its real SDK and rein's provider.

CONTEXT = Context(messages=(UserMessage.of("hi"),))


def final_message(api: Api, reply: Reply) -> AssistantMessage:
    async def scenario() -> AssistantMessage:
        async with SseServer([reply]) as server:
            return check_contract(await collect(stream(api.model(server), CONTEXT, OPTIONS)))

    return run(scenario(), 30.0)  # the first call imports its SDK, slow on a busy machine


def openai_error(body: JsonValue) -> Reply:
    return Reply(status=400, body=body, headers={"x-request-id": "req_test"})


E2E: list[tuple[str, Api, Reply, int | None]] = [
    (
        "anthropic",
        ANTHROPIC,
        anthropic_http_error(
            400, "invalid_request_error", "prompt is too long: 210345 tokens > 200000 maximum"
        ),
        200000,
    ),
    (
        "openai chat",
        CHAT,
        openai_error(
            {
                "error": {
                    "message": "This model's maximum context length is 128000 tokens. However, your messages "
                    "resulted in 130512 tokens. Please reduce the length of the messages.",
                    "type": "invalid_request_error",
                    "param": "messages",
                    "code": "context_length_exceeded",
                }
            }
        ),
        128000,
    ),
    (
        "openai responses",
        RESPONSES,
        openai_error(
            {
                "error": {
                    "message": "Your input exceeds the context window of this model. Please adjust your "
                    "input and try again.",
                    "type": "invalid_request_error",
                    "param": "input",
                    "code": "context_length_exceeded",
                }
            }
        ),
        None,
    ),
    (
        "llama.cpp server",
        CHAT,
        openai_error(
            {
                "error": {
                    "code": 400,
                    "message": "the request exceeds the available context size, try increasing it",
                    "type": "exceed_context_size_error",
                    "n_prompt_tokens": 9000,
                    "n_ctx": 8192,
                }
            }
        ),
        8192,
    ),
    (
        "vllm",
        CHAT,
        openai_error(
            {
                "object": "error",
                "message": "This model's maximum context length is 4096 tokens. However, you requested 5000 "
                "tokens (4000 in the messages, 1000 in the completion). Please reduce the length of the "
                "messages or completion.",
                "type": "BadRequestError",
                "param": None,
                "code": 400,
            }
        ),
        4096,
    ),
    (
        "gemini",
        CHAT,
        openai_error(
            [
                {
                    "error": {
                        "code": 400,
                        "message": "The input token count (1200000) exceeds the maximum number of tokens "
                        "allowed (1048576).",
                        "status": "INVALID_ARGUMENT",
                    }
                }
            ]
        ),
        1048576,
    ),
]


@pytest.mark.parametrize(("api", "reply", "window"), [e[1:] for e in E2E], ids=[e[0] for e in E2E])
def test_an_http_400_overflow_through_the_real_sdk(api: Api, reply: Reply, window: int | None) -> None:
    message = final_message(api, reply)
    assert message.stop_reason == "error"
    found = context_overflow(message)
    assert found is not None, message.error_message
    assert found.window == window


def test_a_rate_limit_through_the_real_sdk_is_not_an_overflow() -> None:
    reply = openai_http_error(429, "Request too large for gpt-4o on tokens per min (TPM): Limit 30000")
    message = final_message(CHAT, Reply(status=429, body=reply.body))
    assert message.stop_reason == "error" and context_overflow(message, window=128000) is None


def test_anthropic_model_context_window_exceeded_through_the_real_sdk() -> None:
    steps = anthropic_reply(
        TextContent(text="partial"), stop_reason="model_context_window_exceeded", usage=(199000, 1000, 0)
    )
    message = final_message(ANTHROPIC, Reply(steps=steps))
    assert message.stop_reason == "length"
    assert context_overflow(message, window=200000) is not None
    truncated = final_message(ANTHROPIC, Reply(steps=anthropic_reply(stop_reason="max_tokens")))
    assert truncated.stop_reason == "length" and context_overflow(truncated, window=200000) is None


def test_a_responses_failed_event_through_the_real_sdk() -> None:
    steps = responses_reply(
        status="failed",
        error=("context_length_exceeded", "Your input exceeds the context window of this model."),
    )
    message = final_message(RESPONSES, Reply(steps=steps))
    found = context_overflow(message)
    assert found is not None and found.window is None


# The embedded local model (llama.cpp in-process): its 256-token context overflows at once.
SMALL = Model(provider="local", id="smollm2", context_window=256)


@pytest.mark.local
@pytest.mark.slow
def test_a_prompt_longer_than_the_local_models_context_is_an_overflow_with_its_window() -> None:
    long = Context(messages=(UserMessage.of("word " * 300),))
    options = StreamOptions(temperature=0.0, max_tokens=8)
    message = check_contract(run(collect(stream(SMALL, long, options)), 60.0))
    assert message.stop_reason == "error"
    assert context_overflow(message) == Overflow(text=message.error_message or "", window=256)


@pytest.mark.local
@pytest.mark.slow
def test_a_local_reply_that_ran_out_of_room_is_an_overflow() -> None:
    story = Context(messages=(UserMessage.of("Write a long story about a dragon who learns to cook."),))
    message = check_contract(run(collect(stream(SMALL, story, StreamOptions(temperature=0.0))), 60.0))
    assert message.stop_reason == "length"
    assert message.usage.input + message.usage.output == 256
    assert context_overflow(message, window=256) is not None
