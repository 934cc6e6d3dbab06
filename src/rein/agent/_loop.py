"""The agent loop: turns of stream-then-tools until the model stops.

The loop owns the stream-rule retry: when `on_stream_delta` answers `AbortRetry`, the provider stream
is cancelled at once, the partial reply is dropped (or kept), the injection is appended, and the next
provider call starts, inside the loop, without timers.
"""

from __future__ import annotations

import asyncio
import dataclasses
import inspect
from collections.abc import Mapping, Sequence
from typing import Literal, cast

from rein.agent._repeats import Repeats, notice
from rein.agent._schedule import schedule
from rein.agent._tool import ExecutionMode, Tool, ToolContext, ToolError, ToolOutput
from rein.agent._types import (
    AbortRetry,
    AgentConfig,
    AgentEvent,
    AgentMessage,
    Block,
    CustomMessage,
    Emit,
    StreamDelta,
    ToolCallInfo,
)
from rein.ai import (
    AbortSignal,
    AssistantMessage,
    Context,
    DoneEvent,
    ErrorEvent,
    JsonValue,
    Message,
    StartEvent,
    TextContent,
    TextDeltaEvent,
    TextEndEvent,
    ThinkingDeltaEvent,
    ThinkingEndEvent,
    ToolCall,
    ToolCallDeltaEvent,
    ToolCallEndEvent,
    ToolResultMessage,
    UserMessage,
)
from rein.ai import Tool as ToolSpec

JsonObject = Mapping[str, JsonValue]


def to_llm(messages: Sequence[AgentMessage]) -> tuple[Message, ...]:
    """The model's view: custom messages become user text; everything else passes through."""
    return tuple(UserMessage.of(m.content) if isinstance(m, CustomMessage) else m for m in messages)


