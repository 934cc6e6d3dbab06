"""The events extensions handle: one class per event, and `EVENTS`, the table that names them.

A handler registered with `ExtensionAPI.on(name, handler)` receives `(event, ctx)` where `event` is the
class its name has in `EVENTS`; `on` is typed per name, so a type checker sees a handler that reads a
field its event does not have, or returns what its event does not take. How answers combine is in
`EVENTS` (the `returns` column), and docs/extensions.md shows the table (`python -m
tests.extension_events_doc` writes it from this module).

Decision events (`tool_call`, `tool_result`, `context`, `before_agent_start`, `input`) are built by the
runner and their handlers' answers are used. Every other event is a `Notice`: a name and a payload,
notification only (the return value is ignored; a raise is reported, not fatal). rein's notices carry
the payload their class names; a name no table row has (an extension's own, sent with `emit`) arrives
as a plain `Notice`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import ClassVar

from rein.agent import AgentEvent, AgentMessage, ToolCallInfo, ToolOutput


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolCallEvent:
    """The model asked for a tool call; before it runs."""

    info: ToolCallInfo


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolResultEvent:
    """A tool call ran (or was blocked); before the model reads its result."""

    info: ToolCallInfo
    output: ToolOutput


@dataclass(frozen=True, slots=True, kw_only=True)
class ContextEvent:
    """Before each request to the model, with the messages it is about to get."""

    messages: list[AgentMessage]


@dataclass(frozen=True, slots=True, kw_only=True)
class BeforeAgentStartEvent:
    """A prompt is about to start a run, with the run's system prompt so far."""

    prompt: str
    system_prompt: str


@dataclass(frozen=True, slots=True, kw_only=True)
class InputEvent:
    """A line the person typed that is not a `/command`, before it becomes a prompt."""

    text: str


@dataclass(frozen=True, slots=True)
class Handled:
    """An `input` handler's answer: the input was consumed (a command, a timebox keyword)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Notice:
    """An extension's own event, sent with `ExtensionAPI.emit`: its name and payload."""

    payload_type: ClassVar[type | tuple[type, ...]] = object
    """What `emit` accepts as this notice's payload (rein's own notices narrow it)."""

    name: str
    payload: object = None


@dataclass(frozen=True, slots=True, kw_only=True)
class SessionStartEvent(Notice):
    """A session opened (or, after `/new` and `/resume`, the new one): restore state from its entries."""

    payload: None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class SessionShutdownEvent(Notice):
    """The session is closing (or being left for another by `/new` and `/resume`)."""

    payload: None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class SessionTreeEvent(Notice):
    """The session moved to another place in its tree (`/tree`, the web page's "Continue from here"):
    restore state for that branch. The payload is the new leaf's entry id (None: before the first entry)."""

    payload: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class SessionSwitchedEvent(Notice):
    """After `/new` or `/resume` switched the session file (after its `session_start`). The payload is
    the new store, a `rein.session.Session`."""


@dataclass(frozen=True, slots=True, kw_only=True)
class SessionCompactEvent(Notice):
    """A compaction summarized the branch's old turns. The payload is its `rein.session.Compacted`."""


@dataclass(frozen=True, slots=True, kw_only=True)
class AgentNotice(Notice):
    """One event of the agent loop; the payload is the loop's `AgentEvent` (its fields by its type)."""

    payload: AgentEvent


@dataclass(frozen=True, slots=True, kw_only=True)
class AgentStartEvent(AgentNotice):
    """A run of the agent started."""


@dataclass(frozen=True, slots=True, kw_only=True)
class AgentEndEvent(AgentNotice):
    """A run ended; `payload.messages` holds every message it added."""


@dataclass(frozen=True, slots=True, kw_only=True)
class TurnStartEvent(AgentNotice):
    """A turn (one request to the model, then its tool calls) starts."""


@dataclass(frozen=True, slots=True, kw_only=True)
class TurnEndEvent(AgentNotice):
    """A turn ended; `payload.message` is the reply and `payload.tool_results` its tools' results."""


