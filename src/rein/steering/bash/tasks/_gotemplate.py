"""go-task's Go templates (https://taskfile.dev/usage/#variables), as far as they are static:
`{{.VAR}}` with a known value, `{{.VAR | default "x"}}`, a string literal. Any other action (a
function, a pipeline, `{{if}}...{{end}}`, `{{range}}...{{end}}`) is `RUNTIME` as a whole, and so is
a variable not defined in the Taskfile (go-task also reads the environment)."""

from __future__ import annotations

import re
from collections.abc import Mapping

from rein.steering.bash.launch import RUNTIME

_ACTION = re.compile(r"\{\{-?\s*(.*?)\s*-?\}\}", re.DOTALL)
_VAR = re.compile(r"\.([A-Za-z_][A-Za-z0-9_]*)")
_DEFAULT = re.compile(
    r'\.([A-Za-z_][A-Za-z0-9_]*)\s*\|\s*default\s+"((?:[^"\\]|\\.)*)"|default\s+"((?:[^"\\]|\\.)*)"\s+\.([A-Za-z_][A-Za-z0-9_]*)'
)
_STRING = re.compile(r'"((?:[^"\\]|\\.)*)"|`([^`]*)`')
_OPENS = re.compile(r"(if|range|with|block|define)\b")


def render(text: str, scope: Mapping[str, str]) -> str:
    """`text` with its actions replaced; a block (`{{if}}` to its `{{end}}`) is one `RUNTIME`."""
    if "{{" not in text:
        return text
    out: list[str] = []
    at, depth = 0, 0
    for action in _ACTION.finditer(text):
        body = action.group(1)
        if depth == 0:
            out.append(text[at : action.start()])
        if _OPENS.match(body):
            if depth == 0:
                out.append(RUNTIME)
            depth += 1
        elif body == "end" or body.startswith("end "):
            depth = max(depth - 1, 0)
        elif depth == 0:
            out.append(_action(body, scope))
        at = action.end()
    if depth == 0:
        out.append(text[at:])
    return "".join(out)


def _action(body: str, scope: Mapping[str, str]) -> str:
    if (var := _VAR.fullmatch(body)) is not None:
        return scope.get(var.group(1), RUNTIME)
    if (default := _DEFAULT.fullmatch(body)) is not None:
        name = default.group(1) or default.group(4)
        fallback = default.group(2) if default.group(2) is not None else default.group(3)
        value = scope.get(name)
        return value if value else _unquote(fallback)
    if (string := _STRING.fullmatch(body)) is not None:
        return _unquote(string.group(1)) if string.group(1) is not None else string.group(2)
    return RUNTIME


def _unquote(text: str) -> str:
    return re.sub(r"\\(.)", lambda m: {"n": "\n", "t": "\t"}.get(m.group(1), m.group(1)), text)
