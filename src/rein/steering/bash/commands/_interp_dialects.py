"""Programs in a language with more in it than the language's reader knows: IPython's shell escapes
(`!cmd`, `x = !cmd`, `%sx cmd`, `%system cmd`, a `%%bash` cell) and rake's `sh "cmd"` and `ruby
"args"`, which run a command line like Kernel's `system` (plain Ruby has no `sh`, so only rake's code
reads it as one)."""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from rein.steering.bash.commands._interp_program import Program
from rein.steering.bash.launch import RUNTIME, Launch, launches
from rein.steering.bash.launch._more import LANGUAGES as MORE
from rein.steering.bash.launch._more import read as read_more

if TYPE_CHECKING:
    from tree_sitter import Node

_BANG = re.compile(r"(?:[A-Za-z_][\w.]*(?:\s*,\s*[A-Za-z_][\w.]*)*\s*=\s*)?(?:!!?|%sx\b|%system\b|%%!)(.*)")
"""A line IPython runs through a shell, with the command it runs."""
_CELL = re.compile(r"\s*%%(?:bash|sh|system|!|script\s+(?:\S*/)?(?:ba|z|da|k)?sh)\b[^\n]*\n?")
"""A cell magic that runs the rest of the cell as a shell script."""
_TREE = "rein.steering.bash.launch._tree"
_EXPANDED = re.compile(r"\{[^{}]*\}")
"""`{expr}` in a shell escape: a Python value IPython puts there at run time."""


def read(prog: Program, text: str, env: Mapping[str, str]) -> tuple[Launch, ...]:
    """The processes the program `text` would start."""
    if prog.dialect == "ipython":
        return _ipython(text, env)
    if prog.dialect == "rake":
        return launches("ruby", _rake(text), env)
    if prog.language in MORE:
        return read_more(prog.language, text, env)
    return launches(prog.language, text, env)


def _ipython(text: str, env: Mapping[str, str]) -> tuple[Launch, ...]:
    cell = _CELL.match(text)
    if cell:
        return (Launch(api="%%" + cell.group().strip()[2:].split()[0], shell=text[cell.end() :], line=2),)
    lines = text.split("\n")
    found: list[Launch] = []
    for number, line in enumerate(lines, start=1):
        stripped = line.lstrip()
        escape = _BANG.fullmatch(stripped)
        if escape is None:
            continue
        command = _EXPANDED.sub(RUNTIME, escape.group(1)).replace("$$", "$")
        found.append(Launch(api="ipython !", shell=command.lstrip(), line=number))
        lines[number - 1] = line[: len(line) - len(stripped)] + "pass"
    return (*found, *launches("python", "\n".join(lines), env))


def _rake(text: str) -> str:
    """Rake's `sh` and `ruby` calls written as the `system` calls they amount to (`ruby "x"` runs the
    line `ruby x`, `ruby "a", "b"` the argv `ruby a b`)."""
    # imported when a rake one-liner is read: a hook that meets none never loads the grammars
    parse: Callable[[str, str], tuple[Node, bytes]] = importlib.import_module(_TREE).parse
    root, src = parse("ruby", text)
    edits: list[tuple[int, int, bytes]] = []
    stack = [root]
    while stack:
        node = stack.pop()
        stack.extend(node.children)
        method = node.child_by_field_name("method")
        args = node.child_by_field_name("arguments")
        if node.type != "call" or node.child_by_field_name("receiver") is not None or method is None:
            continue
        name = src[method.start_byte : method.end_byte]
        if name not in (b"sh", b"ruby") or args is None or not args.named_children:
            continue
        edits.append((method.start_byte, method.end_byte, b"system"))
        if name == b"ruby":
            first = args.named_children[0]
            single = len(args.named_children) == 1 and first.type != "splat_argument"
            edits.append((first.start_byte, first.start_byte, b'"ruby " + ' if single else b'"ruby", '))
    for start, end, new in sorted(edits, reverse=True):
        src = src[:start] + new + src[end:]
    return src.decode("utf-8", "surrogateescape")
