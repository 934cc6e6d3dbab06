"""rein in pydantic-ai: one capability that puts a `Guard` on an agent (`pip install 'rein[pydantic-ai]'`).

    from pydantic_ai import Agent
    from rein.integrations import Guard
    from rein.integrations.pydantic_ai import ReinCapability

    agent = Agent("openai:gpt-5", tools=[bash], capabilities=[ReinCapability(Guard(cwd="."))])

What each rein feature uses, all pydantic-ai's own capability hooks:

- steering: `before_tool_execute` raises `SkipToolExecution(reason)`, so a blocked call never runs and
  the model reads rein's reason as the tool's result; `after_tool_execute` tells steering's observers.
- stream rules: `get_wrapper_model` wraps the model serving each request in `ReinModel`, which streams
  the call, feeds every text, thinking and tool-argument delta to the rules, and on a cut cancels the
  call and re-issues it with the rule's injection added as a user message. A real retry, inside one
  request step: the history keeps only the clean attempt, and the injection is sent with the retry
  only (rein's "discard" context mode). A non-streamed run (`agent.run()`) streams underneath, so it
  is cut early too; a streamed run's consumer has already seen the cut attempt's first events, then a
  `PartStartEvent` for index 0 again, which by pydantic-ai's event contract replaces that part.
- timebox: `before_model_request` checks the budget (model requests count as turns, the run's tokens as
  tokens); a nudge is enqueued for the model, a stop raises `TimeboxExceeded` out of the run.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

from pydantic_ai.capabilities import AbstractCapability
from pydantic_ai.exceptions import AgentRunError, SkipToolExecution
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    SystemPromptPart,
    TextPart,
    ToolCallPart,
    UserPromptPart,
)
from pydantic_ai.models import Model, ModelRequestContext, ModelRequestParameters, StreamedResponse
from pydantic_ai.models.wrapper import WrapperModel
from pydantic_ai.settings import ModelSettings
from pydantic_ai.tools import AgentDepsT, RunContext, ToolDefinition

from rein.integrations._guard import Cut, Guard
from rein.integrations._pydantic_ai_stream import RetryingStream

__all__ = ["ReinCapability", "ReinModel", "TimeboxExceeded"]

DEFAULT_RETRIES = 2


class TimeboxExceeded(AgentRunError):
    """The run's timebox ran out; `message` is rein's stop notice."""


class ReinModel(WrapperModel):
    """A model whose every call runs rein's stream rules, cancelling and re-issuing it on a cut.

    `retries`: how many cuts one request may re-issue; a rule that fires after them is let through.
    `on_cut` is called with each `Cut` (after the cancelled attempt, before the retry).
    """

    def __init__(
        self,
        wrapped: Model | str,
        guard: Guard,
        *,
        retries: int = DEFAULT_RETRIES,
        on_cut: Callable[[Cut], None] | None = None,
    ) -> None:
        super().__init__(wrapped)
        self.guard = guard
        self.retries = retries
        self.cuts: list[Cut] = []
        self._on_cut = on_cut

    async def request(
        self,
        messages: list[ModelMessage],
        model_settings: ModelSettings | None,
        model_request_parameters: ModelRequestParameters,
    ) -> ModelResponse:
        if type(self.wrapped).request_stream is Model.request_stream:
            return await self._request_whole(messages, model_settings, model_request_parameters)
        async with self.request_stream(messages, model_settings, model_request_parameters) as stream:
            async for _ in stream:
                pass
        return stream.get()

    @asynccontextmanager
    async def request_stream(
        self,
        messages: list[ModelMessage],
        model_settings: ModelSettings | None,
        model_request_parameters: ModelRequestParameters,
        run_context: RunContext[Any] | None = None,
    ) -> AsyncIterator[StreamedResponse]:
        def attempt(sent: list[ModelMessage]) -> AbstractAsyncContextManager[StreamedResponse]:
            return self.wrapped.request_stream(sent, model_settings, model_request_parameters, run_context)

        stream = RetryingStream(
            model_request_parameters=model_request_parameters,
            wrapped=self.wrapped,
            open=attempt,
            messages=messages,
            guard=self.guard,
            retries=self.retries,
            on_cut=self._cut,
        )
        try:
            yield stream
        finally:
            await stream.aclose()

    async def _request_whole(
        self,
        messages: list[ModelMessage],
        model_settings: ModelSettings | None,
        model_request_parameters: ModelRequestParameters,
    ) -> ModelResponse:
        """A model that cannot stream: the rules read each finished response, a cut re-issues it."""
        for _ in range(self.retries):
            response = await self.wrapped.request(messages, model_settings, model_request_parameters)
            text = "".join(part.content for part in response.parts if isinstance(part, TextPart))
            cut = self.guard.watch().check_whole(text)
            if cut is None:
                return response
            self._cut(cut)
            messages = [*messages, ModelRequest(parts=[UserPromptPart(content=cut.injection)])]
        return await self.wrapped.request(messages, model_settings, model_request_parameters)

    def _cut(self, cut: Cut) -> None:
        self.cuts.append(cut)
        if self._on_cut is not None:
            self._on_cut(cut)


@dataclass
class ReinCapability(AbstractCapability[AgentDepsT]):
    """rein's steering, stream rules and timebox on a pydantic-ai agent; see the module docstring.

    Pass it to `Agent(..., capabilities=[...])` or to one run. The `guard` keeps its state (steering's
    observed entries, the timebox's turns) across the runs that share it. `cuts` lists every stream-rule
    cut so far; `blocked` every refused tool call as (tool name, reason).
    """

    guard: Guard
    retries: int = DEFAULT_RETRIES
    cuts: list[Cut] = field(default_factory=list)
    blocked: list[tuple[str, str]] = field(default_factory=list)

    @classmethod
    def get_serialization_name(cls) -> str | None:
        return None  # holds a live Guard, not a spec value

    def get_wrapper_model(self, model: Model) -> Model | None:
        return ReinModel(model, self.guard, retries=self.retries, on_cut=self.cuts.append)

    async def before_tool_execute(
        self,
        ctx: RunContext[AgentDepsT],
        *,
        call: ToolCallPart,
        tool_def: ToolDefinition,
        args: dict[str, Any],
    ) -> dict[str, Any]:
        decision = self.guard.check_tool(call.tool_name, args, call.tool_call_id)
        if not decision.allow:
            self.blocked.append((call.tool_name, decision.reason))
            raise SkipToolExecution(decision.reason)
        return args

    async def after_tool_execute(
        self,
        ctx: RunContext[AgentDepsT],
        *,
        call: ToolCallPart,
        tool_def: ToolDefinition,
        args: dict[str, Any],
        result: Any,
    ) -> Any:
        self.guard.tool_finished(call.tool_name, args, output=str(result))
        return result

    async def before_model_request(
        self, ctx: RunContext[AgentDepsT], request_context: ModelRequestContext
    ) -> ModelRequestContext:
        signal = self.guard.budget_check(tokens=ctx.usage.total_tokens)
        if signal is not None and signal.stop:
            raise TimeboxExceeded(signal.message)
        if signal is not None:
            ctx.enqueue(SystemPromptPart(content=signal.message, scope="request"))
        return request_context

    async def after_model_request(
        self, ctx: RunContext[AgentDepsT], *, request_context: ModelRequestContext, response: ModelResponse
    ) -> ModelResponse:
        self.guard.turn_completed()
        return response
