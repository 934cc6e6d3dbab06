"""rein.agent: the loop (turns of stream-then-tools), its hooks and events, and the tool contract.

added = await run_agent([UserMessage.of("fix the bug")], history, AgentConfig(provider=...,
                        model=..., tools=builtin_tools()), AbortSignal(), emit=print)
"""

from rein.agent._loop import DeltaEvent, EndEvent, run_agent, stream_delta, to_llm
from rein.agent._schedule import schedule, segments
from rein.agent._tool import ExecutionMode, Tool, ToolContext, ToolError, ToolOutput
from rein.agent._types import (
    AbortRetry,
    AfterToolCall,
    AgentConfig,
    AgentEvent,
    AgentMessage,
    BeforeToolCall,
    Block,
    CustomMessage,
    Emit,
    MessageSource,
    OnStreamDelta,
    StreamDelta,
    ToolCallInfo,
    TransformContext,
)

__all__ = [
    "AbortRetry",
    "AfterToolCall",
    "AgentConfig",
    "AgentEvent",
    "AgentMessage",
    "BeforeToolCall",
    "Block",
    "CustomMessage",
    "DeltaEvent",
    "Emit",
    "EndEvent",
    "ExecutionMode",
    "MessageSource",
    "OnStreamDelta",
    "StreamDelta",
    "Tool",
    "ToolCallInfo",
    "ToolContext",
    "ToolError",
    "ToolOutput",
    "TransformContext",
    "run_agent",
    "schedule",
    "segments",
    "stream_delta",
    "to_llm",
]
