"""rein as LangChain v1 agent middleware (`pip install 'rein[langchain]'`):

    from langchain.agents import create_agent
    from rein.integrations import Guard
    from rein.integrations.langchain import ReinMiddleware

    agent = create_agent(model, tools, middleware=[ReinMiddleware(Guard(cwd="."))])

- Steering (`wrap_tool_call`): a call steering blocks never runs; the model reads rein's reason as an
  error `ToolMessage`. Calls that run are reported to steering's observers.
- Stream rules (`wrap_model_call`): the model call streams with a callback that feeds every token and
  tool-call fragment to the rules; a cut stops the stream at once (the HTTP response is closed) and the
  call is re-issued with the rule's injection as a user message. The partial reply never reaches the
  agent state, but a caller streaming tokens (`stream_mode="messages"`) has already seen them. With
  `stream=False`, or a model that cannot stream, the finished reply is checked and re-issued instead.
- Timebox (`before_model`): every model call is a turn and the tokens are the usage the model reports;
  the nudge arrives as a user message, and a spent budget ends the run (`jump_to="end"`) with rein's
  notice as the last message. The budget counts from the `Guard`'s creation: one `Guard` per run.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from langchain.agents.middleware import (
    AgentMiddleware,
    AgentState,
    ModelRequest,
    ModelResponse,
    ToolCallRequest,
    hook_config,
)
from langchain_core.callbacks import BaseCallbackHandler, BaseCallbackManager
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langgraph.runtime import Runtime
from langgraph.types import Command

from rein.integrations._guard import Cut, Guard
from rein.integrations._langchain_watch import CutSignal, StreamingTokenWatch, TokenWatch

__all__ = ["ReinMiddleware"]

ToolResult = ToolMessage | Command[Any]
State = AgentState[Any]


class ReinMiddleware(AgentMiddleware):
    """rein's steering, stream rules and timebox for `create_agent(..., middleware=[...])`. See the
    module docstring. `max_cuts`: re-issues of one model call; after that the reply is kept as is."""

    def __init__(self, guard: Guard, *, stream: bool = True, max_cuts: int = 3) -> None:
        super().__init__()
        self.guard = guard
        self._stream = stream
        self._max_cuts = max_cuts
        self.cuts: list[Cut] = []
        """Every cut made, in order (for logs and tests)."""

    # Steering ----------------------------------------------------------------------------------

    def wrap_tool_call(
        self, request: ToolCallRequest, handler: Callable[[ToolCallRequest], ToolResult]
    ) -> ToolResult:
        refusal = self._refusal(request)
        if refusal is not None:
            return refusal
        result = handler(request)
        self._finished(request, result)
        return result

    async def awrap_tool_call(
        self, request: ToolCallRequest, handler: Callable[[ToolCallRequest], Awaitable[ToolResult]]
    ) -> ToolResult:
        refusal = self._refusal(request)
        if refusal is not None:
            return refusal
        result = await handler(request)
        self._finished(request, result)
        return result

    def _refusal(self, request: ToolCallRequest) -> ToolMessage | None:
        call = request.tool_call
        decision = self.guard.check_tool(call["name"], call["args"], call["id"] or "")
        if decision.allow:
            return None
        return ToolMessage(
            content=decision.reason, tool_call_id=call["id"] or "", name=call["name"], status="error"
        )

    def _finished(self, request: ToolCallRequest, result: ToolResult) -> None:
        if isinstance(result, ToolMessage):
            call = request.tool_call
            self.guard.tool_finished(
                call["name"], call["args"], output=result.text, is_error=result.status == "error"
            )

    # Stream rules ------------------------------------------------------------------------------

    def wrap_model_call(
        self, request: ModelRequest[Any], handler: Callable[[ModelRequest[Any]], ModelResponse[Any]]
    ) -> ModelResponse[Any]:
        for _ in range(self._max_cuts):
            armed, tokens = self._arm(request)
            cut: Cut | None
            try:
                response = handler(armed)
            except CutSignal as signal:
                cut = signal.cut
            else:
                cut = tokens.finish(response.result)
                if cut is None:
                    return response
            request = self._retry(request, cut)
        return handler(request)

    async def awrap_model_call(
        self,
        request: ModelRequest[Any],
        handler: Callable[[ModelRequest[Any]], Awaitable[ModelResponse[Any]]],
    ) -> ModelResponse[Any]:
        for _ in range(self._max_cuts):
            armed, tokens = self._arm(request)
            cut: Cut | None
            try:
                response = await handler(armed)
            except CutSignal as signal:
                cut = signal.cut
            else:
                cut = tokens.finish(response.result)
                if cut is None:
                    return response
            request = self._retry(request, cut)
        return await handler(request)

    def _arm(self, request: ModelRequest[Any]) -> tuple[ModelRequest[Any], TokenWatch]:
        """The request with a token watch attached to (a copy of) its model."""
        watch = self.guard.watch()
        tokens = StreamingTokenWatch(watch) if self._stream else TokenWatch(watch)
        model = request.model.model_copy(update={"callbacks": _with_handler(request.model.callbacks, tokens)})
        return request.override(model=model), tokens

    def _retry(self, request: ModelRequest[Any], cut: Cut) -> ModelRequest[Any]:
        self.cuts.append(cut)
        return request.override(messages=[*request.messages, HumanMessage(content=cut.injection)])

    # Timebox -----------------------------------------------------------------------------------

    @hook_config(can_jump_to=["end"])
    def before_model(self, state: State, runtime: Runtime[Any]) -> dict[str, Any] | None:
        return self._budget(state)

    @hook_config(can_jump_to=["end"])
    async def abefore_model(self, state: State, runtime: Runtime[Any]) -> dict[str, Any] | None:
        return self._budget(state)

    def after_model(self, state: State, runtime: Runtime[Any]) -> dict[str, Any] | None:
        self.guard.turn_completed()
        return None

    async def aafter_model(self, state: State, runtime: Runtime[Any]) -> dict[str, Any] | None:
        self.guard.turn_completed()
        return None

    def _budget(self, state: State) -> dict[str, Any] | None:
        tokens = sum(
            m.usage_metadata["total_tokens"]
            for m in state["messages"]
            if isinstance(m, AIMessage) and m.usage_metadata
        )
        signal = self.guard.budget_check(tokens=tokens)
        if signal is None:
            return None
        if signal.stop:
            return {"jump_to": "end", "messages": [AIMessage(content=signal.message)]}
        return {"messages": [HumanMessage(content=signal.message)]}


def _with_handler(
    callbacks: list[BaseCallbackHandler] | BaseCallbackManager | None, handler: BaseCallbackHandler
) -> list[BaseCallbackHandler] | BaseCallbackManager:
    if isinstance(callbacks, BaseCallbackManager):
        manager = callbacks.copy()
        manager.add_handler(handler, inherit=False)
        return manager
    return [*(callbacks or []), handler]