class _Run:
    def __init__(self, config: AgentConfig, signal: AbortSignal, emit: Emit) -> None:
        self.config = config
        self.signal = signal
        self._emit = emit
        self.messages: list[AgentMessage] = []
        self.added: list[AgentMessage] = []
        self.tools = {tool.name: tool for tool in config.tools}
        self.specs = tuple(
            ToolSpec(name=t.name, description=t.description, parameters=cast(JsonObject, t.parameters))
            for t in config.tools
        )
        self.repeats = Repeats(config.max_repeated_calls)
        self.refused: dict[str, int] = {}

    def stopped(self) -> bool:
        """Whether the run was aborted (a call, so checks after awaits are not narrowed away)."""
        return self.signal.aborted

    async def emit(self, event: AgentEvent) -> None:
        try:
            result = self._emit(event)
            if inspect.isawaitable(result):
                await result
        except Exception:  # a broken listener must not end the run
            return

    async def add(self, message: AgentMessage, *, started: bool = False) -> None:
        """Append to the history; `message_end` always means "final and in the history"."""
        self.messages.append(message)
        self.added.append(message)
        if not started:
            await self.emit(AgentEvent(type="message_start", message=message))
        await self.emit(AgentEvent(type="message_end", message=message))

    async def _hook(self, delta: StreamDelta) -> AbortRetry | None:
        hook = self.config.on_stream_delta
        if hook is None:
            return None
        try:
            return hook(delta)
        except Exception as error:
            await self.emit(AgentEvent(type="error", error=f"stream hook failed: {error!r}"))
            return None

    async def stream_reply(
        self, hooked: bool, avoid: tuple[str, ...] = ()
    ) -> AssistantMessage | tuple[AbortRetry, AssistantMessage]:
        config = self.config
        if config.prepare_request is not None:
            try:
                replaced = await config.prepare_request(list(self.messages))
            except Exception as error:
                await self.emit(AgentEvent(type="error", error=f"prepare_request failed: {error!r}"))
                replaced = None
            if replaced is not None:
                self.messages[:] = replaced
        history = list(self.messages)
        if config.transform_context is not None:
            history = await config.transform_context(history)
        context = Context(
            system_prompt=config.system_prompt or None, messages=to_llm(history), tools=self.specs
        )
        stream_signal = AbortSignal()
        unregister = self.signal.on_abort(lambda: stream_signal.abort(self.signal.reason or "aborted"))
        options = dataclasses.replace(
            config.options, signal=stream_signal, avoid=config.options.avoid + avoid
        )
        decision: AbortRetry | None = None
        final: AssistantMessage | None = None
        try:
            async with config.provider.stream(config.model, context, options) as events:
                async for event in events:
                    if isinstance(event, StartEvent):
                        await self.emit(AgentEvent(type="message_start", message=event.partial))
                    elif isinstance(event, DeltaEvent | EndEvent):
                        delta = stream_delta(event)
                        if delta.delta:
                            await self.emit(
                                AgentEvent(type="message_update", message=event.partial, delta=delta)
                            )
                        if hooked and decision is None:
                            decision = await self._hook(delta)
                            if decision is not None:
                                stream_signal.abort(decision.reason)
                    elif isinstance(event, DoneEvent | ErrorEvent):
                        final = event.message
        finally:
            unregister()
        assert final is not None, "a provider stream ends with a final event"
        return (decision, final) if decision is not None else final

    async def reply(self) -> AssistantMessage:
        """One turn's reply, joined to the history: stream-hook cuts retried with their injections, and
        a failed reply retried when `recover` gives a new history (it stays in the run's record)."""
        config = self.config
        retries = recoveries = 0
        avoid: tuple[str, ...] = ()  # what this turn's cuts matched: no retry of the turn may write it
        while True:
            result = await self.stream_reply(hooked=retries < config.max_retries_per_turn, avoid=avoid)
            if not isinstance(result, AssistantMessage):
                decision, cut = result
                retries += 1
                avoid = tuple(dict.fromkeys((*avoid, *(text for text in decision.avoid if text))))
                await self.emit(AgentEvent(type="stream_retry", message=cut, reason=decision.reason))
                if self.stopped():
                    await self.add(cut, started=True)
                    return cut
                if decision.keep_partial and cut.content:
                    await self.add(
                        dataclasses.replace(cut, stop_reason="stop", error_message=None), started=True
                    )
                for message in decision.inject:
                    await self.add(message)
                continue
            await self.add(result, started=True)
            if (
                result.stop_reason not in ("error", "length")
                or config.recover is None
                or recoveries >= config.max_recoveries_per_turn
                or self.stopped()
            ):
                return result
            try:
                history = await config.recover(result)
            except Exception as error:
                await self.emit(AgentEvent(type="error", error=f"recover failed: {error!r}"))
                history = None
            if history is None or self.stopped():
                return result
            recoveries += 1
            self.messages[:] = history

    async def run_tools(self, calls: Sequence[ToolCall]) -> list[ToolResultMessage]:
        def tool_of(call: ToolCall) -> Tool | None:
            return self.tools.get(call.name)

        def mode(call: ToolCall) -> ExecutionMode:
            tool = tool_of(call)
            return tool.execution_mode if tool else "parallel"

        def path(call: ToolCall) -> str | None:
            tool = tool_of(call)
            return tool.mutates(call.arguments, self.config.cwd) if tool else None

        self.refused = self.repeats.check(calls)
        return await schedule(calls, mode, path, self.run_tool)

    async def run_tool(self, call: ToolCall) -> ToolResultMessage:
        tool = self.tools.get(call.name)
        info = ToolCallInfo(call=call, tool=tool)
        await self.emit(AgentEvent(type="tool_execution_start", tool_call=call))
        output = await self._execute(info)
        if self.config.after_tool_call is not None:
            try:
                output = await self.config.after_tool_call(info, output) or output
            except Exception as error:
                await self.emit(AgentEvent(type="error", error=f"after_tool_call failed: {error!r}"))
        await self.emit(AgentEvent(type="tool_execution_end", tool_call=call, output=output))
        return ToolResultMessage(
            tool_call_id=call.id,
            tool_name=call.name,
            content=(TextContent(text=output.text),),
            is_error=output.is_error,
        )

    async def _execute(self, info: ToolCallInfo) -> ToolOutput:
        call, tool = info.call, info.tool
        if call.id in self.refused:
            return ToolOutput(
                text=notice(call, self.refused[call.id]), is_error=True, details={"repeated": True}
            )
        if tool is None:
            known = ", ".join(self.tools) or "none"
            return ToolOutput(text=f"unknown tool {call.name!r} (tools: {known})", is_error=True)
        if call.arguments_error:
            return ToolOutput(
                text=f"invalid arguments for {call.name}: {call.arguments_error}", is_error=True
            )
        if self.config.before_tool_call is not None:
            try:
                block = await self.config.before_tool_call(info)
            except Exception as error:
                block = Block(reason=f"blocked: the tool_call hook failed ({error!r})")
            if block is not None:
                return ToolOutput(text=block.reason, is_error=True, details={"blocked": True})
        if self.signal.aborted:
            return ToolOutput(text="not run: the run was aborted", is_error=True)
        return await self._invoke(tool, call)

    async def _invoke(self, tool: Tool, call: ToolCall) -> ToolOutput:
        latest: list[ToolOutput] = []
        flushing: list[asyncio.Task[None]] = []

        async def flush() -> None:
            if latest:
                output = latest.pop()
                await self.emit(AgentEvent(type="tool_execution_update", tool_call=call, output=output))

        def on_update(output: ToolOutput) -> None:
            # Coalesce: updates arriving before the flush runs replace each other; the newest is
            # flushed before the end event.
            if not latest:
                flushing.append(asyncio.ensure_future(flush()))
            latest[:] = [output]

        context = ToolContext(cwd=self.config.cwd, abort=self.signal, call_id=call.id, on_update=on_update)
        try:
            output = await tool.execute(call.arguments, context)
        except ToolError as error:
            output = ToolOutput(text=str(error), is_error=True)
        except Exception as error:
            output = ToolOutput(text=f"{call.name} failed: {error!r}", is_error=True)
        await asyncio.gather(*flushing)
        await flush()
        return output


