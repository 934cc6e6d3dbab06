"""Which of a framework's tool calls steering decides, and as what: a shell command, a file write, an
edit or a read, read from the call's name and arguments (frameworks name tools freely)."""

from __future__ import annotations

import json
from collections.abc import Mapping

from rein.steering import ToolCall

COMMAND_KEYS = ("command", "cmd", "script", "commands")
SHELL_HINTS = ("bash", "shell", "terminal", "exec", "command")
"""A tool whose name holds one of these runs commands: without a readable command it is refused."""
PATH_KEYS = ("path", "file_path", "filepath", "filename", "file", "target_file")


def arguments_of(raw: Mapping[str, object] | str | None) -> dict[str, object]:
    """A call's arguments as a mapping: JSON text is decoded; anything unreadable is empty."""
    if raw is None:
        return {}
    if isinstance(raw, str):
        try:
            decoded = json.loads(raw) if raw.strip() else {}
        except ValueError:
            return {"command": raw}  # a bare string argument of a shell tool is its command
        return dict(decoded) if isinstance(decoded, dict) else {}
    return dict(raw)


def steering_call(name: str, raw: Mapping[str, object] | str | None, call_id: str = "") -> ToolCall | None:
    """The steering call for a framework's tool call, or None when it is not a shell or file tool.
    Raises `ValueError` for a shell-like tool whose command cannot be found (the guard blocks it)."""
    arguments = arguments_of(raw)
    lower = name.lower()
    command = next((arguments[k] for k in COMMAND_KEYS if k in arguments), None)
    if isinstance(command, list):
        command = " ".join(str(part) for part in command)
    if isinstance(command, str):  # any tool given a command line runs one, whatever its name
        return ToolCall(tool="bash", command=command, id=call_id)
    if any(hint in lower for hint in SHELL_HINTS):
        texts = [value for value in arguments.values() if isinstance(value, str)]
        if len(texts) == 1:
            return ToolCall(tool="bash", command=texts[0], id=call_id)
        raise ValueError(f"rein cannot find the command of the shell tool {name!r} in its arguments")
    path = next((arguments[k] for k in PATH_KEYS if isinstance(arguments.get(k), str)), None)
    if not isinstance(path, str):
        return None
    content = arguments.get("content")
    text = content if isinstance(content, str) else None
    if "edit" in lower or "old_string" in arguments or "old_str" in arguments:
        new = arguments.get("new_string", arguments.get("new_str"))
        return ToolCall(tool="edit", path=path, content=new if isinstance(new, str) else None, id=call_id)
    if "write" in lower or "create" in lower or text is not None:
        return ToolCall(tool="write", path=path, content=text, id=call_id)
    if "read" in lower or "view" in lower or "open" in lower:
        return ToolCall(tool="read", path=path, id=call_id)
    return None
