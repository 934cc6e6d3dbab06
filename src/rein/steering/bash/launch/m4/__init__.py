"""What an m4 input launches: `syscmd(cmd)` and `esyscmd(cmd)` (`m4_syscmd` with `-P`) run a shell
line. An argument is the text up to the `,` or `)` that ends it, with one level of m4's quotes
(`` `...' ``) removed. A program that defines macros, changes its quotes or calls a builtin by name
(`define`, `changequote`, `indir`, `builtin`) may change what that text becomes: a `syscmd` in it is
unknown.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from rein.steering.bash.launch._folding import unknown_launch
from rein.steering.bash.launch._launch import Launch

_CALL = re.compile(r"(?<![A-Za-z0-9_])(?:m4_)?(e?syscmd)(?![A-Za-z0-9_])")
_DYNAMIC = re.compile(
    r"(?<![A-Za-z0-9_])(?:m4_)?(?:define|pushdef|changequote|changeword|changecom|indir|builtin|include|"
    r"sinclude|m4wrap|undivert|defn)(?![A-Za-z0-9_])"
)


def read(text: str, env: Mapping[str, str]) -> tuple[Launch, ...]:
    found: list[Launch] = []
    dynamic = _DYNAMIC.search(text) is not None
    for match in _CALL.finditer(text):
        line = text.count("\n", 0, match.start()) + 1
        api = match[1]
        if dynamic:
            found.append(
                unknown_launch(api, f"the m4 input redefines what {api}'s argument expands to", line)
            )
            continue
        if not text.startswith("(", match.end()):
            continue
        command = _argument(text, match.end() + 1)
        if command is None:
            found.append(unknown_launch(api, f"{api}'s argument does not end", line))
        elif command.strip():
            found.append(Launch(api=api, shell=command, line=line))
    return tuple(dict.fromkeys(found))


def _argument(text: str, pos: int) -> str | None:
    """The first argument from `pos` on, one level of quotes removed; None when it never ends."""
    out: list[str] = []
    quotes = parens = 0
    while pos < len(text):
        char = text[pos]
        pos += 1
        if char == "`":
            quotes += 1
            if quotes == 1:
                continue
        elif char == "'" and quotes:
            quotes -= 1
            if quotes == 0:
                continue
        elif not quotes and char == "(":
            parens += 1
        elif not quotes and char == ")":
            if parens == 0:
                return "".join(out)
            parens -= 1
        elif not quotes and not parens and char == ",":
            return "".join(out)
        out.append(char)
    return None


__all__ = ["read"]
