"""The assistant stream contract, the abort signal, and the runner every provider streams through."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncGenerator, AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from types import TracebackType
from typing import Literal, Protocol, TypeAlias, TypeVar

from rein.ai._events import AssistantEvent, DoneEvent, ErrorEvent, MessageBuilder
from rein.ai._messages import AssistantMessage, Context, Model
from rein.ai.errors import ProviderError

T = TypeVar("T")


class AbortSignal:
    """A one-way flag shared by a run: the loop aborts, providers, hooks and tools stop.

    `abort()` is idempotent and runs the registered callbacks at once, in the event loop's thread
    (call it from that thread); callbacks must not raise. Tools either poll `aborted`, `await wait()`,
    or register `on_abort`.
    """

    __slots__ = ("_aborted", "_callbacks", "_event", "_reason")

    def __init__(self) -> None:
        self._aborted = False
        self._reason: str | None = None
        self._callbacks: dict[object, Callable[[], None]] = {}
        self._event = asyncio.Event()

    @property
    def aborted(self) -> bool:
        return self._aborted

    @property
    def reason(self) -> str | None:
        """What the aborting side said; providers use it as the `error_message` of the final event."""
        return self._reason

    def abort(self, reason: str = "aborted") -> None:
        if self._aborted:
            return
        self._aborted = True
        self._reason = reason
        self._event.set()
        callbacks, self._callbacks = self._callbacks, {}
        for callback in callbacks.values():
            callback()

    def on_abort(self, callback: Callable[[], None]) -> Callable[[], None]:
        """Run `callback` when the signal fires (now if it has). Returns a function that unregisters it."""
        if self._aborted:
            callback()
            return _nothing
        key = object()
        self._callbacks[key] = callback
        return lambda: self._callbacks.pop(key, None) and None

    async def wait(self) -> None:
        await self._event.wait()


def _nothing() -> None:
    return None


@dataclass(frozen=True, slots=True, kw_only=True)
class StreamOptions:
    """Per-request options. Each provider reads the ones its API has."""

    signal: AbortSignal | None = None
    """Aborts the stream: reading stops at once and the final event is an "aborted" `error`."""
    api_key: str | None = None
    """Overrides ANTHROPIC_API_KEY / OPENAI_API_KEY."""
    max_tokens: int | None = None
    """Reply limit; defaults to `Model.max_output_tokens`, then to the provider's default."""
    temperature: float | None = None
    """Sampling temperature; the anthropic SDK's Messages API takes none, so that provider ignores it."""
    reasoning: Literal["minimal", "low", "medium", "high"] | None = None
    """Thinking effort: a thinking budget (anthropic), `reasoning_effort` (openai), `reasoning.effort`
    with summaries (openai-responses). None leaves the API's default."""
    max_retries: int = 2
    """SDK retries of a failed request before any event arrived (tests use 0)."""
    timeout: float | None = None
    """Seconds the SDK waits for the connection and for each read; None keeps the SDK's default."""
    avoid: tuple[str, ...] = ()
    """Text the reply must not contain (what a stream rule cut from an earlier try). The local provider
    enforces it with a grammar, so the retry cannot write it; hosted APIs have no such control and
    ignore it (the rule still fires on a repeat it allows)."""


class Provider(Protocol):
    """A model API that streams assistant replies. This is the contract the agent loop relies on.

    `stream(model, context, options)` returns at once, without I/O, an `AssistantStream`: an async
    iterator of `AssistantEvent`s in this order:

        start
        (text_start text_delta* text_end | thinking_start thinking_delta* thinking_end
         | toolcall_start toolcall_delta* toolcall_end)*
        (done | error)

    - `start` first, always (before the request is even sent); blocks take indexes 0, 1, 2, ... in
      `partial.content` and never interleave; deltas are never empty.
    - Exactly one final event, last: `done` with the complete message (usage, stop reason "stop",
      "length" or "tool_use"), or `error` with `stop_reason` "error" (and `error_message`) or
      "aborted". Nothing follows it.
    - Never raises. A missing API key, an HTTP error, a mid-stream error event, a dropped
      connection, malformed data or an SDK exception all end in that one `error` event, whose text
      is rein's own (SDK exception types never leave the provider).
    - Abort: when `options.signal` fires, the provider stops reading at once, closes the HTTP
      response, emits no further delta, and ends with `error` / "aborted". The signal may fire
      between two deltas (from the consumer's own handler of a delta) or while a read is pending.
    - Cancelling the task that iterates is not a failure of the stream: the connection is closed
      and `CancelledError` propagates, as asyncio requires. Use the signal to stop a reply and
      still get its final event.
    - A consumer that stops early must `aclose()` the stream (or use `async with`) to release the
      connection at once rather than at garbage collection.
    """

    def stream(
        self, model: Model, context: Context, options: StreamOptions | None = None
    ) -> AssistantStream: ...


StreamFn: TypeAlias = "Callable[[Model, Context, StreamOptions | None], AssistantStream]"
"""What the agent loop calls for each reply: `rein.ai.stream`, or a provider's bound `stream`."""


