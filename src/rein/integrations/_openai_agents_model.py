"""`ReinModel`: an Agents SDK `Model` around another one, adding stream rules (a cut cancels the call
and re-issues it with the rule injected) and the timebox (checked before every model call)."""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator, Callable

from agents import (
    AgentOutputSchemaBase,
    AgentsException,
    Handoff,
    Model,
    ModelResponse,
    ModelRetryAdvice,
    ModelRetryAdviceRequest,
    ModelSettings,
    ModelTracing,
    Tool,
    TResponseInputItem,
)
from agents.items import TResponseStreamEvent
from openai.types.responses import ResponseCompletedEvent
from openai.types.responses.response_prompt_param import ResponsePromptParam

from rein.integrations._guard import Cut, Guard
from rein.integrations._openai_agents_watch import StreamWatch, check_output


class TimeboxExceeded(AgentsException):
    """The timebox is spent: raised by `ReinModel` before the model call it would not allow, so it
    leaves `Runner.run` (or `stream_events()` of a streamed run). `str(error)` is rein's stop notice."""


class ReinModel(Model):
    """Wraps `model` (any Agents SDK `Model`, e.g. `OpenAIChatCompletionsModel`) with `guard`'s stream
    rules and timebox. One `ReinModel` and one `Guard` per run.

    Stream rules: `stream_response` feeds every text, reasoning and tool-argument delta to the rules
    as it arrives; on a cut it closes the provider stream at once and re-issues the call with the
    rule's injection appended as a user message. Events already passed on stay with the stream's
    consumer: a second `response.created` within one model call marks a retry (`on_cut` is called
    first), and only the retry's response enters the run's history. `get_response` checks the
    finished response whole and re-issues the call the same way. Injections (and the timebox nudge)
    are kept: later calls of the run get them again after the same input item, as rein's own agent
    keeps them in its context. After `max_retries` re-issues a call's output is passed on as it is.

    Timebox: before each call `guard.budget_check` runs with the run's tokens so far; a nudge is
    added to the input, a stop raises `TimeboxExceeded`. Every completed call is one turn.
    """

    def __init__(
        self,
        model: Model,
        guard: Guard,
        *,
        max_retries: int = 2,
        on_cut: Callable[[Cut], None] | None = None,
    ) -> None:
        self.model = model
        self.guard = guard
        self.max_retries = max_retries
        self.on_cut = on_cut
        self.cuts: list[Cut] = []
        """Every cut of the run, in order."""
        self.tokens = 0
        """Tokens the run's completed calls used, as the provider reported them."""
        self._notes: list[tuple[TResponseInputItem | None, TResponseInputItem]] = []

    async def get_response(
        self,
        system_instructions: str | None,
        input: str | list[TResponseInputItem],
        model_settings: ModelSettings,
        tools: list[Tool],
        output_schema: AgentOutputSchemaBase | None,
        handoffs: list[Handoff],
        tracing: ModelTracing,
        *,
        previous_response_id: str | None,
        conversation_id: str | None,
        prompt: ResponsePromptParam | None,
    ) -> ModelResponse:
        items = self._before_call(input)
        dropped: list[ModelResponse] = []
        while True:
            response = await self.model.get_response(
                system_instructions, items, model_settings, tools, output_schema, handoffs, tracing,
                previous_response_id=previous_response_id, conversation_id=conversation_id, prompt=prompt,
            )  # fmt: skip
            cut = (
                check_output(self.guard.watch(), response.output) if len(dropped) < self.max_retries else None
            )
            if cut is None:
                break
            dropped.append(response)
            items = self._cut(items, cut)
        for old in dropped:  # a dropped reply was still paid for
            response.usage.add(old.usage)
        self._after_call(response.usage.total_tokens)
        return response

    async def stream_response(
        self,
        system_instructions: str | None,
        input: str | list[TResponseInputItem],
        model_settings: ModelSettings,
        tools: list[Tool],
        output_schema: AgentOutputSchemaBase | None,
        handoffs: list[Handoff],
        tracing: ModelTracing,
        *,
        previous_response_id: str | None,
        conversation_id: str | None,
        prompt: ResponsePromptParam | None,
    ) -> AsyncIterator[TResponseStreamEvent]:
        items = self._before_call(input)
        retries = 0
        while True:
            watch = StreamWatch(self.guard.watch())
            cut: Cut | None = None
            stream = self.model.stream_response(
                system_instructions, items, model_settings, tools, output_schema, handoffs, tracing,
                previous_response_id=previous_response_id, conversation_id=conversation_id, prompt=prompt,
            )  # fmt: skip
            try:
                async for event in stream:
                    cut = watch.feed(event) if retries < self.max_retries else None
                    if cut is not None:
                        break
                    if isinstance(event, ResponseCompletedEvent):  # the consumer may stop after it
                        usage = event.response.usage
                        self._after_call(usage.total_tokens if usage is not None else 0)
                    yield event
            finally:
                await _close(stream)  # a cut must end the provider's stream now, not at garbage collection
            if cut is None:
                return
            retries += 1
            items = self._cut(items, cut)

    def get_retry_advice(self, request: ModelRetryAdviceRequest) -> ModelRetryAdvice | None:
        if isinstance(request.error, TimeboxExceeded):
            return ModelRetryAdvice(suggested=False, reason="rein's timebox is spent")
        return self.model.get_retry_advice(request)

    async def close(self) -> None:
        await self.model.close()

    def _before_call(self, input: str | list[TResponseInputItem]) -> list[TResponseInputItem]:
        signal = self.guard.budget_check(tokens=self.tokens)
        if signal is not None and signal.stop:
            raise TimeboxExceeded(signal.message)
        items: list[TResponseInputItem] = [_user(input)] if isinstance(input, str) else list(input)
        items = _replay(items, self._notes)
        return self._note(items, signal.message) if signal is not None else items

    def _cut(self, items: list[TResponseInputItem], cut: Cut) -> list[TResponseInputItem]:
        self.cuts.append(cut)
        if self.on_cut is not None:
            self.on_cut(cut)
        return self._note(items, cut.injection)

    def _note(self, items: list[TResponseInputItem], text: str) -> list[TResponseInputItem]:
        message = _user(text)
        self._notes.append((items[-1] if items else None, message))
        return [*items, message]

    def _after_call(self, tokens: int) -> None:
        self.tokens += tokens
        self.guard.turn_completed()


def _user(text: str) -> TResponseInputItem:
    return {"role": "user", "content": text}


def _replay(
    items: list[TResponseInputItem], notes: list[tuple[TResponseInputItem | None, TResponseInputItem]]
) -> list[TResponseInputItem]:
    """The run's history with rein's earlier messages put back after the items they followed (the SDK
    rebuilds each call's input from its own history, which never held them)."""
    out = [message for anchor, message in notes if anchor is None and message not in items]
    for item in items:
        out.append(item)
        out.extend(message for anchor, message in notes if anchor == item and message not in out)
    return out


async def _close(stream: AsyncIterator[object]) -> None:
    if isinstance(stream, AsyncGenerator):
        await stream.aclose()
