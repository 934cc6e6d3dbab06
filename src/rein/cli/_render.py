"""Show a session's events in a terminal: the reply as it streams, tools, rule cuts, notices.

A stream-rule cut is not a failure: it is shown as the rule that fired and the retry that follows.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping, Sequence
from typing import TextIO

from rich.console import Console
from rich.markup import escape

from rein.agent import AgentEvent, CustomMessage, ToolOutput
from rein.ai import AssistantMessage, ToolCall, message_to_json
from rein.builtins.ttsr import TRIGGERED
from rein.extensions import Level
from rein.ttsr import Rule

STYLE: Mapping[Level, str] = {"info": "cyan", "warning": "yellow", "error": "bold red"}


class TerminalUI:
    """The `UI` for a terminal: notices printed, the status kept for the status line."""

    def __init__(self, console: Console) -> None:
        self.console = console
        self.status: dict[str, str] = {}

    def notify(self, message: str, level: Level = "info") -> None:
        self.console.print(f"[{STYLE[level]}]{escape(message)}[/]")

    def set_status(self, key: str, text: str | None) -> None:
        if text is None:
            self.status.pop(key, None)
        else:
            self.status[key] = text

    async def select(self, title: str, options: Sequence[str]) -> str | None:
        return None  # a line-based terminal has no picker: nobody is asked

    async def input(self, title: str, placeholder: str = "") -> str | None:
        return None


class Printer:
    """Renders agent events as they come."""

    def __init__(self, console: Console, out: TextIO | None = None) -> None:
        self.console = console
        self.out = out or sys.stdout
        self.streamed = False
        self.cut = False

    def event(self, event: AgentEvent) -> None:
        match event.type:
            case "message_update" if event.delta is not None:
                if event.delta.source == "text":
                    self.out.write(event.delta.delta)
                    self.out.flush()
                    self.streamed = True
            case "message_end" if isinstance(event.message, AssistantMessage):
                self._end_line()
                if event.message.stop_reason == "aborted":
                    self.console.print("[yellow]aborted[/]")
                elif event.message.stop_reason == "error":
                    self.console.print(f"[bold red]error:[/] {escape(event.message.error_message or '')}")
            case "message_end" if isinstance(event.message, CustomMessage) and event.message.display:
                self.console.print(f"[magenta]{escape(event.message.content)}[/]")
            case "stream_retry":
                self._end_line()
                self.console.print(
                    f"[bold magenta]cut:[/] {escape(event.reason)}; the reply is dropped and retried"
                )
            case "tool_execution_start" if event.tool_call is not None:
                self._end_line()
                self.console.print(f"[bold blue]> {escape(_describe(event.tool_call))}[/]")
            case "tool_execution_end" if event.output is not None:
                self._show_result(event.output)
            case _:
                pass

    def notice(self, name: str, payload: object) -> None:
        """Session notices: a fired stream rule is shown by name."""
        if name == TRIGGERED and isinstance(payload, tuple):
            self._end_line()
            names = ", ".join(rule.name for rule in payload if isinstance(rule, Rule))
            self.console.print(f"[bold magenta]stream rule fired:[/] {escape(names)}")

    def _show_result(self, output: ToolOutput) -> None:
        lines = output.text.splitlines()
        shown = "\n".join(lines[:8]) + (f"\n... ({len(lines) - 8} more lines)" if len(lines) > 8 else "")
        style = "red" if output.is_error else "dim"
        self.console.print(f"[{style}]{escape(shown)}[/]")

    def _end_line(self) -> None:
        if self.streamed:
            self.out.write("\n")
            self.out.flush()
            self.streamed = False


def _describe(call: ToolCall) -> str:
    args = call.arguments
    if call.name == "bash":
        return f"bash: {args.get('command', '')}"
    if "path" in args:
        return f"{call.name} {args['path']}"
    return f"{call.name} {json.dumps(dict(args))[:120]}"


def event_json(event: AgentEvent) -> dict[str, object]:
    """One event as JSON, for `--mode json`."""
    out: dict[str, object] = {"type": event.type}
    message = event.message
    if isinstance(message, CustomMessage):
        out["message"] = {"role": "custom", "custom_type": message.custom_type, "content": message.content}
    elif message is not None and event.type != "message_update":
        out["message"] = message_to_json(message)
    if event.delta is not None:
        out["delta"] = {"source": event.delta.source, "text": event.delta.delta, "index": event.delta.index}
    if event.tool_call is not None:
        out["tool_call"] = {
            "id": event.tool_call.id,
            "name": event.tool_call.name,
            "arguments": event.tool_call.arguments,
        }
    if event.output is not None:
        out["output"] = {"text": event.output.text, "is_error": event.output.is_error}
    if event.reason:
        out["reason"] = event.reason
    if event.error:
        out["error"] = event.error
    return out