class AssistantStream:
    """An async iterator of `AssistantEvent`s following the `Provider` contract."""

    __slots__ = ("_events", "_final")

    def __init__(self, events: AsyncGenerator[AssistantEvent, None]) -> None:
        self._events = events
        self._final: AssistantMessage | None = None

    def __aiter__(self) -> AssistantStream:
        return self

    async def __anext__(self) -> AssistantEvent:
        event = await self._events.__anext__()
        if isinstance(event, DoneEvent | ErrorEvent):
            self._final = event.message
        return event

    async def result(self) -> AssistantMessage:
        """Read the rest of the stream and return the final message (of `done` or `error`)."""
        async for _ in self:
            pass
        assert self._final is not None, "a stream ends with a final event"
        return self._final

    async def aclose(self) -> None:
        await self._events.aclose()

    async def __aenter__(self) -> AssistantStream:
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()


class Aborted(Exception):
    """Raised inside a provider body when the signal fired; the runner turns it into the final event."""


class Reader:
    """Awaits a provider's I/O so that an abort interrupts a pending read at once.

    The abort cancels the reading task and the cancellation is taken back (`uncancel`) and turned
    into `Aborted`, the way `asyncio.timeout` turns its own cancellation into `TimeoutError`; a
    cancellation from elsewhere propagates untouched.
    """

    __slots__ = ("signal",)

    def __init__(self, signal: AbortSignal | None) -> None:
        self.signal = signal

    async def read(self, start: Callable[[], Awaitable[T]]) -> T:
        """Await `start()`; the awaitable is not even created when the signal has already fired."""
        signal = self.signal
        if signal is None:
            return await start()
        if signal.aborted:
            raise Aborted
        task = asyncio.current_task()
        assert task is not None, "providers run inside a task"
        fired = False

        def interrupt() -> None:
            nonlocal fired
            fired = True
            task.cancel()

        unregister = signal.on_abort(interrupt)
        try:
            result = await start()
        except asyncio.CancelledError:
            if fired and task.uncancel() == 0:
                raise Aborted from None
            raise
        finally:
            unregister()
        if fired:
            # The read returned although the abort fired during it (its cancellation was swallowed, or
            # is still pending because the abort ran inside the read): take that cancellation back.
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.sleep(0)
            if task.uncancel() > 0:
                raise asyncio.CancelledError  # someone else cancelled us too
            raise Aborted
        return result

    def each(self, source: AsyncIterator[T]) -> AsyncIterator[T]:
        """The items of `source`, each read through `read`."""
        return _Reads(self, source)


class _Reads(AsyncIterator[T]):
    # A class rather than an async generator: nothing is left suspended for the GC to finalize.
    __slots__ = ("_reader", "_source")

    def __init__(self, reader: Reader, source: AsyncIterator[T]) -> None:
        self._reader = reader
        self._source = source

    async def __anext__(self) -> T:
        return await self._reader.read(self._source.__anext__)


Body = Callable[[MessageBuilder, Reader], AsyncGenerator[AssistantEvent, None]]
"""A provider's stream logic: yields block events and its final event, may raise anything."""


def run_stream(
    builder: MessageBuilder,
    body: Body,
    options: StreamOptions | None,
    describe: Callable[[Exception], str],
) -> AssistantStream:
    """Run `body` under the `Provider` contract; `describe` turns a foreign exception into rein's text."""
    return AssistantStream(_guarded(builder, body, options or StreamOptions(), describe))


async def _guarded(
    builder: MessageBuilder, body: Body, options: StreamOptions, describe: Callable[[Exception], str]
) -> AsyncGenerator[AssistantEvent, None]:
    signal = options.signal
    yield builder.start()
    events = body(builder, Reader(signal))
    final: AssistantEvent | None = None
    try:
        try:
            if signal is not None and signal.aborted:
                raise Aborted  # aborted before the request: do not even send it
            async for event in events:
                if signal is not None and signal.aborted:
                    raise Aborted
                if isinstance(event, DoneEvent | ErrorEvent):
                    final = event
                    break
                yield event
                if signal is not None and signal.aborted:
                    raise Aborted  # the consumer aborted while handling that event
        finally:
            await events.aclose()  # closes the SDK stream and client on every path
        if final is None:
            final = builder.error("error", "provider ended without a final event")
    except Aborted:
        final = builder.error("aborted", (signal.reason if signal else None) or "aborted")
    except asyncio.CancelledError:
        task = asyncio.current_task()
        if task is not None and task.cancelling():
            raise
        final = builder.error("aborted", "cancelled")  # a stray cancellation from inside a library
    except ProviderError as exc:
        final = builder.error("error", str(exc))
    except Exception as exc:
        final = builder.error("error", _describe(describe, exc))
    yield final


def _describe(describe: Callable[[Exception], str], exc: Exception) -> str:
    try:
        return describe(exc)
    except Exception:  # a translator bug must not turn the error event into an exception
        return f"{type(exc).__name__}: {exc}"


def failed_stream(model: Model, message: str) -> AssistantStream:
    """A stream that fails at once, for failures found before any provider runs."""
    builder = MessageBuilder(provider=model.provider, model=model.id)

    async def body(builder: MessageBuilder, reader: Reader) -> AsyncGenerator[AssistantEvent, None]:
        yield builder.error("error", message)

    return run_stream(builder, body, None, str)
