"""The operational state a compaction must not lose, read from the messages themselves.

A model's summary forgets which files it changed, which test was failing and what was left to do;
these facts are in the tool calls and their results, so rein extracts them deterministically and
writes them beside the summary in a fixed structure (`render_state`). Pure: no I/O.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from rein.agent import AgentMessage
from rein.ai import AssistantMessage, JsonValue, TextContent, ToolCall, ToolResultMessage, UserMessage
from rein.session.compaction._scan import (
    PRUNED_PREFIX,
    error_excerpt,
    exit_code,
    is_blocked,
    normalize_command,
    todo_marks,
)

MODIFYING_TOOLS = frozenset({"write", "edit"})
MAX_TODOS = 20
MAX_LISTED = 50
"""Items a rendered list shows; older ones are counted, not listed."""
MAX_COMMAND_CHARS = 200

_ABORTED_MARKER = "[command aborted;"

HEADER = "## Operational state (extracted by rein from the session, not by the model)"


@dataclass(frozen=True, slots=True, kw_only=True)
class Command:
    """A bash command that ran, with its exit code; `None` when unknown (aborted, timed out, or an
    error result without the `[exit code N]` marker)."""

    command: str
    exit_code: int | None


@dataclass(frozen=True, slots=True, kw_only=True)
class OperationalState:
    """What the session did, as the tool results show it.

    `modified` lists (path, tool that last changed it) in first-change order; `read` lists files read
    successfully and not modified, the most recently read last; `open_failures` are failing commands
    not followed by a passing rerun of the same command (whitespace-normalized), oldest first;
    `last_error` is the most useful lines of the last failing output, verbatim; `todos` are pending
    markdown task items and `TODO:` lines of the conversation, in the order they were last named.
    """

    modified: tuple[tuple[str, str], ...] = ()
    read: tuple[str, ...] = ()
    last_command: Command | None = None
    open_failures: tuple[Command, ...] = ()
    last_error: str | None = None
    todos: tuple[str, ...] = ()

    def to_json(self) -> dict[str, object]:
        return {
            "modified": [[path, tool] for path, tool in self.modified],
            "read": list(self.read),
            "last_command": _command_json(self.last_command),
            "open_failures": [_command_json(command) for command in self.open_failures],
            "last_error": self.last_error,
            "todos": list(self.todos),
        }

    @classmethod
    def from_json(cls, data: object) -> OperationalState:
        """Read what `to_json` wrote; never raises: a malformed field or item is left out, so a
        damaged entry costs only the state it held."""
        if not isinstance(data, Mapping):
            return cls()
        modified = tuple(
            (item[0], item[1])
            for item in _list(data.get("modified"))
            if isinstance(item, list) and len(item) == 2 and all(isinstance(part, str) for part in item)
        )
        error = data.get("last_error")
        return cls(
            modified=modified,
            read=tuple(item for item in _list(data.get("read")) if isinstance(item, str)),
            last_command=_command_from_json(data.get("last_command")),
            open_failures=tuple(
                command
                for item in _list(data.get("open_failures"))
                if (command := _command_from_json(item)) is not None
            ),
            last_error=error if isinstance(error, str) else None,
            todos=tuple(item for item in _list(data.get("todos")) if isinstance(item, str)),
        )


def extract_state(
    messages: Sequence[AgentMessage], previous: OperationalState | None = None
) -> OperationalState:
    """The state after `messages`, continuing `previous` (the state the last compaction saved).

    Each tool result is paired with its call by id; a result without a call is skipped. A write or
    edit counts only when its result succeeded, a bash only when it ran (a call blocked by steering
    or approval did not). `previous`'s open failures close on a passing rerun here, its TODOs on a
    checked-off item. Never raises.
    """
    builder = _Builder(previous or OperationalState())
    calls: dict[str, ToolCall] = {}
    for message in messages:
        if isinstance(message, AssistantMessage):
            calls.update((call.id, call) for call in message.tool_calls)
            builder.text(_text(message.content))
        elif isinstance(message, UserMessage):
            builder.text(_text(message.content))
        elif isinstance(message, ToolResultMessage):
            call = calls.get(message.tool_call_id)
            if call is not None:
                builder.result(call, message)
    return builder.state()


class _Builder:
    """The state being extracted, updated one message at a time."""

    def __init__(self, previous: OperationalState) -> None:
        self.modified = dict(previous.modified)
        self.read = dict.fromkeys(previous.read)
        self.last_command = previous.last_command
        self.failures = {normalize_command(c.command): c for c in previous.open_failures}
        self.todos = {_todo_key(item): item for item in previous.todos}
        self.previous_error = previous.last_error
        self.previous_failures = set(self.failures)
        # (what failed, excerpt). The last failing bash output wins over other tools' errors: a
        # failing test matters more than an edit that missed its text. A later success of the same
        # command, or the same tool on the same path, resolves the error.
        self.bash_error: tuple[str, str] | None = None
        self.other_error: tuple[str, str] | None = None

    def text(self, text: str) -> None:
        for checked, item in todo_marks(text):
            key = _todo_key(item)
            self.todos.pop(key, None)
            if not checked:
                self.todos[key] = item

    def result(self, call: ToolCall, result: ToolResultMessage) -> None:
        text = result.text
        if result.is_error and is_blocked(text):
            return
        path = call.arguments.get("path")
        if call.name == "bash":
            self._bash(call.arguments.get("command"), result)
        elif isinstance(path, str) and path and not result.is_error:
            if call.name in MODIFYING_TOOLS:
                self.modified[_path(path)] = call.name
            elif call.name == "read":
                key = _path(path)
                self.read.pop(key, None)
                self.read[key] = None
        if call.name != "bash":
            key = (
                f"{call.name} {_path(path)}"
                if isinstance(path, str)
                else f"{call.name} {call.arguments_text}"
            )
            if not result.is_error:
                if self.other_error is not None and self.other_error[0] == key:
                    self.other_error = None
            else:
                self.other_error = (key, _excerpt(text))

    def _bash(self, command: JsonValue | None, result: ToolResultMessage) -> None:
        if not isinstance(command, str) or not command.strip():
            return
        ran = Command(command=command.strip(), exit_code=exit_code(result.text, is_error=result.is_error))
        key = normalize_command(ran.command)
        self.last_command = ran
        if ran.exit_code is None and _ABORTED_MARKER in result.text:
            return  # the user stopped it: neither a failure nor a passing rerun
        self.failures.pop(key, None)
        if ran.exit_code == 0:
            if self.bash_error is not None and self.bash_error[0] == key:
                self.bash_error = None
            return
        self.failures[key] = ran
        self.bash_error = (key, _excerpt(result.text))

    def state(self) -> OperationalState:
        latest = self.bash_error or self.other_error
        error = latest[1] if latest is not None else None
        if error is None and not (self.previous_failures and not self.previous_failures & set(self.failures)):
            error = self.previous_error  # unless every failure it came with has since passed
        todos = tuple(self.todos.values())[-MAX_TODOS:]
        return OperationalState(
            modified=tuple(self.modified.items()),
            read=tuple(path for path in self.read if path not in self.modified),
            last_command=self.last_command,
            open_failures=tuple(self.failures.values()),
            last_error=error or None,
            todos=todos,
        )


def render_state(state: OperationalState) -> str:
    """The state as markdown in a fixed structure: every section always present ("- none" when
    empty), lists capped at the newest `MAX_LISTED` items, the error indented by four spaces."""
    error = (
        "\n".join(f"    {line}" for line in state.last_error.splitlines()) if state.last_error else "- none"
    )
    last = (_command_line(state.last_command),) if state.last_command is not None else ()
    sections = (
        ("Files modified", _listed(f"{path} ({tool})" for path, tool in state.modified)),
        ("Files read", _listed(state.read)),
        ("Last command", _listed(last)),
        ("Open failures", _listed(_command_line(command) for command in state.open_failures)),
        ("Last error", error),
        ("Pending TODO", _listed(f"[ ] {item}" for item in state.todos)),
    )
    body = "\n".join(f"### {title}\n{text}" for title, text in sections)
    return f"{HEADER}\n{body}"


def _listed(items: Iterable[str]) -> str:
    lines = list(items)
    if not lines:
        return "- none"
    shown = [f"- {line}" for line in lines[-MAX_LISTED:]]
    if len(lines) > MAX_LISTED:
        shown.insert(0, f"- ... and {len(lines) - MAX_LISTED} more")
    return "\n".join(shown)


def _command_line(command: Command) -> str:
    text = normalize_command(command.command)
    if len(text) > MAX_COMMAND_CHARS:
        text = text[: MAX_COMMAND_CHARS - 3] + "..."
    fence = "``" if "`" in text else "`"
    quoted = f"{fence} {text} {fence}" if fence == "``" else f"`{text}`"
    code = "exit code unknown" if command.exit_code is None else f"exit {command.exit_code}"
    return f"{quoted} ({code})"


def _excerpt(text: str) -> str:
    """The error lines of an output; none of a pruned one (a later run of the same call exists)."""
    return "" if text.startswith(PRUNED_PREFIX) else error_excerpt(text)


def _path(path: str) -> str:
    return posixpath.normpath(path)


def _todo_key(item: str) -> str:
    return " ".join(item.split()).casefold()


def _text(blocks: Sequence[object]) -> str:
    return "\n".join(block.text for block in blocks if isinstance(block, TextContent))


def _list(value: object) -> list[object]:
    return value if isinstance(value, list) else []


def _command_json(command: Command | None) -> dict[str, object] | None:
    return None if command is None else {"command": command.command, "exit_code": command.exit_code}


def _command_from_json(data: object) -> Command | None:
    if not isinstance(data, Mapping):
        return None
    command, code = data.get("command"), data.get("exit_code")
    if not isinstance(command, str) or not (
        code is None or (isinstance(code, int) and not isinstance(code, bool))
    ):
        return None
    return Command(command=command, exit_code=code)
