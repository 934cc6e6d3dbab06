"""The extension API: what an extension module's `extension(rein)` function receives.

    def extension(rein: ExtensionAPI) -> None:
        rein.on("tool_call", block_rm)
        rein.register_command("hello", "Say hello", lambda args, ctx: ctx.ui.notify("hi", "info"))

Event handlers receive `(event, ctx)` and may be sync or async. `on` has one overload per event name,
typed with the event's class and what its handlers may return; the events, and how the answers of
several handlers combine, are in `_events.EVENTS` (and the table of docs/extensions.md). A name no
overload has is an extension's own notice (`emit`): its handlers receive a plain `Notice`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal, Protocol, TypeVar, overload

from rein.agent import AbortRetry, AgentMessage, Block, StreamDelta, Tool, ToolOutput
from rein.extensions._events import (
    AgentEndEvent,
    AgentErrorEvent,
    AgentStartEvent,
    ApprovalModeEvent,
    BeforeAgentStartEvent,
    ContextEvent,
    Handled,
    InputEvent,
    MessageEndEvent,
    MessageStartEvent,
    MessageUpdateEvent,
    Notice,
    SessionCompactEvent,
    SessionShutdownEvent,
    SessionStartEvent,
    SessionSwitchedEvent,
    SessionTreeEvent,
    StreamRetryEvent,
    ToolCallEvent,
    ToolExecutionEndEvent,
    ToolExecutionStartEvent,
    ToolExecutionUpdateEvent,
    ToolResultEvent,
    TtsrTriggeredEvent,
    TurnEndEvent,
    TurnStartEvent,
    check_emit,
)

Level = Literal["info", "warning", "error"]


class UI(Protocol):
    """What an extension may show or ask. Hosts without a screen (print mode, tests) record or drop
    what is shown, and answer every question with None."""

    def notify(self, message: str, level: Level = "info") -> None: ...

    def set_status(self, key: str, text: str | None) -> None: ...

    async def select(self, title: str, options: Sequence[str]) -> str | None:
        """Ask the person to pick one of `options`; returns the option as given. May not raise;
        None when dismissed or when no person is there."""
        ...

    async def input(self, title: str, placeholder: str = "") -> str | None:
        """Ask the person for a line of text. May not raise; None when dismissed or when no person
        is there."""
        ...


class SessionView(Protocol):
    """A read-only view of the session for extensions."""

    @property
    def cwd(self) -> str: ...

    @property
    def messages(self) -> Sequence[AgentMessage]:
        """The model's context on the current branch: after a compaction, its summary and what it kept."""
        ...

    @property
    def branch_messages(self) -> Sequence[AgentMessage]:
        """Every message on the current branch, compactions ignored: for counting turns and tokens."""
        ...

    def custom_entries(self, custom_type: str) -> Sequence[Mapping[str, object]]:
        """Data of the `custom` entries of one type on the current branch, oldest first."""
        ...

    def user_message_count(self) -> int:
        """The user's messages on the current branch, compactions ignored."""
        ...


@dataclass(frozen=True, slots=True, kw_only=True)
class ExtensionContext:
    """Passed to every handler and command: the UI, the session view, and the run's abort."""

    ui: UI
    session: SessionView
    abort: Callable[[], None]
    system_prompt: str = ""


E = TypeVar("E")
R = TypeVar("R")
EventHandler = Callable[[E, ExtensionContext], R | Awaitable[R]]
"""A handler of events of class `E` that answers `R`, sync or async."""
Handler = Callable[..., object]
"""A handler as the registry keeps it: `on` checked its event class and its answer."""
StreamHook = Callable[[StreamDelta], AbortRetry | None]
"""Sees every streamed delta, synchronously (the hot path). The first `AbortRetry` cuts the reply."""
CommandHandler = Callable[[str, ExtensionContext], Awaitable[None] | None]


@dataclass(frozen=True, slots=True, kw_only=True)
class Command:
    name: str
    description: str
    handler: CommandHandler
    completions: Sequence[str] = ()


@dataclass(slots=True)
class Registry:
    """What extensions registered: handlers by event, commands, tools, and outgoing entries/messages."""

    handlers: dict[str, list[tuple[str, Handler]]] = field(default_factory=dict)
    commands: dict[str, Command] = field(default_factory=dict)
    tools: list[Tool] = field(default_factory=list)
    stream_hooks: list[tuple[str, StreamHook]] = field(default_factory=list)


