"""The agent loop's contract: messages it keeps, events it emits, hooks it calls, and their rules.

A run is turns; a turn streams one assistant reply, then runs its tool calls. Every hook is optional.
Hooks may raise only where this file says so; the loop catches once, at its edge, and a run always
ends with `agent_end`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Literal

from rein.agent._tool import Tool, ToolOutput
from rein.ai import AssistantMessage, Message, Model, Provider, StreamOptions, ToolCall


@dataclass(frozen=True, slots=True, kw_only=True)
class CustomMessage:
    """A message an extension adds to the model's context (for example a stream rule's injection).

    The model sees it as user-role text; `display` says whether a UI shows it.
    """

    custom_type: str
    content: str
    display: bool = False
    details: Mapping[str, object] = field(default_factory=lambda: MappingProxyType({}))


AgentMessage = Message | CustomMessage
"""What the loop keeps: the model's messages plus extensions' custom messages."""


@dataclass(frozen=True, slots=True, kw_only=True)
class StreamDelta:
    """One streamed piece of the reply, as the stream hook sees it."""

    source: Literal["text", "thinking", "tool"]
    delta: str
    index: int
    """Content index of the block within the reply."""
    partial: AssistantMessage
    final: bool = False
    """The block ended: `delta` is empty; a chance for end-of-block checks (`$`, trailing `\\b`)."""
    tool_call_id: str | None = None
    tool_name: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class AbortRetry:
    """The stream hook's decision to cut the reply and retry with `inject` appended.

    The loop cancels the provider stream at once, drops the partial reply (or keeps it when
    `keep_partial`), appends `inject`, and calls the provider again, within the same turn.
    """

    inject: Sequence[AgentMessage]
    keep_partial: bool = False
    reason: str = "stream rule"
    avoid: tuple[str, ...] = ()
    """Text the retry must not write (what the rule matched): the loop passes it, with the turn's
    earlier cuts, as `StreamOptions.avoid`, which a provider that can constrain sampling enforces."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Block:
    """`before_tool_call`'s decision: the call does not run and the model reads `reason` as an error."""

    reason: str


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolCallInfo:
    call: ToolCall
    tool: Tool | None
    """None when the model named a tool that does not exist."""


OnStreamDelta = Callable[[StreamDelta], AbortRetry | None]
"""Called for every text, thinking and tool-call delta, synchronously (it is on the hot path).
Must not raise; a raise is treated as no decision and reported as an `error` event."""
BeforeToolCall = Callable[[ToolCallInfo], Awaitable[Block | None]]
"""May block a call. A raise blocks it too (fail closed), with the exception as the reason."""
AfterToolCall = Callable[[ToolCallInfo, ToolOutput], Awaitable[ToolOutput | None]]
"""May replace a result (return None to keep it). A raise keeps the original result."""
TransformContext = Callable[[list[AgentMessage]], Awaitable[list[AgentMessage]]]
"""Rewrites the messages sent to the model for one request; the kept history is not changed."""
PrepareRequest = Callable[[list[AgentMessage]], Awaitable[list[AgentMessage] | None]]
"""Before every provider request, with the run's history: may return a new history that replaces it
from then on (a compaction). A raise is reported as an `error` event and the history kept."""
Recover = Callable[[AssistantMessage], Awaitable[list[AgentMessage] | None]]
"""After a reply that ended in `error` or `length` joined the history: may return a new history to send
the request again with (a compaction after a context overflow); None ends the turn as before."""
MessageSource = Callable[[], Sequence[AgentMessage]]
"""Drains a queue: steering messages (read after each tool batch) or follow-ups (read when the run
would stop)."""


@dataclass(slots=True, kw_only=True)
class AgentConfig:
    provider: Provider
    model: Model
    system_prompt: str = ""
    tools: Sequence[Tool] = ()
    cwd: str = "."
    options: StreamOptions = field(default_factory=StreamOptions)
    on_stream_delta: OnStreamDelta | None = None
    before_tool_call: BeforeToolCall | None = None
    after_tool_call: AfterToolCall | None = None
    transform_context: TransformContext | None = None
    prepare_request: PrepareRequest | None = None
    recover: Recover | None = None
    steering_messages: MessageSource | None = None
    follow_up_messages: MessageSource | None = None
    max_retries_per_turn: int = 5
    """Stream-hook retries allowed in one turn before the reply is kept as is (a rule loop guard)."""
    max_recoveries_per_turn: int = 2
    """Requests `recover` may send again in one turn (an overflow that compaction cannot cure ends)."""
    max_repeated_calls: int = 4
    """The same tool call (name and arguments) this many times in a row runs; the next is answered
    with a notice instead and the run ends after that turn (`_repeats`; 0: no limit)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class AgentEvent:
    """One loop event. `type` is one of the lifecycle pairs below; the other fields depend on it:

    agent_start / agent_end (messages: everything the run added)
    turn_start / turn_end (message: the reply; tool_results)
    message_start / message_update / message_end (message; delta for updates). `message_end` means
      the message is final and joined the history; a reply cut by the stream hook ends with
      `stream_retry` instead and never joins it (unless kept)
    tool_execution_start / tool_execution_update / tool_execution_end (tool_call, output)
    stream_retry (reason, message: the cut reply) when the stream hook cut a reply
    error (error: a hook or tool raised unexpectedly; the run goes on)
    """

    type: Literal[
        "agent_start",
        "agent_end",
        "turn_start",
        "turn_end",
        "message_start",
        "message_update",
        "message_end",
        "tool_execution_start",
        "tool_execution_update",
        "tool_execution_end",
        "stream_retry",
        "error",
    ]
    message: AgentMessage | None = None
    messages: tuple[AgentMessage, ...] = ()
    delta: StreamDelta | None = None
    tool_call: ToolCall | None = None
    output: ToolOutput | None = None
    tool_results: tuple[Message, ...] = ()
    reason: str = ""
    error: str = ""


Emit = Callable[[AgentEvent], Awaitable[None] | None]
"""Receives every event in order; the loop awaits it when it returns an awaitable, so a listener can
act before the loop goes on (abort at turn start). A raise is swallowed: listeners cannot end a run."""
