"""Scope tokens and path globs.

A scope is a comma-separated string or a list of tokens:

- `text`, `thinking`: assistant prose, reasoning;
- `tool` or `toolcall`: every tool call;
- `tool:<name>` or a bare `<name>`: one tool (names are case-insensitive);
- `tool:<name>(<glob>)`, `tool(<glob>)`: a tool call whose file path matches the glob;
- `line`, `chunk`, `accumulated`: how far a match may reach (the first design's `scope`); reserved words,
  never tool names.

Globs are case-sensitive and match the full path or its basename: `*` stays within one path segment,
`**` crosses segments (`**/` also matches no directory), `?` is one character, `[abc]`/`[!abc]` a class,
`{a,b}` an alternation. Backslashes in paths are read as `/`.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable

from rein.ttsr._rule import EXTENTS, Extent, Scope, ToolScope

_TOOL_TOKEN = re.compile(
    r"^(?:(?P<prefix>tool|toolcall)(?::(?P<name>[A-Za-z0-9_.-]+))?|(?P<bare>[A-Za-z0-9_.-]+))"
    r"(?:\((?P<glob>[^()]*)\))?$",
    re.IGNORECASE,
)


class ScopeError(ValueError):
    """A scope or glob that cannot be read; the message says which token and why."""


def split_list(value: object, what: str) -> list[str]:
    """A YAML string (comma-separated, commas inside `()`, `[]` or `{}` kept) or list of strings."""
    if isinstance(value, str):
        items = [value]
    elif isinstance(value, list) and all(isinstance(item, str) for item in value):
        items = [str(item) for item in value]
    else:
        raise ScopeError(f"{what} must be a string or a list of strings, not {type(value).__name__}")
    tokens: list[str] = []
    for item in items:
        depth, start = 0, 0
        for i, char in enumerate(item):
            if char in "([{":
                depth += 1
            elif char in ")]}":
                depth = max(0, depth - 1)
            elif char == "," and depth == 0:
                tokens.append(item[start:i])
                start = i + 1
        tokens.append(item[start:])
    return [token.strip() for token in tokens if token.strip()]


def parse_scope(value: object) -> tuple[Scope | None, Extent | None]:
    """Read a `scope` value into the streams it watches and the extent it names (either may be None).

    None for the streams means the value named only an extent (`scope: line`), so the default applies.
    """
    # A token left quoted by hand-written YAML (`scope: text, "thinking"`) means the token inside.
    tokens = [_unquote(token) for token in split_list(value, "scope")]
    tokens = [token for token in tokens if token]
    if not tokens:
        raise ScopeError("scope is empty: it reaches no stream")
    extent: Extent | None = None
    text = thinking = any_tool = False
    tools: list[ToolScope] = []
    named_stream = False
    for token in tokens:
        lowered = token.lower()
        if lowered in EXTENTS:
            if extent is not None and extent != lowered:
                raise ScopeError(f"scope names two extents: {extent!r} and {lowered!r}")
            extent = next(e for e in EXTENTS if e == lowered)
            continue
        named_stream = True
        if lowered == "text":
            text = True
        elif lowered == "thinking":
            thinking = True
        elif lowered in {"tool", "toolcall"}:
            any_tool = True
        else:
            tools.append(_tool_token(token))
    if not named_stream:
        return None, extent
    return Scope(text=text, thinking=thinking, any_tool=any_tool, tools=tuple(tools)), extent


def _unquote(token: str) -> str:
    if len(token) >= 2 and token[0] in {"'", '"'} and token[-1] == token[0]:
        return token[1:-1].strip()
    return token


def _tool_token(token: str) -> ToolScope:
    match = _TOOL_TOKEN.match(token)
    if match is None:
        raise ScopeError(
            f"bad scope token {token!r}: expected text, thinking, tool, tool:<name>, <name>, "
            "tool:<name>(<glob>) or tool(<glob>)"
        )
    name = match.group("name") or (None if match.group("prefix") else match.group("bare"))
    glob = match.group("glob")
    if glob is not None:
        glob = glob.strip()
        if not glob:
            raise ScopeError(f"bad scope token {token!r}: the glob in parentheses is empty")
        compile_glob(glob)
    if name is not None and name.lower() in EXTENTS:
        raise ScopeError(f"bad scope token {token!r}: {name!r} is an extent, not a tool")
    return ToolScope(name=name.lower() if name else None, glob=glob)


@functools.lru_cache(maxsize=1024)
def compile_glob(glob: str) -> re.Pattern[str]:
    """Translate a glob into an anchored, case-sensitive regular expression."""
    out: list[str] = []
    i, depth, n = 0, 0, len(glob)
    while i < n:
        char = glob[i]
        if char == "*":
            if glob.startswith("**", i):
                i += 2
                if glob.startswith("/", i):
                    out.append("(?:.*/)?")
                    i += 1
                else:
                    out.append(".*")
                continue
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "[":
            end = glob.find("]", i + 2 if glob.startswith(("[!", "[^"), i) else i + 1)
            if end < 0:
                raise ScopeError(f"bad glob {glob!r}: '[' has no closing ']'")
            inner = glob[i + 1 : end]
            if inner[:1] in {"!", "^"}:
                inner = "^" + inner[1:]
            out.append("[" + inner.replace("\\", "\\\\") + "]")
            i = end
        elif char == "{":
            depth += 1
            out.append("(?:")
        elif char == "}" and depth:
            depth -= 1
            out.append(")")
        elif char == "," and depth:
            out.append("|")
        else:
            out.append(re.escape(char))
        i += 1
    if depth:
        raise ScopeError(f"bad glob {glob!r}: '{{' has no closing '}}'")
    try:
        return re.compile("".join(out) + r"\Z")
    except re.error as error:
        raise ScopeError(f"bad glob {glob!r}: {error}") from None


def normalize_path(path: str) -> str:
    path = path.replace("\\", "/")
    while path.startswith("./"):
        path = path[2:]
    return path


def glob_matches(glob: str, paths: Iterable[str]) -> str | None:
    """The first path whose full form or basename matches `glob`, or None."""
    pattern = compile_glob(glob)
    for path in paths:
        normalized = normalize_path(path)
        if pattern.match(normalized):
            return path
        base = normalized.rsplit("/", 1)[-1]
        if base != normalized and pattern.match(base):
            return path
    return None


def check_globs(globs: Iterable[str]) -> None:
    """Raise `ScopeError` for the first glob that cannot be compiled."""
    for glob in globs:
        compile_glob(glob)
