"""Rules and observers on any tool (an MCP server's `mcp__<server>__<tool>`, an extension's), read from
the JSON arguments the model sent.

A rule names its tool, or a glob of names (`mcp__github__*`); it never matches bash or the file tools,
whose own rules read their command and files. A field is a dotted path into the arguments
(`options.branch`; a number indexes a list), read as text: a string as it is, any other value as compact
JSON. A field the call does not carry never matches. Without a field, `pattern` is searched in all the
arguments as compact JSON, and a rule with neither pattern nor `sql` matches the tool itself.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from fnmatch import fnmatchcase

from rein.steering._match import tri_all
from rein.steering._pattern import found
from rein.steering._rule import Rule, Tri, Watch
from rein.steering._sql_write import sql_match
from rein.steering._types import TOOLS, ToolCall, Verdict
from rein.steering.bash import Code, Unknown

_GLOB = re.compile(r"[A-Za-z0-9_.:/@*?!\[\]-]+")
_CLASS = re.compile(r"\[!?[^\[\]]+\]")
_FIELD = re.compile(r"[A-Za-z0-9_@$-]+(?:\.[A-Za-z0-9_@$-]+)*")


def any_tool(tool: str) -> bool:
    """Whether rules on `tool` read its arguments (it is not bash nor a file tool)."""
    return tool not in TOOLS


def command_elsewhere(call: ToolCall) -> Verdict | None:
    """A command under a name that is not bash (a host that passed its shell tool unmapped) is a
    shell rein cannot read, so it is blocked (fail closed); None for any other call."""
    if not call.command:
        return None
    reason = (
        f"[steering:error@rein] unknown tool {call.tool!r} carries a command, so it is blocked."
        f" Use one of {', '.join(TOOLS)} for commands and files."
    )
    return Verdict(allow=False, reason=reason, rule="error", source="rein")


def bad_glob(glob: str) -> str | None:
    """Why `glob` is no tool name nor glob of names, or None."""
    if not _GLOB.fullmatch(glob):
        return "letters, digits, _ - . : / @ and the glob characters * ? [...] only"
    rest = _CLASS.sub("", glob)
    if "[" in rest or "]" in rest:
        return "a [ without its ] (or the other way round)"
    return None


def bad_field(field: str) -> bool:
    return _FIELD.fullmatch(field) is None


def tool_matches(glob: str, name: str) -> bool:
    """A rule's or a watch's tool against a call's: bash and the file tools by name only."""
    if glob == name:
        return True
    return any_tool(glob) and any_tool(name) and fnmatchcase(name, glob)


def compact(value: object) -> str:
    return value if isinstance(value, str) else json.dumps(value, separators=(",", ":"), default=str)


def field_text(args: Mapping[str, object], field: str) -> str | None:
    """The argument at dotted path `field` as text ("" for all of them); None when the call has none."""
    value: object = args
    for key in field.split(".") if field else ():
        if isinstance(value, Mapping) and key in value:
            value = value[key]
        elif isinstance(value, list) and key.isdigit() and int(key) < len(value):
            value = value[int(key)]
        else:
            return None
    return compact(dict(value) if isinstance(value, Mapping) else value)


def match_args(rule: Rule, call: ToolCall) -> Tri:
    """Whether `call`'s arguments match the rule's pattern, sql kinds, `requires` and `unless`."""
    text = field_text(call.args, rule.field)
    if text is None:
        return False
    results: list[Tri] = []
    matcher = rule.matcher
    if matcher.pattern is not None:
        results.append(found(matcher.pattern, text))
    if matcher.sql and False not in results:
        results.append(sql_match(Code(language="sql", text=text), matcher.sql))
    if rule.requires is not None:
        results.append(found(rule.requires, text))
    if rule.unless is not None:
        unless = found(rule.unless, text)
        results.append(unless if isinstance(unless, Unknown) else not unless)
    return tri_all(results)


def watch_args(watch: Watch, call: ToolCall) -> bool:
    """Whether an observer on another tool sees `call`: the field is there and matches its pattern."""
    if watch.pattern is None and not watch.field:
        return True
    text = field_text(call.args, watch.field)
    return text is not None and (watch.pattern is None or found(watch.pattern, text) is True)