class ExtensionAPI:
    """One extension's handle on rein. Registration happens while `extension(rein)` runs or later."""

    def __init__(self, name: str, registry: Registry, host: Host) -> None:
        self.name = name
        self._registry = registry
        self._host = host

    @overload
    def on(self, event: Literal["session_start"], handler: EventHandler[SessionStartEvent, None]) -> None: ...

    @overload
    def on(
        self, event: Literal["session_shutdown"], handler: EventHandler[SessionShutdownEvent, None]
    ) -> None: ...

    @overload
    def on(self, event: Literal["session_tree"], handler: EventHandler[SessionTreeEvent, None]) -> None: ...

    @overload
    def on(
        self, event: Literal["session_switched"], handler: EventHandler[SessionSwitchedEvent, None]
    ) -> None: ...

    @overload
    def on(
        self, event: Literal["session_compact"], handler: EventHandler[SessionCompactEvent, None]
    ) -> None: ...

    @overload
    def on(
        self, event: Literal["input"], handler: EventHandler[InputEvent, str | Handled | None]
    ) -> None: ...

    @overload
    def on(
        self, event: Literal["before_agent_start"], handler: EventHandler[BeforeAgentStartEvent, str | None]
    ) -> None: ...

    @overload
    def on(self, event: Literal["agent_start"], handler: EventHandler[AgentStartEvent, None]) -> None: ...

    @overload
    def on(self, event: Literal["agent_end"], handler: EventHandler[AgentEndEvent, None]) -> None: ...

    @overload
    def on(self, event: Literal["turn_start"], handler: EventHandler[TurnStartEvent, None]) -> None: ...

    @overload
    def on(self, event: Literal["turn_end"], handler: EventHandler[TurnEndEvent, None]) -> None: ...

    @overload
    def on(
        self, event: Literal["context"], handler: EventHandler[ContextEvent, list[AgentMessage] | None]
    ) -> None: ...

    @overload
    def on(self, event: Literal["message_start"], handler: EventHandler[MessageStartEvent, None]) -> None: ...

    @overload
    def on(
        self, event: Literal["message_update"], handler: EventHandler[MessageUpdateEvent, None]
    ) -> None: ...

    @overload
    def on(self, event: Literal["message_end"], handler: EventHandler[MessageEndEvent, None]) -> None: ...

    @overload
    def on(self, event: Literal["tool_call"], handler: EventHandler[ToolCallEvent, Block | None]) -> None: ...

    @overload
    def on(
        self, event: Literal["tool_execution_start"], handler: EventHandler[ToolExecutionStartEvent, None]
    ) -> None: ...

    @overload
    def on(
        self, event: Literal["tool_execution_update"], handler: EventHandler[ToolExecutionUpdateEvent, None]
    ) -> None: ...

    @overload
    def on(
        self, event: Literal["tool_execution_end"], handler: EventHandler[ToolExecutionEndEvent, None]
    ) -> None: ...

    @overload
    def on(
        self, event: Literal["tool_result"], handler: EventHandler[ToolResultEvent, ToolOutput | None]
    ) -> None: ...

    @overload
    def on(self, event: Literal["stream_retry"], handler: EventHandler[StreamRetryEvent, None]) -> None: ...

    @overload
    def on(self, event: Literal["error"], handler: EventHandler[AgentErrorEvent, None]) -> None: ...

    @overload
    def on(
        self, event: Literal["ttsr_triggered"], handler: EventHandler[TtsrTriggeredEvent, None]
    ) -> None: ...

    @overload
    def on(self, event: Literal["approval_mode"], handler: EventHandler[ApprovalModeEvent, None]) -> None: ...

    @overload
    def on(self, event: str, handler: EventHandler[Notice, None]) -> None: ...

    def on(self, event: str, handler: Handler) -> None:
        """Call `handler(event, ctx)` on each `event`, after the handlers registered before it."""
        self._registry.handlers.setdefault(event, []).append((self.name, handler))

    def on_stream_delta(self, hook: StreamHook) -> None:
        """Watch the reply as it streams (text, thinking, tool-call arguments) and cut it if needed."""
        self._registry.stream_hooks.append((self.name, hook))

    def register_command(
        self, name: str, description: str, handler: CommandHandler, completions: Sequence[str] = ()
    ) -> None:
        self._registry.commands[name] = Command(
            name=name, description=description, handler=handler, completions=completions
        )

    def register_tool(self, tool: Tool) -> None:
        self._registry.tools.append(tool)

    def append_entry(self, custom_type: str, data: Mapping[str, object]) -> None:
        """Persist extension state as a `custom` session entry (never sent to the model)."""
        self._host.append_entry(custom_type, data)

    def send_message(
        self,
        custom_type: str,
        content: str,
        *,
        display: bool = True,
        details: Mapping[str, object] | None = None,
    ) -> None:
        """Add a `custom_message` the model sees: while a run is going, before its next request (after
        the current tool batch, or as one more turn); when idle, ahead of the next prompt."""
        self._host.send_message(custom_type, content, display=display, details=details or {})

    def emit(self, event: str, payload: object = None) -> None:
        """Tell other extensions something happened (for example `ttsr_triggered`). Raises ValueError
        for an event rein raises itself, TypeError for a built-in notice's payload of the wrong type."""
        check_emit(event, payload)
        self._host.emit_notice(event, payload)


class Host(Protocol):
    """What the session gives the extension API to act on."""

    def append_entry(self, custom_type: str, data: Mapping[str, object]) -> None: ...

    def send_message(
        self, custom_type: str, content: str, *, display: bool, details: Mapping[str, object]
    ) -> None: ...

    def emit_notice(self, event: str, payload: object) -> None: ...
