"""What lldb's commands launch: `platform shell CMD` (and `shell CMD`), Python in `script`, an
expression that calls `system("cmd")` or `popen` in the debugged program, an alias of such a command,
and the program it debugs, which `run` starts: rein's option reader gives that as a first line,
`__rein_target__ prog args`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from rein.steering.bash.launch._folding import unknown_launch
from rein.steering.bash.launch._launch import Launch

TARGET = "__rein_target__"
_SHELL = re.compile(
    r"^\s*(?:platform\s+shell|platform\s+sh|shell)\b(?:\s+-[ht]\b|\s+-[s]\s+\S+|\s+-t\s+\S+)*\s*(?:--\s+)?(.*)$"
)
_SCRIPT = re.compile(r"^\s*(?:script|scr)\b(?:\s+(?:-l\s+\w+\s+|--\s+)?(.*))?$")
_EXPRESSION = re.compile(r"^\s*(?:expression|expr|e|print|p|po|call|dwim-print)\b(.*)$")
_SYSTEM = re.compile(r"\b(?:system|popen)\s*\(\s*(?:\"((?:\\.|[^\"\\])*)\"|([^)]*))")
_EXEC = re.compile(r"\b(?:exec[lv]p?e?|posix_spawnp?|fork|vfork|dlopen)\s*\(")
_ALIAS = re.compile(r"^\s*command\s+alias\s+\S+\s+(.*)$")


def read(text: str, env: Mapping[str, str], depth: int = 0) -> tuple[Launch, ...]:
    from rein.steering.bash.launch import launches  # the package imports the readers lazily

    found: list[Launch] = []
    lines = text.split("\n")
    for number, line in enumerate(lines, start=1):
        if line.startswith(TARGET + " "):
            found.append(Launch(api="lldb run", shell=line[len(TARGET) + 1 :], line=number))
            continue
        alias = _ALIAS.match(line)
        if alias is not None and depth < 4:
            found.extend(read(alias[1], env, depth + 1))
            continue
        shell = _SHELL.match(line)
        if shell is not None and shell[1].strip():
            found.append(Launch(api="platform shell", shell=shell[1].strip(), line=number))
            continue
        script = _SCRIPT.match(line)
        if script is not None and script[1]:
            found.extend(launches("python", script[1], env))
            continue
        expression = _EXPRESSION.match(line)
        if expression is None:
            continue
        for call in _SYSTEM.finditer(expression[1]):
            if call[1] is not None:
                found.append(
                    Launch(api="expression system()", shell=call[1].replace('\\"', '"'), line=number)
                )
            else:
                found.append(
                    unknown_launch(
                        "expression system()", "the expression runs a command built at run time", number
                    )
                )
        if _EXEC.search(expression[1]):
            found.append(
                unknown_launch(
                    "expression", "the expression starts a process in the debugged program", number
                )
            )
    return tuple(dict.fromkeys(found))


__all__ = ["TARGET", "read"]