@dataclass(frozen=True, slots=True, kw_only=True)
class MessageStartEvent(AgentNotice):
    """A message starts: a prompt or tool result joining the history, or a reply beginning to stream
    (`payload.message`)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class MessageUpdateEvent(AgentNotice):
    """A reply streamed more (`payload.delta`; `payload.message` is the reply so far)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class MessageEndEvent(AgentNotice):
    """A message is final and joined the history (`payload.message`)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolExecutionStartEvent(AgentNotice):
    """A tool call starts running (`payload.tool_call`)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolExecutionUpdateEvent(AgentNotice):
    """A running tool reported progress (`payload.output`)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolExecutionEndEvent(AgentNotice):
    """A tool call finished (`payload.tool_call`, `payload.output`)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class StreamRetryEvent(AgentNotice):
    """A stream hook cut a reply, which is asked for again (`payload.reason`, the cut `payload.message`)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class AgentErrorEvent(AgentNotice):
    """A hook or tool raised unexpectedly (`payload.error`); the run goes on."""


@dataclass(frozen=True, slots=True, kw_only=True)
class TtsrTriggeredEvent(Notice):
    """A stream rule cut the reply (the built-in `ttsr` extension). The payload is the tuple of the rules
    (`rein.ttsr.Rule`) that fired."""

    payload_type = tuple
    payload: tuple[object, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class ApprovalModeEvent(Notice):
    """The approval mode in force, at session start and on each `/approve` switch (the built-in
    `approval` extension). The payload is the mode: "ask", "auto" or "deny"."""

    payload_type = str
    payload: str


NOTIFICATION = "nothing: notification only"


@dataclass(frozen=True, slots=True, kw_only=True)
class EventKind:
    """One row of the event table: the name `on` takes, the class handlers receive, and what a handler
    may return (and how the answers of several handlers combine)."""

    name: str
    event: type
    returns: str = NOTIFICATION
    emitted_by_rein: bool = True
    """rein raises it itself, so an extension may not `emit` it (False: a built-in extension's notice)."""


EVENTS: tuple[EventKind, ...] = (
    EventKind(name="session_start", event=SessionStartEvent),
    EventKind(name="session_shutdown", event=SessionShutdownEvent),
    EventKind(name="session_tree", event=SessionTreeEvent),
    EventKind(name="session_switched", event=SessionSwitchedEvent),
    EventKind(name="session_compact", event=SessionCompactEvent),
    EventKind(
        name="input",
        event=InputEvent,
        returns="`Handled()` to consume the input (the first wins), a `str` to replace it, or None",
    ),
    EventKind(
        name="before_agent_start",
        event=BeforeAgentStartEvent,
        returns="a `str` appended to this run's system prompt (each handler's, in order), or None",
    ),
    EventKind(name="agent_start", event=AgentStartEvent),
    EventKind(name="agent_end", event=AgentEndEvent),
    EventKind(name="turn_start", event=TurnStartEvent),
    EventKind(name="turn_end", event=TurnEndEvent),
    EventKind(
        name="context",
        event=ContextEvent,
        returns="a `list[AgentMessage]` to send instead (chained: the next handler sees it), or None",
    ),
    EventKind(name="message_start", event=MessageStartEvent),
    EventKind(name="message_update", event=MessageUpdateEvent),
    EventKind(name="message_end", event=MessageEndEvent),
    EventKind(
        name="tool_call",
        event=ToolCallEvent,
        returns="a `Block` to stop the call (the first wins; a handler that raises blocks too), or None",
    ),
    EventKind(name="tool_execution_start", event=ToolExecutionStartEvent),
    EventKind(name="tool_execution_update", event=ToolExecutionUpdateEvent),
    EventKind(name="tool_execution_end", event=ToolExecutionEndEvent),
    EventKind(
        name="tool_result",
        event=ToolResultEvent,
        returns="a `ToolOutput` to replace the result (chained: the next handler sees it), or None",
    ),
    EventKind(name="stream_retry", event=StreamRetryEvent),
    EventKind(name="error", event=AgentErrorEvent),
    EventKind(name="ttsr_triggered", event=TtsrTriggeredEvent, emitted_by_rein=False),
    EventKind(name="approval_mode", event=ApprovalModeEvent, emitted_by_rein=False),
)
"""Every event rein raises, in the order of a session's life; `ExtensionAPI.on` has one overload each."""

NOTICES: Mapping[str, type[Notice]] = {
    kind.name: kind.event for kind in EVENTS if issubclass(kind.event, Notice)
}
"""The class of each of rein's notices; any other name is a plain `Notice`."""


def notice(name: str, payload: object) -> Notice:
    """The event a notice's handlers receive."""
    return NOTICES.get(name, Notice)(name=name, payload=payload)


def check_emit(name: str, payload: object) -> None:
    """Refuse what an extension may not `emit`: an event rein raises itself (a `tool_call` handler
    must only ever see a `ToolCallEvent`), or a built-in notice with a payload of the wrong type."""
    kind = next((kind for kind in EVENTS if kind.name == name), None)
    if kind is not None and kind.emitted_by_rein:
        raise ValueError(f"{name} is rein's own event: an extension cannot emit it")
    expected = NOTICES.get(name, Notice).payload_type
    if not isinstance(payload, expected):
        raise TypeError(f"the payload of {name} must be {expected}, not {type(payload).__name__}")
