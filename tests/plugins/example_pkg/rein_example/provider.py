"""The `shout` provider: replies with the last user text upper-cased, streamed a few characters at a time.

A provider is a class (or any callable, the entry point's "factory") whose instances have
`stream(model, context, options)`, following `rein.ai.Provider`'s contract: return at once, yield
`start`, the blocks, then exactly one final event (`done` or `error`), never raise, and stop with
`error`/"aborted" when `options.signal` fires. `MessageBuilder` builds each event and the message.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator

from rein.ai import (
    AssistantEvent,
    AssistantStream,
    Context,
    MessageBuilder,
    Model,
    StreamOptions,
    UserMessage,
)

PIECE = 3
"""Characters per text delta: small, so a reply streams in several pieces."""


class ShoutProvider:
    """The entry point's factory: `ShoutProvider()` is the provider."""

    default_model = "shout-1"
    """What `rein --provider shout` uses when no `--model` is given."""

    def stream(self, model: Model, context: Context, options: StreamOptions | None = None) -> AssistantStream:
        return AssistantStream(_shout(model, context, options or StreamOptions()))


async def _shout(
    model: Model, context: Context, options: StreamOptions
) -> AsyncGenerator[AssistantEvent, None]:
    builder = MessageBuilder(provider=model.provider, model=model.id)
    yield builder.start()
    last = next((m for m in reversed(context.messages) if isinstance(m, UserMessage)), None)
    text = (last.text if last else "").upper() or "NOTHING TO SHOUT ABOUT"
    yield builder.begin_text()
    for at in range(0, len(text), PIECE):
        if options.signal is not None and options.signal.aborted:
            yield builder.error("aborted", options.signal.reason or "aborted")
            return
        yield builder.append(text[at : at + PIECE])
    yield builder.end()
    yield builder.done("stop")
