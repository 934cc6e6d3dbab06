"""A pydantic-ai `StreamedResponse` that runs rein's stream rules on a model call's events and, when one
fires, cancels the call and re-issues it with the rule's injection: the retry happens inside one model
request, so the agent graph only ever records the clean attempt.

Each attempt is an ordinary `model.request_stream(...)` sub-stream, already wrapped by pydantic-ai's own
final-result and part-end events; its events are passed on as they are. The retried attempt numbers its
parts from 0 again, and pydantic-ai's event contract says a `PartStartEvent` for an index already seen
replaces that part, so a consumer that follows it drops the cut text. `get()` is the current attempt's
response, with the usage of the cut attempts added.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime

from pydantic_ai.messages import (
    FinalResultEvent,
    ModelMessage,
    ModelRequest,
    ModelResponse,
    ModelResponseStreamEvent,
    PartDeltaEvent,
    PartStartEvent,
    TextPart,
    TextPartDelta,
    ThinkingPart,
    ThinkingPartDelta,
    ToolCallPart,
    ToolCallPartDelta,
    UserPromptPart,
)
from pydantic_ai.models import Model, StreamedResponse
from pydantic_ai.usage import RequestUsage

from rein.integrations._guard import Cut, Guard, Watch

Opener = Callable[[list[ModelMessage]], AbstractAsyncContextManager[StreamedResponse]]


@dataclass(kw_only=True)
class RetryingStream(StreamedResponse):
    wrapped: Model
    open: Opener
    """Opens one attempt's sub-stream for the given messages."""
    messages: list[ModelMessage]
    guard: Guard
    retries: int
    """Cuts that may re-issue the call; a rule that fires after the last one is let through."""
    on_cut: Callable[[Cut], None]

    _current: StreamedResponse | None = field(default=None, init=False)
    _spent: RequestUsage = field(default_factory=RequestUsage, init=False)
    _stopped: bool = field(default=False, init=False)
    _started: datetime = field(default_factory=lambda: datetime.now(UTC), init=False)

    def __aiter__(self) -> AsyncIterator[ModelResponseStreamEvent]:
        # Not the base wrappers: every sub-stream already emits its final-result and part-end events.
        if self._event_iterator is None:
            events = self._get_event_iterator()
            if self._request_deadline is not None:
                events = self._request_deadline.iterate(events)
            self._event_iterator = events
        return self._event_iterator

    async def _get_event_iterator(self) -> AsyncIterator[ModelResponseStreamEvent]:
        messages = self.messages
        for attempt in range(self.retries + 1):
            watch = self.guard.watch() if attempt < self.retries else None
            async with self.open(messages) as sub:
                self._current = sub
                cut: Cut | None = None
                calls: dict[int, tuple[str, str]] = {}
                async for event in sub:
                    cut = _feed(watch, event, calls) if watch is not None else None
                    if cut is not None:
                        await sub.cancel()
                        break
                    if isinstance(event, FinalResultEvent):
                        self.final_result_event = event
                    yield event
                else:
                    cut = watch.feed("", final=True) if watch is not None else None
            if cut is None or self._stopped:
                return
            self._spent = self._spent + sub.usage
            self.on_cut(cut)
            messages = [*messages, ModelRequest(parts=[UserPromptPart(content=cut.injection)])]

    async def aclose(self) -> None:
        """Close the open sub-stream when the consumer stops early (its `async with` lives in the loop)."""
        close = getattr(self._event_iterator, "aclose", None)
        if close is not None:
            await close()

    async def close_stream(self) -> None:
        self._stopped = True
        if self._current is not None:
            await self._current.cancel()

    def get_stream_cancel_errors(self) -> tuple[type[BaseException], ...]:
        errors = super().get_stream_cancel_errors()
        return errors if self._current is None else (*errors, *self._current.get_stream_cancel_errors())

    def get(self) -> ModelResponse:
        if self._current is None:
            return ModelResponse(parts=[], model_name=self.model_name, state="incomplete")
        response = self._current.get()
        return replace(
            response, usage=self.usage, failed_attempts=self.failed_attempts or response.failed_attempts
        )

    @property
    def usage(self) -> RequestUsage:
        return self._spent if self._current is None else self._spent + self._current.usage

    @property
    def model_name(self) -> str:
        return self.wrapped.model_name if self._current is None else self._current.model_name

    @property
    def provider_name(self) -> str | None:
        return self.wrapped.system if self._current is None else self._current.provider_name

    @property
    def provider_url(self) -> str | None:
        return self.wrapped.base_url if self._current is None else self._current.provider_url

    @property
    def timestamp(self) -> datetime:
        return self._started if self._current is None else self._current.timestamp


def _feed(watch: Watch, event: ModelResponseStreamEvent, calls: dict[int, tuple[str, str]]) -> Cut | None:
    """Feed one event's text to the stream rules: prose, thinking, and tool-call arguments."""
    if isinstance(event, PartStartEvent):
        part = event.part
        if isinstance(part, TextPart):
            return watch.feed(part.content)
        if isinstance(part, ThinkingPart):
            return watch.feed(part.content, source="thinking")
        if isinstance(part, ToolCallPart):
            calls[event.index] = (part.tool_name, part.tool_call_id)
            return _feed_args(watch, part.args, calls[event.index])
        return None
    if not isinstance(event, PartDeltaEvent):
        return None
    delta = event.delta
    if isinstance(delta, TextPartDelta):
        return watch.feed(delta.content_delta)
    if isinstance(delta, ThinkingPartDelta):
        return watch.feed(delta.content_delta or "", source="thinking")
    if isinstance(delta, ToolCallPartDelta):
        name, call_id = calls.get(event.index, (delta.tool_name_delta or "", delta.tool_call_id or ""))
        return _feed_args(watch, delta.args_delta, (name, call_id))
    return None


def _feed_args(watch: Watch, args: object, call: tuple[str, str]) -> Cut | None:
    if not isinstance(args, str) or not args:  # arguments as a dict arrive whole, from non-streaming APIs
        return None
    return watch.feed(args, source="tool", tool_name=call[0], tool_call_id=call[1])
