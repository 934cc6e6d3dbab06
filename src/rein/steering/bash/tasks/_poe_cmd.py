"""A poethepoet `cmd` task's words (https://poethepoet.natn.io/tasks/task_types/cmd.html): split
like a POSIX shell but without one (no pipes, `;` or `&&`: those are arguments), line breaks are
blanks, `#` starts a comment, `'...'` is literal, `"..."` and bare text expand `$VAR` and `${VAR}`
(from the task's environment and its arguments), unquoted glob characters stay globs."""

from __future__ import annotations

import re
from collections.abc import Mapping

from rein.steering.bash.launch import RUNTIME

_PARAM = re.compile(r"\$(?:\{([A-Za-z_][A-Za-z0-9_]*)([^}]*)\}|([A-Za-z_][A-Za-z0-9_]*))")


def expand(text: str, env: Mapping[str, str]) -> str:
    """`$VAR` and `${VAR}` replaced by their values (`RUNTIME` when not known: the host's
    environment); `${VAR:-x}`-style operations are known only at run time."""

    def one(found: re.Match[str]) -> str:
        name = found.group(1) or found.group(3)
        if found.group(2):
            return RUNTIME
        return env.get(name, RUNTIME)

    return _PARAM.sub(one, text)


def words(content: str, env: Mapping[str, str]) -> list[str | None]:
    """The argv; a word wholly one unknown expansion is None (poe does not split expansions)."""
    found: list[str | None] = []
    word: list[str] = []
    started = False
    only_unknown = True
    at = 0
    while at < len(content):
        char = content[at]
        if char in " \t\r\n\f\v":
            if started:
                found.append(None if only_unknown and "".join(word) == RUNTIME else "".join(word))
            word, started, only_unknown = [], False, True
            at += 1
            continue
        if char == "#" and not started:
            end = content.find("\n", at)
            at = len(content) if end < 0 else end
            continue
        started = True
        if char == "'":
            end = content.find("'", at + 1)
            end = len(content) if end < 0 else end
            word.append(content[at + 1 : end])
            only_unknown = False
            at = end + 1
        elif char == '"':
            end = at + 1
            while end < len(content) and content[end] != '"':
                end += 2 if content[end] == "\\" else 1
            inner = re.sub(r'\\([$"\\`])', r"\1", content[at + 1 : end])
            word.append(expand(inner, env))
            only_unknown = False
            at = end + 1
        elif char == "\\" and at + 1 < len(content):
            word.append(content[at + 1])
            only_unknown = False
            at += 2
        elif char == "$" and (param := _PARAM.match(content, at)) is not None:
            word.append(expand(param.group(), env))
            at = param.end()
        else:
            word.append(char)
            only_unknown = False
            at += 1
    if started:
        found.append(None if only_unknown and "".join(word) == RUNTIME else "".join(word))
    return found
