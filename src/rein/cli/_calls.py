"""What `rein check` takes as a tool call, from its options or from a JSON line, with its shape checked.

A call of the wrong shape is refused with a reason (`CallError`), never read as something else: with
`--jsonl` a caller that only reads `decision` must not take a malformed line for an allowed one.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from rein.steering import TOOLS, ToolCall

KEYS = ("tool", "command", "path", "content", "cwd", "branch")
"""The keys a JSON line may have; each is a string (or null, meaning absent)."""

_JSON_TYPES = {list: "an array", dict: "an object", bool: "a boolean", int: "a number", float: "a number"}


class CallError(ValueError):
    """A tool call rein cannot check: its message says what is wrong, for a one-line error."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Line:
    """One JSON line read as a tool call, with the directory and branch it runs in."""

    call: ToolCall
    cwd: Path
    branch: str | None


def tool_call(tool: str, command: str | None, path: str | None, content: str | None) -> ToolCall:
    """The call, if its fields fit its tool: bash takes a command; write and edit a path (and content);
    read a path. Raises `CallError` naming what is missing or does not belong."""
    if tool not in TOOLS:
        raise CallError(f"unknown tool {tool!r} (one of {', '.join(TOOLS)})")
    if tool == "bash":
        if command is None or not command.strip():
            raise CallError("a bash call needs a command")
        if path is not None or content is not None:
            raise CallError("a bash call takes a command, not a path or content")
    else:
        call = f"{'an' if tool == 'edit' else 'a'} {tool} call"
        if path is None or not path:
            raise CallError(f"{call} needs a path")
        if command is not None:
            raise CallError(f"{call} takes a path, not a command")
        if tool == "read" and content is not None:
            raise CallError("a read call takes no content")
    return ToolCall(tool=tool, command=command or "", path=path, content=content)


def parse_line(text: str, default_cwd: Path) -> Line:
    """A JSON line such as `{"command": "git push -f", "cwd": "/repo"}` or `{"tool": "write", "path":
    "a.py", "content": "..."}`. Raises `CallError` for anything else: not JSON, not an object, an
    unknown key, a value that is not a string, a field that does not fit the tool."""
    try:
        item = json.loads(text)
    except json.JSONDecodeError as error:
        raise CallError(f"not JSON ({error.msg} at column {error.colno})") from None
    if not isinstance(item, dict):
        raise CallError(f"each line must be a JSON object, not {_kind(item)}")
    unknown = [key for key in item if key not in KEYS]
    if unknown:
        names = ", ".join(repr(key) for key in unknown)
        raise CallError(f"unknown key {names} (known: {', '.join(KEYS)})")
    fields: dict[str, str | None] = {}
    for key in KEYS:
        value = item.get(key)
        if value is not None and not isinstance(value, str):
            raise CallError(f"{key!r} must be a string, not {_kind(value)}")
        fields[key] = value
    tool = "bash" if fields["tool"] is None else fields["tool"]
    call = tool_call(tool, fields["command"], fields["path"], fields["content"])
    cwd = Path(fields["cwd"] or default_cwd).resolve()
    return Line(call=call, cwd=cwd, branch=fields["branch"])


def _kind(value: object) -> str:
    return _JSON_TYPES.get(type(value), "null" if value is None else "a string")
