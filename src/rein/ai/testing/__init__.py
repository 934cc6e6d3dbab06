"""Test doubles at the transport boundary: a local SSE server and canned replies in each API's wire
format. Import explicitly (`rein.ai.testing`); `rein.ai` does not load it."""

from rein.ai.testing.scripts import (
    anthropic_block,
    anthropic_http_error,
    anthropic_reply,
    anthropic_stream_error,
    chat_chunk,
    chat_reply,
    chat_stream_error,
    openai_http_error,
    response_object,
    responses_reply,
    responses_stream_error,
)
from rein.ai.testing.sse_server import (
    Cut,
    Event,
    Hang,
    Pause,
    Raw,
    Reply,
    Request,
    SseServer,
    Step,
    read_request,
)

__all__ = [
    "Cut",
    "Event",
    "Hang",
    "Pause",
    "Raw",
    "Reply",
    "Request",
    "SseServer",
    "Step",
    "anthropic_block",
    "anthropic_http_error",
    "anthropic_reply",
    "anthropic_stream_error",
    "chat_chunk",
    "chat_reply",
    "chat_stream_error",
    "openai_http_error",
    "read_request",
    "response_object",
    "responses_reply",
    "responses_stream_error",
]
