"""A rein session as the timebox extension sees it, faked at the extension API's boundary.

The real `ExtensionAPI`, `Registry` and `ExtensionRunner` dispatch; the host, the session view and
the UI record what the extension does. The clock and the timer are fakes, so no test sleeps.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from rein.agent import AgentEvent, AgentMessage, Block, StreamDelta, ToolCallInfo
from rein.ai import AssistantMessage, TextContent, ToolCall, UserMessage
from rein.ai import Usage as TokenUsage
from rein.builtins.timebox import TimeboxExtension
from rein.extensions import ExtensionAPI, ExtensionContext, ExtensionRunner, Level, Registry

T0 = 1_700_000_000_000
MIN = 60_000


class Clock:
    def __init__(self, now: int) -> None:
        self.now = now

    def __call__(self) -> int:
        return self.now

    def advance(self, ms: int) -> None:
        self.now += ms


@dataclass
class Timer:
    delay: float
    callback: Callable[[], None]
    cancelled: bool = False
    fired: bool = False

    def cancel(self) -> None:
        self.cancelled = True


@dataclass
class Scheduler:
    timers: list[Timer] = field(default_factory=list)

    def __call__(self, delay: float, callback: Callable[[], None]) -> Timer:
        timer = Timer(delay, callback)
        self.timers.append(timer)
        return timer

    def pending(self) -> list[Timer]:
        return [timer for timer in self.timers if not timer.cancelled and not timer.fired]

    def tick(self) -> None:
        """Let one interval pass: run the timers due now."""
        for timer in self.pending():
            timer.fired = True
            timer.callback()


@dataclass
class UI:
    notices: list[tuple[Level, str]] = field(default_factory=list)
    status: dict[str, str | None] = field(default_factory=dict)

    def notify(self, message: str, level: Level = "info") -> None:
        self.notices.append((level, message))

    def set_status(self, key: str, text: str | None) -> None:
        self.status[key] = text

    async def select(self, title: str, options: Sequence[str]) -> str | None:
        return None

    async def input(self, title: str, placeholder: str = "") -> str | None:
        return None

    def levels(self) -> list[Level]:
        return [level for level, _ in self.notices]


@dataclass
class Session:
    """SessionView and Host: custom entries appended by the extension, messages added by the test."""

    entries: list[tuple[str, Mapping[str, object]]] = field(default_factory=list)
    messages: list[AgentMessage] = field(default_factory=list)
    sent: list[tuple[str, str, bool]] = field(default_factory=list)
    """Messages for the model: (custom type, content, display)."""
    cwd: str = "/work"

    def custom_entries(self, custom_type: str) -> Sequence[Mapping[str, object]]:
        return [data for kind, data in self.entries if kind == custom_type]

    @property
    def branch_messages(self) -> Sequence[AgentMessage]:
        return self.messages

    def user_message_count(self) -> int:
        return sum(1 for message in self.messages if isinstance(message, UserMessage))

    def append_entry(self, custom_type: str, data: Mapping[str, object]) -> None:
        self.entries.append((custom_type, dict(data)))

    def send_message(
        self, custom_type: str, content: str, *, display: bool, details: Mapping[str, object]
    ) -> None:
        self.sent.append((custom_type, content, display))

    def emit_notice(self, event: str, payload: object) -> None:
        raise AssertionError("the timebox emits no notices")

    def kinds(self) -> list[str]:
        return [kind for kind, _ in self.entries]

    def add_user_messages(self, count: int) -> None:
        self.messages.extend(UserMessage.of(f"prompt {index}") for index in range(count))


def reply(tokens: int, timestamp: int = T0, *, calls: int = 0, text: str = "") -> AssistantMessage:
    """An assistant reply of `tokens` tokens, asking for `calls` tool calls."""
    asked = tuple(
        ToolCall(id=f"c{index}", name="bash", arguments={"command": "ls"}) for index in range(calls)
    )
    return AssistantMessage(
        provider="faux",
        model="m",
        content=(TextContent(text=text), *asked) if text else asked,
        usage=TokenUsage(input=tokens - tokens // 4, output=tokens // 4),
        timestamp=timestamp,
    )


def _raise(name: str, event: str, error: BaseException) -> None:
    raise error


class Harness:
    """One session with the timebox extension loaded. `reload()` starts a new extension instance on
    the same session entries and messages, as a rein restart would."""

    def __init__(self, session: Session | None = None, *, now: int = T0) -> None:
        self.session = session or Session()
        self.clock = Clock(now)
        self.scheduler = Scheduler()
        self.ui = UI()
        self.aborts = 0
        self.ran: list[str] = []
        registry = Registry()
        self.extension = TimeboxExtension(
            ExtensionAPI("timebox", registry, self.session),
            clock=self.clock,
            scheduler=self.scheduler,
            run_on_stop=self.ran.append,
        )
        self.extension.register()
        self.registry = registry
        self.runner = ExtensionRunner(registry, self.context, _raise)

    def context(self) -> ExtensionContext:
        return ExtensionContext(ui=self.ui, session=self.session, abort=self._abort)

    def _abort(self) -> None:
        self.aborts += 1

    @property
    def status(self) -> str | None:
        return self.ui.status.get("timebox")

    def command(self, args: str) -> None:
        result = self.registry.commands["timebox"].handler(args, self.context())
        assert result is None

    def fire(self, event: str, payload: object = None) -> None:
        asyncio.run(self.runner.notify(event, payload))

    def before_agent_start(self) -> str:
        """The system prompt of the next run, from the base prompt `BASE`."""
        return asyncio.run(self.runner.before_agent_start("go", "BASE"))

    def prompt(self, text: str = "go", *, tokens: int = 0) -> str:
        """One user prompt as rein's session runs it: before_agent_start, agent_start, turn_start
        (before the loop adds the prompt), the prompt, a reply, turn_end, agent_end. Returns the system
        prompt the run got."""
        system = self.before_agent_start()
        self.fire("agent_start", AgentEvent(type="agent_start"))
        self.fire("turn_start", AgentEvent(type="turn_start"))
        aborted = self.aborts
        self.session.messages.append(UserMessage.of(text))
        answer = reply(tokens, self.clock.now)
        if self.aborts == aborted:
            self.fire("message_end", AgentEvent(type="message_end", message=answer))
            self.session.messages.append(answer)
            self.fire("turn_end", AgentEvent(type="turn_end", message=answer))
        self.fire("agent_end", AgentEvent(type="agent_end"))
        return system

    def start_run(self, text: str = "go") -> str:
        """A run begins as rein's session begins one: before_agent_start, agent_start, turn_start, then
        the prompt joins the history. Returns the run's system prompt."""
        system = self.before_agent_start()
        self.fire("agent_start", AgentEvent(type="agent_start"))
        self.fire("turn_start", AgentEvent(type="turn_start"))
        self.session.messages.append(UserMessage.of(text))
        return system

    def streamed(self, partial: AssistantMessage) -> None:
        """One streamed delta of `partial`, the reply so far, through the stream hooks."""
        delta = StreamDelta(source="text", delta="x", index=0, partial=partial)
        assert self.runner.stream_delta(delta) is None  # the timebox never cuts a reply for a retry

    def tool_call(self) -> Block | None:
        call = ToolCall(id="c0", name="bash", arguments={"command": "ls"})
        return asyncio.run(self.runner.tool_call(ToolCallInfo(call=call, tool=None)))

    def end_turn(self, answer: AssistantMessage) -> None:
        self.fire("message_end", AgentEvent(type="message_end", message=answer))
        self.session.messages.append(answer)
        self.fire("turn_end", AgentEvent(type="turn_end", message=answer))

    def reload(self) -> Harness:
        again = Harness(self.session, now=self.clock.now)
        again.fire("session_start")
        return again