DeltaEvent = TextDeltaEvent | ThinkingDeltaEvent | ToolCallDeltaEvent
EndEvent = TextEndEvent | ThinkingEndEvent | ToolCallEndEvent


def stream_delta(event: DeltaEvent | EndEvent) -> StreamDelta:
    """The stream hook's view of a delta (the server's stream rules read the same); a block's end is
    a final, empty delta (for end-of-block checks)."""
    final = isinstance(event, EndEvent)
    text = "" if isinstance(event, EndEvent) else event.delta
    if isinstance(event, ToolCallDeltaEvent | ToolCallEndEvent):
        block = event.partial.content[event.index]
        assert isinstance(block, ToolCall)
        return StreamDelta(
            source="tool",
            delta=text,
            index=event.index,
            partial=event.partial,
            final=final,
            tool_call_id=block.id,
            tool_name=block.name,
        )
    source: Literal["text", "thinking"] = (
        "text" if isinstance(event, TextDeltaEvent | TextEndEvent) else "thinking"
    )
    return StreamDelta(source=source, delta=text, index=event.index, partial=event.partial, final=final)


async def run_agent(
    prompts: Sequence[AgentMessage],
    history: Sequence[AgentMessage],
    config: AgentConfig,
    signal: AbortSignal,
    emit: Emit,
) -> list[AgentMessage]:
    """Run until the model stops, the run is aborted, or an error ends a reply.

    Returns the messages the run added (prompts, replies, tool results, injections), in order. Never
    raises for provider, tool or hook failures; `agent_end` is always emitted.
    """
    run = _Run(config, signal, emit)
    run.messages.extend(history)
    await run.emit(AgentEvent(type="agent_start"))
    pending = list(prompts)
    try:
        while True:
            await run.emit(AgentEvent(type="turn_start"))
            if run.stopped():  # a turn_start listener stopped the run (a spent timebox)
                break
            for message in pending:
                await run.add(message)
            pending = []
            reply = await run.reply()
            if reply.stop_reason in ("error", "aborted"):
                await run.emit(AgentEvent(type="turn_end", message=reply))
                break
            results = await run.run_tools(reply.tool_calls) if reply.tool_calls else []
            for tool_result in results:
                await run.add(tool_result)
            await run.emit(AgentEvent(type="turn_end", message=reply, tool_results=tuple(results)))
            if run.stopped() or run.repeats.refused:  # a call repeated past the limit ends the run
                break
            pending = list(config.steering_messages() if config.steering_messages else ())
            if pending or reply.tool_calls:
                continue
            pending = list(config.follow_up_messages() if config.follow_up_messages else ())
            if not pending:
                break
    finally:
        await run.emit(AgentEvent(type="agent_end", messages=tuple(run.added)))
    return run.added
