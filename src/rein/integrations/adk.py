"""rein in Google ADK (`pip install 'rein[adk]'`): steering, stream rules and the timebox as an
`LlmAgent`'s own callbacks.

    guard = Guard(".", timebox="turns:20")
    agent = LlmAgent(name="coder", model="gemini-2.5-flash", tools=[bash], **rein_callbacks(guard))

What each callback does (ADK 2.x, `google.adk.agents.llm_agent`):

- `before_tool_callback`: steering. A blocked call returns `{"error": reason}`; ADK skips the tool and
  sends that dict to the model as the function response. `after_tool_callback` tells steering's
  observers what an allowed call did.
- `after_model_callback`: stream rules. ADK calls it on every response of a model call: each partial
  response while streaming (`RunConfig(streaming_mode=StreamingMode.SSE)`), then the closing one. A
  callback cannot cancel the call's stream, but its answer replaces the response. So a cut is a real
  retry run from the callback: from the matching response on, the rest of the cut call's stream is
  still read but dropped (its partial events stop; nothing of it enters the session), and in place
  of its closing response the callback re-issues the same request to the agent's own model, with the
  rule's injection as the user's last message, and returns that answer (checked again; a reply still
  breaking a rule after `max_retries` is withheld). Partial events sent before the match did reach the
  caller of `Runner.run_async`; ADK never stores partial events. Later model calls of the same
  invocation carry the injection in their system instruction, since ADK rebuilds each request from the
  session, which never holds it.
- `before_model_callback`: the timebox. Each model call after the first completes a turn; a nudge is
  added to the request; a stop answers in the model's place (the model is not called) with rein's
  notice, a final response with no tool calls, which ends the agent's run.

One `Guard` (and so one `ReinAdk`) per run at a time: the stream-rules state is the guard's.
"""

from __future__ import annotations

import json
from typing import Any, TypedDict

from google.adk.agents.callback_context import CallbackContext
from google.adk.agents.llm_agent import (
    AfterModelCallback,
    AfterToolCallback,
    BeforeModelCallback,
    BeforeToolCallback,
    LlmAgent,
)
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.adk.tools.base_tool import BaseTool
from google.adk.tools.tool_context import ToolContext

from rein.integrations._adk_stream import (
    ModelCall,
    add_user_text,
    complete,
    dropped,
    scan,
    scan_whole,
    text_response,
    tokens_of,
    with_user_text,
)
from rein.integrations._guard import Cut, Guard

__all__ = ["AdkCallbacks", "ReinAdk", "rein_callbacks"]


class AdkCallbacks(TypedDict):
    """Keyword arguments for `LlmAgent(...)`."""

    before_model_callback: BeforeModelCallback
    after_model_callback: AfterModelCallback
    before_tool_callback: BeforeToolCallback
    after_tool_callback: AfterToolCallback


class ReinAdk:
    """The four callbacks over one `Guard`. `cuts` records every stream-rule cut, in order."""

    def __init__(self, guard: Guard, *, max_retries: int = 3) -> None:
        self.guard = guard
        self.max_retries = max_retries
        self.cuts: list[Cut] = []
        self.tokens = 0
        """Tokens the model calls used so far (the timebox's `tokens:` budget counts these)."""
        self._calls: dict[tuple[str, str], ModelCall] = {}
        self._injections: dict[str, list[str]] = {}
        self._blocked: set[str] = set()
        self._calls_started = 0

    def callbacks(self) -> AdkCallbacks:
        return AdkCallbacks(
            before_model_callback=self.before_model,
            after_model_callback=self.after_model,
            before_tool_callback=self.before_tool,
            after_tool_callback=self.after_tool,
        )

    async def before_model(self, context: CallbackContext, request: LlmRequest) -> LlmResponse | None:
        if self._calls_started:
            self.guard.turn_completed()
        self._calls_started += 1
        signal = self.guard.budget_check(tokens=self.tokens)
        if signal is not None and signal.stop:
            return text_response(signal.message)
        if signal is not None:
            add_user_text(request, signal.message)
        injections = self._injections.get(context.invocation_id)
        if injections:
            request.append_instructions(injections)
        self._calls[_key(context)] = ModelCall(request=request, watch=self.guard.watch())
        return None

    async def after_model(self, context: CallbackContext, response: LlmResponse) -> LlmResponse | None:
        call = self._calls.get(_key(context))
        if call is None:
            return None
        if call.replaced:
            return dropped(response)
        if not response.partial:
            self.tokens += tokens_of(response)
        call.cut = call.cut or scan(call, response)
        if call.cut is None:
            return None
        if response.partial:
            return dropped(response)
        call.replaced = True
        return await self._retry(context, call, call.cut)

    async def before_tool(
        self, tool: BaseTool, args: dict[str, Any], tool_context: ToolContext
    ) -> dict[str, Any] | None:
        call_id = tool_context.function_call_id or ""
        decision = self.guard.check_tool(tool.name, args, call_id)
        if decision.allow:
            return None
        self._blocked.add(call_id)
        return {"error": decision.reason}

    async def after_tool(
        self, tool: BaseTool, args: dict[str, Any], tool_context: ToolContext, tool_response: dict[str, Any]
    ) -> dict[str, Any] | None:
        call_id = tool_context.function_call_id or ""
        if call_id in self._blocked:  # ADK runs after-tool callbacks for answered calls too
            self._blocked.discard(call_id)
            return None
        code = tool_response.get("exit_code", tool_response.get("returncode"))
        self.guard.tool_finished(
            tool.name,
            args,
            output=_output(tool_response),
            exit_code=code if isinstance(code, int) else None,
            is_error="error" in tool_response,
        )
        return None

    async def _retry(self, context: CallbackContext, call: ModelCall, cut: Cut) -> LlmResponse:
        agent = context.get_invocation_context().agent
        if not isinstance(agent, LlmAgent):
            return text_response(_withheld(cut))
        model = agent.canonical_model
        injected: list[str] = []
        for _ in range(self.max_retries):
            self.cuts.append(cut)
            injected.append(cut.injection)
            self._injections.setdefault(context.invocation_id, []).append(cut.injection)
            answer = await complete(model, with_user_text(call.request, injected))
            self.tokens += tokens_of(answer)
            again = scan_whole(self.guard.watch(), answer)
            if again is None:
                return answer
            cut = again
        return text_response(_withheld(cut))


def rein_callbacks(guard: Guard, *, max_retries: int = 3) -> AdkCallbacks:
    """rein's callbacks for `LlmAgent(..., **rein_callbacks(guard))`."""
    return ReinAdk(guard, max_retries=max_retries).callbacks()


def _key(context: CallbackContext) -> tuple[str, str]:
    return context.invocation_id, context.agent_name


def _output(response: dict[str, Any]) -> str:
    for key in ("output", "stdout", "result"):
        if isinstance(response.get(key), str):
            return str(response[key])
    return json.dumps(response, default=str)


def _withheld(cut: Cut) -> str:
    names = ", ".join(match.rule.name for match in cut.matches)
    return f"[rein] reply withheld: it kept breaking the stream rule(s) {names}"
