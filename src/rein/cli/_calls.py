"""What `rein check` takes as a tool call, from its options or from a JSON line, with its shape checked.

A call of the wrong shape is refused with a reason (`CallError`), never read as something else: with
`--jsonl` a caller that only reads `decision` must not take a malformed line for an allowed one.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import cast

from rein.steering import TOOLS, ToolCall

KEYS = ("tool", "command", "path", "content", "cwd", "branch", "args")
"""The keys a JSON line may have; each is a string (or null, meaning absent), but `args`, an object."""

_NAME = re.compile(r"[A-Za-z0-9_.:/@-]+")
"""A tool name rules can name: an MCP tool's `mcp__<server>__<tool>`, an extension's."""

_JSON_TYPES = {list: "an array", dict: "an object", bool: "a boolean", int: "a number", float: "a number"}


class CallError(ValueError):
    """A tool call rein cannot check: its message says what is wrong, for a one-line error."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Line:
    """One JSON line read as a tool call, with the directory and branch it runs in."""

    call: ToolCall
    cwd: Path
    branch: str | None


def any_tool_call(tool: str, args: Mapping[str, object] | None) -> ToolCall:
    """A call of a tool that is not bash nor a file tool (an MCP tool, an extension's): its name and
    its JSON arguments, which its rules read."""
    if not _NAME.fullmatch(tool):
        raise CallError(
            f"unknown tool {tool!r} (one of {', '.join(TOOLS)}, or another tool's name: letters, digits"
            " and _ - . : / @)"
        )
    return ToolCall(tool=tool, args=args or {})


def tool_call(
    tool: str,
    command: str | None,
    path: str | None,
    content: str | None,
    args: Mapping[str, object] | None = None,
) -> ToolCall:
    """The call, if its fields fit its tool: bash takes a command; write and edit a path (and content);
    read a path; any other tool its arguments (`args`). Raises `CallError` naming what is missing or
    does not belong."""
    if tool not in TOOLS:
        if command is not None:
            raise CallError(
                f"unknown tool {tool!r} (one of {', '.join(TOOLS)}) for a command; a call of any other"
                " tool gives its arguments as args"
            )
        if path is not None or content is not None:
            raise CallError(f"a {tool} call gives its arguments as args, not a path or content")
        return any_tool_call(tool, args)
    if args is not None:
        raise CallError(f"a {tool} call takes no args (they are for any other tool, e.g. mcp__pg__query)")
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
    """A JSON line such as `{"command": "git push -f", "cwd": "/repo"}`, `{"tool": "write", "path":
    "a.py", "content": "..."}` or `{"tool": "mcp__pg__query", "args": {"sql": "..."}}`. Raises
    `CallError` for anything else: not JSON, not an object, an unknown key, a value that is not a
    string (`args`: not an object), a field that does not fit the tool."""
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
    args = item.get("args")
    if args is not None and not isinstance(args, dict):
        raise CallError(f"'args' must be an object, not {_kind(args)}")
    fields: dict[str, str | None] = {}
    for key in KEYS[:-1]:
        value = item.get(key)
        if value is not None and not isinstance(value, str):
            raise CallError(f"{key!r} must be a string, not {_kind(value)}")
        fields[key] = value
    tool = "bash" if fields["tool"] is None else fields["tool"]
    call = tool_call(
        tool, fields["command"], fields["path"], fields["content"], cast(dict[str, object] | None, args)
    )
    cwd = Path(fields["cwd"] or default_cwd).resolve()
    return Line(call=call, cwd=cwd, branch=fields["branch"])


def _kind(value: object) -> str:
    return _JSON_TYPES.get(type(value), "null" if value is None else "a string")
