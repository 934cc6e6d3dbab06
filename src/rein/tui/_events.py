"""The session's events, shown: the reply streams in the live area and finished lines move to the
scrollback; thinking and tool calls are folded to one line (a tool adds a few lines of its output);
a stream-rule cut is a notice, an aborted reply says "aborted", an error is one red line.

The order on screen is the order of the reply: text already streamed is moved to the scrollback
before thinking or a tool call that follows it is shown.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from prompt_toolkit.formatted_text import StyleAndTextTuples

from rein.agent import AgentEvent, CustomMessage, StreamDelta
from rein.ai import AssistantMessage, ToolCall
from rein.tui._format import describe, elapsed, one_line, thinking, thinking_tail, tool_result
from rein.tui._live import Live
from rein.tui._scrollback import Scrollback

TRIGGERED = "ttsr_triggered"
SWITCHED = "session_switched"


class EventView:
    """Subscribe `event` to the session's agent events and `notice` to its notices. `keep` is how
    many streamed lines stay in the live area (0: every finished line goes out at once). The status
    line's tokens are the context's after each reply (`context`), not a sum of replies."""

    def __init__(
        self,
        live: Live,
        out: Scrollback,
        refresh: Callable[[], None],
        *,
        abort: Callable[[], None],
        switched: Callable[[object], None],
        context: Callable[[], int] | None = None,
        keep: int = 6,
    ) -> None:
        self.live = live
        self.context = context
        """The context's tokens now (`_replay.context_tokens`); without it, the reply's usage."""
        self.out = out
        self.refresh = refresh
        self.abort = abort
        self.switched = switched
        self.keep = keep

    def event(self, event: AgentEvent) -> None:
        if self.live.abort_requested and event.type == "agent_start":
            self.live.abort_requested = False
            self.abort()
        match event.type:
            case "message_start" if isinstance(event.message, AssistantMessage):
                self.live.clear_stream()
            case "message_update" if event.delta is not None:
                self._delta(event.delta)
            case "message_end" if isinstance(event.message, AssistantMessage):
                self._reply_end(event.message)
            case "message_end" if isinstance(event.message, CustomMessage) and event.message.display:
                self.out.line(event.message.content, "class:custom")
            case "tool_execution_start" if event.tool_call is not None:
                self.live.forming = ""
                self.live.tools[event.tool_call.id] = (describe(event.tool_call), time.monotonic())
            case "tool_execution_end" if event.tool_call is not None and event.output is not None:
                summary, _ = self.live.tools.pop(event.tool_call.id, (describe(event.tool_call), 0.0))
                self.out.write(tool_result(summary, event.output))
            case "stream_retry":
                self.live.clear_stream()
                self.out.line(f"[cut] {event.reason}: the reply is dropped and retried", "class:cut")
            case "error":
                self.out.line(f"[error] {one_line(event.error)}", "class:error")
            case _:
                pass
        self.refresh()

    def notice(self, name: str, payload: object) -> None:
        if name == TRIGGERED and isinstance(payload, tuple):
            self.live.firings += len(payload)
        elif name == SWITCHED:
            self.live.firings = 0
            self.switched(payload)
        self.refresh()

    def _delta(self, delta: StreamDelta) -> None:
        live = self.live
        if delta.source != "text":
            self._flush_text()
        if delta.source == "thinking":
            live.thinking += delta.delta
            if delta.final:
                self._flush_thinking()
            return
        self._flush_thinking()
        if delta.source == "tool":
            block = delta.partial.content[delta.index] if delta.index < len(delta.partial.content) else None
            live.forming = describe(block) if isinstance(block, ToolCall) else ""
            return
        live.text += delta.delta
        lines = live.text.split("\n")
        if len(lines) - 1 > self.keep:
            cut = len(lines) - 1 - self.keep
            self.out.line("\n".join(lines[:cut]))
            live.text = "\n".join(lines[cut:])

    def _reply_end(self, message: AssistantMessage) -> None:
        self._flush_text()
        self._flush_thinking()
        self.live.forming = ""
        if self.context is not None:
            self.live.tokens = self.context()
        elif message.stop_reason not in ("error", "aborted") and message.usage.total:
            self.live.tokens = message.usage.total
        if message.stop_reason == "aborted":
            self.out.line("[aborted]", "class:aborted")
        elif message.stop_reason == "error":
            self.out.line(f"[error] {one_line(message.error_message or 'the reply failed')}", "class:error")

    def _flush_text(self) -> None:
        text = self.live.text.rstrip()
        self.live.text = ""
        if text.strip():
            self.out.line(text.strip("\n"))

    def _flush_thinking(self) -> None:
        text, self.live.thinking = self.live.thinking, ""
        if text.strip():
            self.out.line(thinking(text), "class:thinking")


def live_lines(live: Live, *, asking: bool = False) -> StyleAndTextTuples:
    """The live area: streamed text not yet in the scrollback, thinking, running tools, the queue.
    While a question is `asking`, a tool shows no running time (it waits for the answer)."""
    out: StyleAndTextTuples = []

    def add(style: str, text: str) -> None:
        if out:
            out.append(("", "\n"))
        out.append((style, text))

    if live.text.strip():
        add("", live.text.strip("\n"))
    if live.thinking.strip():
        add("class:thinking", thinking_tail(live.thinking))
    if live.forming:
        add("class:tool", live.forming)
    now = time.monotonic()
    for summary, started in live.tools.values():
        add("class:tool", summary)
        if not asking:
            out.append(("class:running", f"  running {elapsed(now - started)}"))
    for prompt in live.queued:
        add("class:queued", f"queued: {one_line(prompt)}")
    return out
