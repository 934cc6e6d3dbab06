"""The extension API: what an extension module's `extension(rein)` function receives.

    def extension(rein: ExtensionAPI) -> None:
        rein.on("tool_call", block_rm)
        rein.register_command("hello", "Say hello", lambda args, ctx: ctx.ui.notify("hi", "info"))

Event handlers receive `(event, ctx)` and may be sync or async. How results combine:

- `tool_call` (ToolCallEvent): the first handler that returns a `Block` wins; a handler that raises
  blocks too (fail closed), with the exception as the reason.
- `tool_result` (ToolResultEvent): chained; each handler may return a replacement `ToolOutput`.
- `context` (ContextEvent): chained; each handler may return a replacement message list.
- `before_agent_start` (BeforeAgentStartEvent): each handler may return text appended to the system
  prompt for this run.
- `input` (InputEvent): the first handler that returns `Handled` consumes the input (it never reaches
  the model); a returned string replaces it.
- every other event (session_start, session_shutdown, agent_start/end, turn_start/end,
  message_start/update/end, ttsr_triggered, ...): notification only; a raise is reported, not fatal.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal, Protocol

from rein.agent import AbortRetry, AgentMessage, StreamDelta, Tool, ToolCallInfo, ToolOutput

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


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolCallEvent:
    info: ToolCallInfo


@dataclass(frozen=True, slots=True, kw_only=True)
class ToolResultEvent:
    info: ToolCallInfo
    output: ToolOutput


@dataclass(frozen=True, slots=True, kw_only=True)
class ContextEvent:
    messages: list[AgentMessage]


@dataclass(frozen=True, slots=True, kw_only=True)
class BeforeAgentStartEvent:
    prompt: str
    system_prompt: str


@dataclass(frozen=True, slots=True, kw_only=True)
class InputEvent:
    text: str


@dataclass(frozen=True, slots=True)
class Handled:
    """An `input` handler's answer: the input was consumed (a command, a timebox keyword)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Notice:
    """Any other event: its name and a payload (the agent event, the fired rules, ...)."""

    name: str
    payload: object = None


Handler = Callable[[object, ExtensionContext], object | Awaitable[object]]
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

    def on(self, event: str, handler: Handler) -> None:
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
        """Tell other extensions something happened (for example `ttsr_triggered`)."""
        self._host.emit_notice(event, payload)


class Host(Protocol):
    """What the session gives the extension API to act on."""

    def append_entry(self, custom_type: str, data: Mapping[str, object]) -> None: ...

    def send_message(
        self, custom_type: str, content: str, *, display: bool, details: Mapping[str, object]
    ) -> None: ...

    def emit_notice(self, event: str, payload: object) -> None: ...
