"""What a dc program launches: `!cmd` runs the rest of the line as a shell command (`!<`, `!>` and
`!=` are comparisons), in a `[macro]` too, up to its end, since `x` may run it. `?` runs a line read
from the input as more dc code: unknown when the program may launch.
"""

from __future__ import annotations

from collections.abc import Mapping

from rein.steering.bash.launch._folding import unknown_launch
from rein.steering.bash.launch._launch import Launch


def read(text: str, env: Mapping[str, str]) -> tuple[Launch, ...]:
    if "!" not in text and "?" not in text:
        return ()
    found: list[Launch] = []
    depth = 0
    pos = 0
    while pos < len(text):
        char = text[pos]
        line = text.count("\n", 0, pos) + 1
        if char == "#" and depth == 0:
            end = text.find("\n", pos)
            pos = len(text) if end < 0 else end
            continue
        if char == "[":
            depth += 1
        elif char == "]" and depth:
            depth -= 1
        elif char == "?" and depth == 0:
            found.append(unknown_launch("?", "dc's ? runs a line of its input as code", line))
        elif char == "!" and text[pos + 1 : pos + 2] not in ("<", ">", "="):
            end = _line_end(text, pos + 1, depth)
            command = text[pos + 1 : end].strip()
            if command:
                found.append(Launch(api="!", shell=command, line=line))
            pos = end
            continue
        pos += 1
    return tuple(dict.fromkeys(found))


def _line_end(text: str, pos: int, depth: int) -> int:
    """Where the command from `pos` ends: the line's end, or the `]` closing the macro it is in."""
    nested = 0
    for index in range(pos, len(text)):
        char = text[index]
        if char == "\n":
            return index
        if depth and char == "[":
            nested += 1
        elif depth and char == "]":
            if nested == 0:
                return index
            nested -= 1
    return len(text)


__all__ = ["read"]
