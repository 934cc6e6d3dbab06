"""Argument reading shared by the built-in tools: one clear error per bad argument."""

from __future__ import annotations

import posixpath
from collections.abc import Mapping
from typing import overload

from rein.agent._tool import ToolError


def text(args: Mapping[str, object], key: str, *, required: bool = True, default: str = "") -> str:
    value = args.get(key)
    if value is None:
        if required:
            raise ToolError(f"missing required argument {key!r}")
        return default
    if not isinstance(value, str):
        raise ToolError(f"argument {key!r} must be a string")
    return value


@overload
def integer(args: Mapping[str, object], key: str, default: int, minimum: int = 0) -> int: ...
@overload
def integer(args: Mapping[str, object], key: str, default: None = None, minimum: int = 0) -> int | None: ...
def integer(args: Mapping[str, object], key: str, default: int | None = None, minimum: int = 0) -> int | None:
    value = args.get(key)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int | float) or int(value) != value:
        raise ToolError(f"argument {key!r} must be an integer")
    if value < minimum:
        raise ToolError(f"argument {key!r} must be at least {minimum}")
    return int(value)


def flag(args: Mapping[str, object], key: str) -> bool:
    value = args.get(key, False)
    if not isinstance(value, bool):
        raise ToolError(f"argument {key!r} must be true or false")
    return value


def resolve(path: str, cwd: str) -> str:
    """An absolute, normalized path; `~` is the user's home."""
    expanded = posixpath.expanduser(path)
    return posixpath.normpath(posixpath.join(cwd, expanded))
