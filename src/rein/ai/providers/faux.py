"""The faux provider: scripted replies streamed in small deltas, for tests and the demo.

    faux = FauxProvider([
        [TextContent(text="Let me look."), ToolCall(id="c1", name="read", arguments={"path": "a.py"})],
        lambda context: [TextContent(text=f"{len(context.messages)} messages so far")],
        FauxReply(blocks=(TextContent(text="half a repl"),), error="connection reset"),
    ])
    stream = faux.stream(Model(provider="faux", id="faux-1"), context, options)

Each `stream` call takes the next reply of the script, so the order is fixed when the call is made.
Replies are cut into `chunk_size` characters and streamed the same way every time; with `delay` the
provider sleeps before each delta, and an abort lands between two deltas or during a sleep. Usage is
a plausible count of four characters per token.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncGenerator, Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Literal, TypeAlias

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

FauxBlock: TypeAlias = TextContent | ThinkingContent | ToolCall


@dataclass(frozen=True, slots=True, kw_only=True)
class FauxReply:
    """A scripted reply with an explicit ending: a stop reason, or an `error` after the blocks."""

    blocks: Sequence[FauxBlock] = ()
    stop_reason: Literal["stop", "length", "tool_use"] = "stop"
    error: str | None = None


FauxTurn: TypeAlias = Sequence[FauxBlock] | FauxReply
FauxScript: TypeAlias = Sequence[FauxTurn | Callable[[Context], FauxTurn]] | Callable[[Context], FauxTurn]


def echo(context: Context) -> FauxTurn:
    """The default script: repeat the last user text."""
    last = next((m for m in reversed(context.messages) if isinstance(m, UserMessage)), None)
    text = last.text if last else ""
    return [TextContent(text=f"You said: {text}" if text else "Hello from the faux provider.")]


class FauxProvider:
    """A `Provider` that streams scripted replies; see the module docstring."""

    def __init__(
        self,
        script: FauxScript = echo,
        *,
        chunk_size: int = 4,
        delay: float = 0.0,
        timestamp: int | None = None,
    ) -> None:
        if chunk_size < 1:
            raise ValueError("chunk_size must be at least 1")
        self._script = script
        self._chunk_size = chunk_size
        self._delay = delay
        self._timestamp = timestamp
        self.calls = 0
        """How many replies the script has served."""

    def stream(self, model: Model, context: Context, options: StreamOptions | None = None) -> AssistantStream:
        builder = MessageBuilder(provider=model.provider, model=model.id, timestamp=self._timestamp)
        try:
            reply: FauxReply | Exception = self._next(context)
        except Exception as exc:  # a script that fails is reported by the stream, which never raises
            reply = exc

        async def body(builder: MessageBuilder, reader: Reader) -> AsyncGenerator[AssistantEvent, None]:
            if isinstance(reply, Exception):
                raise reply
            builder.usage = Usage(input=_tokens(_context_chars(context)))
            for block in reply.blocks:
                yield _begin(builder, block)
                for piece in pieces(_block_text(block), self._chunk_size):
                    if self._delay:
                        await reader.read(lambda: asyncio.sleep(self._delay))
                    yield builder.append(piece)
                yield builder.end()
            output = sum(len(_block_text(block)) for block in reply.blocks)
            builder.usage = Usage(input=builder.usage.input, output=_tokens(output))
            yield builder.error("error", reply.error) if reply.error else builder.done(reply.stop_reason)

        return run_stream(builder, body, options, _describe)

    def _next(self, context: Context) -> FauxReply:
        script = self._script
        if callable(script):
            turn = script(context)
        else:
            if self.calls >= len(script):
                raise ProviderError(f"faux script exhausted: it has {len(script)} replies")
            entry = script[self.calls]
            turn = entry(context) if callable(entry) else entry
        self.calls += 1
        return turn if isinstance(turn, FauxReply) else FauxReply(blocks=tuple(turn))


def _describe(exc: Exception) -> str:
    return f"faux script failed: {type(exc).__name__}: {exc}"


def _begin(builder: MessageBuilder, block: FauxBlock) -> AssistantEvent:
    match block:
        case TextContent():
            return builder.begin_text()
        case ThinkingContent():
            return builder.begin_thinking(signature=block.signature, redacted=block.redacted)
        case ToolCall():
            return builder.begin_tool_call(id=block.id, name=block.name)


def _block_text(block: FauxBlock) -> str:
    match block:
        case TextContent():
            return block.text
        case ThinkingContent():
            return block.thinking
        case ToolCall():
            return block.arguments_text


def pieces(text: str, size: int) -> Iterator[str]:
    """`text` cut into pieces of `size` characters, as a stream sends it."""
    return (text[i : i + size] for i in range(0, len(text), size))


def _tokens(chars: int) -> int:
    return max(1, (chars + 3) // 4)


def _context_chars(context: Context) -> int:
    total = len(context.system_prompt or "")
    for message in context.messages:
        if isinstance(message, AssistantMessage):
            total += sum(len(_block_text(block)) for block in message.content)
        elif isinstance(message, UserMessage | ToolResultMessage):
            total += sum(len(block.text) for block in message.content if isinstance(block, TextContent))
    for tool in context.tools:
        total += len(tool.name) + len(tool.description) + len(json.dumps(dict(tool.parameters)))
    return total
