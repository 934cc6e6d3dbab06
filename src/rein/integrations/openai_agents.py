"""rein in the OpenAI Agents SDK (`pip install 'rein[openai-agents]'`):

    guard = Guard(".", timebox="turns:30")
    agent = guard_agent(Agent(name="coder", tools=[bash], model=OpenAIChatCompletionsModel(...)), guard)
    result = await Runner.run(agent, "fix the failing test")    # or Runner.run_streamed

- Steering (`guard_tools`): every function tool gets a tool input guardrail; a call rein blocks never
  runs, and the model reads rein's reason as the tool's result (`ToolGuardrailFunctionOutput.
  reject_content`). A tool output guardrail tells steering's observers what each call returned. The
  SDK's hosted and built-in tools (`ShellTool`, `LocalShellTool`, `ApplyPatchTool`, `ComputerTool`)
  take no tool guardrails, so rein does not see them: give the agent function tools instead.
- Stream rules and the timebox (`ReinModel`): a wrapping `Model` that cancels a model call on a cut
  and re-issues it with the rule injected, and stops the run (`TimeboxExceeded`) when the budget is
  spent. See `ReinModel`.

One `Guard` per run: it holds the run's steering entries, injected rules and turn count.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from agents import (
    Agent,
    FunctionTool,
    Model,
    Tool,
    ToolGuardrailFunctionOutput,
    ToolInputGuardrail,
    ToolInputGuardrailData,
    ToolOutputGuardrail,
    ToolOutputGuardrailData,
)

from rein.integrations._guard import Cut, Guard
from rein.integrations._openai_agents_model import ReinModel, TimeboxExceeded

__all__ = [
    "ReinModel",
    "TimeboxExceeded",
    "guard_agent",
    "guard_tools",
    "observe_guardrail",
    "steering_guardrail",
]

ContextT = TypeVar("ContextT")


def steering_guardrail(guard: Guard) -> ToolInputGuardrail[Any]:
    """A tool input guardrail: rein's steering decides each call; a block rejects the call with rein's
    reason as the content the model reads (the run goes on)."""

    def rein_steering(data: ToolInputGuardrailData) -> ToolGuardrailFunctionOutput:
        tool = data.context
        decision = guard.check_tool(tool.tool_name, tool.tool_arguments, tool.tool_call_id)
        if decision.allow:
            return ToolGuardrailFunctionOutput.allow()
        return ToolGuardrailFunctionOutput.reject_content(decision.reason, output_info=decision)

    return ToolInputGuardrail(guardrail_function=rein_steering, name="rein_steering")


def observe_guardrail(guard: Guard) -> ToolOutputGuardrail[Any]:
    """A tool output guardrail that never rejects: it tells steering's observers what a call returned
    (so a rule like "tests ran before commit" sees the tests run)."""

    def rein_observe(data: ToolOutputGuardrailData) -> ToolGuardrailFunctionOutput:
        tool = data.context
        guard.tool_finished(tool.tool_name, tool.tool_arguments, output=str(data.output))
        return ToolGuardrailFunctionOutput.allow()

    return ToolOutputGuardrail(guardrail_function=rein_observe, name="rein_observe")


def guard_tools(tools: Sequence[Tool], guard: Guard) -> list[Tool]:
    """Copies of `tools` whose function tools run rein's guardrails before their own; other tools are
    returned as they are (the SDK gives them no tool guardrails)."""
    steer, observe = steering_guardrail(guard), observe_guardrail(guard)
    out: list[Tool] = []
    for tool in tools:
        if not isinstance(tool, FunctionTool):
            out.append(tool)
            continue
        inputs, outputs = tool.tool_input_guardrails or [], tool.tool_output_guardrails or []
        out.append(
            dataclasses.replace(
                tool, tool_input_guardrails=[steer, *inputs], tool_output_guardrails=[*outputs, observe]
            )
        )
    return out


def guard_agent(
    agent: Agent[ContextT],
    guard: Guard,
    *,
    max_retries: int = 2,
    on_cut: Callable[[Cut], None] | None = None,
) -> Agent[ContextT]:
    """A clone of `agent` with its function tools guarded and its model wrapped in `ReinModel`. The
    agent's model must be a `Model` instance (a model name is resolved by the run's provider, which
    rein does not see). Handoff agents are left as they are: guard each one."""
    if not isinstance(agent.model, Model):
        raise ValueError(
            f"agent {agent.name!r}: rein needs a Model instance (e.g. OpenAIChatCompletionsModel), "
            f"not {agent.model!r}"
        )
    model = ReinModel(agent.model, guard, max_retries=max_retries, on_cut=on_cut)
    return agent.clone(model=model, tools=guard_tools(agent.tools, guard))
