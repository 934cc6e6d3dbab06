"""xonsh: Python whose lines may be shell commands. A line that is no Python statement (`git push -f`),
or only names joined by operators (`ls -l`, which xonsh runs as a command when `ls` is no variable),
is a command line; `$(cmd)`, `!(cmd)`, `$[cmd]` and `![cmd]` inside Python are command lines too.
The rest is read as Python."""

from __future__ import annotations

import ast
import re
from collections.abc import Mapping

from rein.steering.bash.launch._launch import Launch
from rein.steering.bash.launch.shells._lex import Dialect
from rein.steering.bash.launch.shells._reader import translate

_XONSH = Dialect(
    "fish", substs=("$(", "!("), redirects={">": ">", ">>": ">>", "<": "<", "2>": "2>", "e>": "2>"}
)
_CAPTURE = re.compile(r"[$!]\(([^()]*)\)|[$!]\[([^\[\]]*)\]")


def xonsh(text: str, env: Mapping[str, str]) -> tuple[Launch, ...]:
    from rein.steering.bash.launch import launches  # the package imports this module

    shell: list[str] = []
    python: list[str] = []
    for line in text.split("\n"):
        stripped = line.strip()
        indent = line[: len(line) - len(line.lstrip())]
        if stripped and _is_command(_CAPTURE.sub("None", stripped)):
            shell.append(stripped)
            python.append(indent + "pass")
            continue
        for match in _CAPTURE.finditer(line):
            shell.append(match[1] if match[1] is not None else match[2])
        python.append(_CAPTURE.sub("None", line))
    found: list[Launch] = []
    if shell:
        script, notes = translate("\n".join(shell), _XONSH)
        if script.strip() or notes:
            found.append(Launch(api="xonsh command", shell=script or None, unknown="; ".join(notes)))
    return (*found, *launches("python", "\n".join(python), env))


def _is_command(line: str) -> bool:
    if line.startswith(("#", "@")) or line.endswith(":"):
        return False
    try:
        tree = ast.parse(line)
    except SyntaxError:
        return not line.startswith(("else", "elif", "except", "finally", ")", "]", "}"))
    if len(tree.body) != 1 or not isinstance(tree.body[0], ast.Expr):
        return False
    return all(
        isinstance(node, (ast.Name, ast.BinOp, ast.UnaryOp, ast.Load, ast.operator, ast.unaryop, ast.Expr))
        for node in ast.walk(tree.body[0])
    )
