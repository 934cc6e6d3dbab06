"""Dispatch events to extension handlers and combine their answers (the rules are in `_api`)."""

from __future__ import annotations

import inspect
from collections.abc import Callable

from rein.agent import AbortRetry, AgentMessage, Block, StreamDelta, ToolCallInfo, ToolOutput
from rein.extensions._api import ExtensionContext, Handler, Registry
from rein.extensions._events import (
    BeforeAgentStartEvent,
    ContextEvent,
    Handled,
    InputEvent,
    ToolCallEvent,
    ToolResultEvent,
    notice,
)

OnError = Callable[[str, str, BaseException], None]
"""Told about every handler that raised: (extension name, event, exception)."""


async def _call(handler: Handler, event: object, context: ExtensionContext) -> object:
    result = handler(event, context)
    return await result if inspect.isawaitable(result) else result


class ExtensionRunner:
    def __init__(
        self, registry: Registry, context: Callable[[], ExtensionContext], on_error: OnError
    ) -> None:
        self.registry = registry
        self._context = context
        self._on_error = on_error

    def has(self, event: str) -> bool:
        return bool(self.registry.handlers.get(event))

    async def _each(self, event: str, payload: object) -> list[tuple[str, object]]:
        answers: list[tuple[str, object]] = []
        for name, handler in self.registry.handlers.get(event, []):
            try:
                answers.append((name, await _call(handler, payload, self._context())))
            except Exception as error:
                self._on_error(name, event, error)
        return answers

    def stream_delta(self, delta: StreamDelta) -> AbortRetry | None:
        for name, hook in self.registry.stream_hooks:
            try:
                decision = hook(delta)
            except Exception as error:
                self._on_error(name, "stream_delta", error)
                continue
            if decision is not None:
                return decision
        return None

    async def notify(self, event: str, payload: object = None) -> None:
        """Tell `event`'s handlers, as the class `_events.NOTICES` names for it (else a `Notice`)."""
        await self._each(event, notice(event, payload))

    async def tool_call(self, info: ToolCallInfo) -> Block | None:
        for name, handler in self.registry.handlers.get("tool_call", []):
            try:
                answer = await _call(handler, ToolCallEvent(info=info), self._context())
            except Exception as error:
                self._on_error(name, "tool_call", error)
                return Block(reason=f"blocked: extension {name} failed on this call ({error})")
            if isinstance(answer, Block):
                return answer
        return None

    async def tool_result(self, info: ToolCallInfo, output: ToolOutput) -> ToolOutput:
        for name, handler in self.registry.handlers.get("tool_result", []):
            try:
                answer = await _call(handler, ToolResultEvent(info=info, output=output), self._context())
            except Exception as error:
                self._on_error(name, "tool_result", error)
                continue
            if isinstance(answer, ToolOutput):
                output = answer
        return output

    async def context(self, messages: list[AgentMessage]) -> list[AgentMessage]:
        for name, handler in self.registry.handlers.get("context", []):
            try:
                answer = await _call(handler, ContextEvent(messages=messages), self._context())
            except Exception as error:
                self._on_error(name, "context", error)
                continue
            if isinstance(answer, list):
                messages = answer
        return messages

    async def before_agent_start(self, prompt: str, system_prompt: str) -> str:
        """The system prompt for this run, with every handler's addition appended."""
        for _, answer in await self._each(
            "before_agent_start", BeforeAgentStartEvent(prompt=prompt, system_prompt=system_prompt)
        ):
            if isinstance(answer, str) and answer:
                system_prompt = f"{system_prompt}\n\n{answer}" if system_prompt else answer
        return system_prompt

    async def input(self, text: str) -> str | Handled:
        for name, handler in self.registry.handlers.get("input", []):
            try:
                answer = await _call(handler, InputEvent(text=text), self._context())
            except Exception as error:
                self._on_error(name, "input", error)
                continue
            if isinstance(answer, Handled):
                return answer
            if isinstance(answer, str):
                text = answer
        return text
