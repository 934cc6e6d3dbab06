"""One call of a JavaScript process API, and the launches it makes: a shell line, an argv, an argv's
stdin, code run from a string. The handlers of the APIs (`_javascript_apis`) build on these."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from rein.steering.bash.launch._launch import Launch
from rein.steering.bash.launch._tree import Node
from rein.steering.bash.launch.javascript._expr import Program
from rein.steering.bash.launch.javascript._options import option
from rein.steering.bash.launch.javascript._paths import as_path, shell_word
from rein.steering.bash.launch.javascript._refs import Ref
from rein.steering.bash.launch.javascript._values import UNKNOWN, Items, Parts, as_shell, literal

Reader = Callable[[str], tuple[Launch, ...]]
_NAMES = {"fs/promises": "fs.promises", "bun": "Bun", "deno": "Deno"}
_SYNC = frozenset(
    {"execSync", "execFileSync", "spawnSync", "execaSync", "sync", "commandSync", "execaCommandSync"}
)
"""Calls that take an `input` option: the launched command's stdin."""


@dataclass(frozen=True, slots=True)
class Site:
    """One call of a process API."""

    program: Program
    ref: Ref
    args: tuple[Node, ...]
    line: int
    read: Reader
    """Reads code the call runs from a string, one level deeper."""

    @property
    def api(self) -> str:
        return api_name(self.ref)

    def arg(self, index: int) -> Node | None:
        return self.args[index] if index < len(self.args) else None

    def unknown(self, why: str = "is called with a value built at run time") -> Launch:
        return Launch(api=self.api, unknown=f"{self.api} {why}", line=self.line)


def api_name(ref: Ref) -> str:
    """How a launch names the API: the module as imported (`child_process.execSync`, `fs.promises.rm`,
    `Bun.spawn`, `Deno.Command`), whatever name the program bound it to; a global by its name (`eval`)."""
    module = _NAMES.get(ref.module, ref.module)
    return f"{module}.{ref.name}" if module and ref.name and ref.name != module else module or ref.name


def shell(site: Site, value: Parts) -> Launch:
    """A shell line run by `site`; a line built at run time in whole is an unknown launch."""
    if value == UNKNOWN:
        return site.unknown()
    text, runtime = as_shell(value)
    why = f"{site.api} runs a line built at run time" if runtime else ""
    return Launch(api=site.api, shell=text, unknown=why, line=site.line)


def code(site: Site, value: Parts) -> list[Launch]:
    """Code run from a string: a known string is read with the same reader, at the call's line."""
    text = literal(value)
    if text is None:
        return [site.unknown("runs code built at run time")]
    return [replace(launch, line=site.line) for launch in site.read(text)]


def argv_and_options(program: Program, rest: tuple[Node, ...]) -> tuple[Items | None, Node | None]:
    """`spawn(cmd, [args], options)` or `spawn(cmd, options)`: the argument list (None when built at
    run time) and the options node."""
    if not rest:
        return Items(()), None
    is_array = program.is_array(rest[0])
    if is_array is False:
        return Items(()), rest[0]
    items = program.array(rest[0]) if is_array else None
    return items, rest[1] if len(rest) > 1 else None


def argv(site: Site, head: tuple[Parts, ...], items: Items | None) -> Launch:
    """An argv launch: the program, then the arguments (None for each built at run time); arguments
    of unknown number (a spread, a list built at run time) are the argv's `rest`."""
    program = as_path(head[0])
    if program is None:
        return site.unknown("runs a program named at run time")
    known = items.items if items is not None else ()
    words = (program, *(as_path(item) for item in (*head[1:], *known)))
    return Launch(api=site.api, argv=words, rest=items is None or items.open, line=site.line)


def fed(site: Site, launch: Launch, options: Node | None) -> Launch:
    """The launch with the `input` option of a Sync call as its stdin, a heredoc, so that a shell or an
    interpreter reading its program from stdin (`execSync("sh", {input: "..."})`) is checked."""
    if site.ref.name not in _SYNC or options is None:
        return launch
    value = option(site.program, options, "input")
    if not isinstance(value, Node):
        return launch
    text, _ = as_shell(site.program.string(value))
    if launch.shell is None and not launch.argv:
        return launch
    words = (*launch.argv, *((None,) if launch.rest else ()))
    line = launch.shell if launch.shell is not None else " ".join(shell_word(word) for word in words)
    tag = "REIN_INPUT"
    while tag in text or tag in line:
        tag += "_"
    return replace(launch, shell=f"{line} <<'{tag}'\n{text}\n{tag}", argv=(), rest=False)
