"""rein.ai: messages, the assistant stream contract, and providers.

    signal = AbortSignal()                        # shared with hooks and tools; abort() stops the reply
    context = Context(system_prompt="Be brief.", messages=(UserMessage.of("hi"),))
    model = Model(provider="anthropic", id="claude-sonnet-4-5")
    async with stream(model, context, StreamOptions(signal=signal)) as events:
        async for event in events:
            match event:
                case TextDeltaEvent(delta=delta):
                    print(delta, end="")
                case DoneEvent(message=reply) | ErrorEvent(message=reply):
                    ...                           # the final message, with usage and stop reason

`Provider` documents the contract (event order, exactly one final event, never raising, abort).
A provider's body runs under it with `run_stream`, reading through a `Reader` (an abort interrupts
a pending read).
`FauxProvider` streams scripted replies for tests and demos; `rein.ai.testing` has a local SSE server
that speaks each API's wire format. Providers load lazily: importing this package imports no SDK.
"""

from rein.ai._events import (
    AssistantEvent,
    BlockEvent,
    DoneEvent,
    ErrorEvent,
    FinalEvent,
    MessageBuilder,
    StartEvent,
    TextDeltaEvent,
    TextEndEvent,
    TextStartEvent,
    ThinkingDeltaEvent,
    ThinkingEndEvent,
    ThinkingStartEvent,
    ToolCallDeltaEvent,
    ToolCallEndEvent,
    ToolCallStartEvent,
)
from rein.ai._messages import (
    AssistantContent,
    AssistantMessage,
    Context,
    ImageContent,
    JsonValue,
    Message,
    Model,
    StopReason,
    TextContent,
    ThinkingContent,
    Tool,
    ToolCall,
    ToolResultMessage,
    Usage,
    UserContent,
    UserMessage,
    message_from_json,
    message_to_json,
)
from rein.ai._overflow import Overflow, context_overflow
from rein.ai._registry import default_model, get_provider, provider_names, stream
from rein.ai._stream import (
    AbortSignal,
    AssistantStream,
    Provider,
    Reader,
    StreamFn,
    StreamOptions,
    run_stream,
)
from rein.ai.errors import AiError, MessageFormatError, ProviderError, ProviderLoadError, UnknownProviderError
from rein.ai.providers.faux import FauxProvider, FauxReply

__all__ = [
    "AbortSignal",
    "AiError",
    "AssistantContent",
    "AssistantEvent",
    "AssistantMessage",
    "AssistantStream",
    "BlockEvent",
    "Context",
    "DoneEvent",
    "ErrorEvent",
    "FauxProvider",
    "FauxReply",
    "FinalEvent",
    "ImageContent",
    "JsonValue",
    "Message",
    "MessageBuilder",
    "MessageFormatError",
    "Model",
    "Overflow",
    "Provider",
    "ProviderError",
    "ProviderLoadError",
    "Reader",
    "StartEvent",
    "StopReason",
    "StreamFn",
    "StreamOptions",
    "TextContent",
    "TextDeltaEvent",
    "TextEndEvent",
    "TextStartEvent",
    "ThinkingContent",
    "ThinkingDeltaEvent",
    "ThinkingEndEvent",
    "ThinkingStartEvent",
    "Tool",
    "ToolCall",
    "ToolCallDeltaEvent",
    "ToolCallEndEvent",
    "ToolCallStartEvent",
    "ToolResultMessage",
    "UnknownProviderError",
    "Usage",
    "UserContent",
    "UserMessage",
    "context_overflow",
    "default_model",
    "get_provider",
    "message_from_json",
    "message_to_json",
    "provider_names",
    "run_stream",
    "stream",
]
