"""The built-in validation hints (seed 004): after a tool batch that changed files or ran a failing
command, the next requests end with one hidden reminder to check that batch.

- tool_result: a `write` or `edit` that succeeded records its path; a `bash` call that failed (a
  non-zero exit, or a timeout) records its command and the tail of its output. A call blocked by
  steering or approval ran nothing, and an aborted one was stopped on purpose: neither is recorded.
  A command that fails and then passes in the same batch is no longer a failure.
- turn_end: the turn's records become the hint for every request of the next turn (a stream-rule
  retry sends it again), each path and each command once; the next turn records afresh.
- context: the hint is appended as a hidden `validation-hint` custom message to that request's list
  only. It is never a session entry, so it is never persisted and never resent from history.
- agent_end: cleared; a new prompt starts without a hint.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from rein.agent import AgentMessage, CustomMessage, ToolOutput
from rein.extensions import (
    AgentEndEvent,
    ContextEvent,
    ExtensionAPI,
    ExtensionContext,
    ToolResultEvent,
    TurnEndEvent,
)

HINT_MESSAGE = "validation-hint"
"""The `custom_type` of the hidden hint message."""
TAIL_LINES = 20
TAIL_CHARS = 1500
_CHANGING = ("write", "edit")


@dataclass(slots=True)
class Failure:
    command: str
    code: int | None
    """None: the command timed out (the bash tool killed it)."""
    tail: str


@dataclass(slots=True)
class Batch:
    """What one turn's tool results recorded, in first-seen order, each path and command once."""

    files: dict[str, list[str]] = field(default_factory=dict)
    """Path to the tools that changed it."""
    failures: dict[str, Failure] = field(default_factory=dict)
    """Command to its latest failure."""

    def record(self, name: str, arguments: Mapping[str, object], output: ToolOutput) -> None:
        details = output.details
        if details.get("blocked") or details.get("aborted"):
            return
        if name in _CHANGING and not output.is_error and isinstance(path := arguments.get("path"), str):
            tools = self.files.setdefault(path, [])
            if name not in tools:
                tools.append(name)
        elif (
            name == "bash" and isinstance(command := arguments.get("command"), str) and "exit_code" in details
        ):
            code = details["exit_code"]
            if code == 0:
                self.failures.pop(command, None)
            elif output.is_error:
                exit_code = code if isinstance(code, int) else None
                self.failures[command] = Failure(command, exit_code, tail(output.text, exit_code))

    def empty(self) -> bool:
        return not self.files and not self.failures


def tail(text: str, code: int | None) -> str:
    """The last lines of a command's output, without the bash tool's own `[exit code N]` line."""
    lines = text.rstrip("\n").splitlines()
    if code is not None and lines and lines[-1] == f"[exit code {code}]":
        lines.pop()
    kept = "\n".join(lines[-TAIL_LINES:])
    return kept if len(kept) <= TAIL_CHARS else "..." + kept[-TAIL_CHARS:]


def hint_text(batch: Batch) -> str:
    text = "rein: before going on, check the last tool batch."
    if batch.files:
        files = ", ".join(f"{path} ({', '.join(tools)})" for path, tools in batch.files.items())
        text += f" Files changed: {files}."
    for failure in batch.failures.values():
        status = "timed out" if failure.code is None else f"exit {failure.code}"
        text += f"\nFailed: `{failure.command}` ({status}):\n{failure.tail}".rstrip()
    return text


class HintsExtension:
    """See the module docstring. `hint` is the text the current turn's requests end with, if any."""

    def __init__(self, rein: ExtensionAPI) -> None:
        self.rein = rein
        self.recording = Batch()
        self.hint: str | None = None
        rein.on("tool_result", self.on_tool_result)
        rein.on("turn_end", self.on_turn_end)
        rein.on("agent_end", self.on_agent_end)
        rein.on("context", self.on_context)

    def on_tool_result(self, event: ToolResultEvent, ctx: ExtensionContext) -> None:
        self.recording.record(event.info.call.name, event.info.call.arguments, event.output)

    def on_turn_end(self, event: TurnEndEvent, ctx: ExtensionContext) -> None:
        self.hint = None if self.recording.empty() else hint_text(self.recording)
        self.recording = Batch()

    def on_agent_end(self, event: AgentEndEvent, ctx: ExtensionContext) -> None:
        self.hint = None
        self.recording = Batch()

    def on_context(self, event: ContextEvent, ctx: ExtensionContext) -> list[AgentMessage] | None:
        if self.hint is None:
            return None
        return [*event.messages, CustomMessage(custom_type=HINT_MESSAGE, content=self.hint, display=False)]
