"""The values every task reader returns, the builder that collects them within fixed bounds, and the
helpers the readers share: rendering an argv, naming an interpreter, never raising."""

from __future__ import annotations

import posixpath
import re
import shlex
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from rein.steering.bash.launch import RUNTIME

MAX_TEXT = 256 * 1024
"""A file larger than this is not read (a task file that size is generated, or an attack)."""
MAX_STEPS = 2_000
"""Tasks visited, templates expanded and include levels followed, all counted together, per call."""


@dataclass(frozen=True, slots=True, kw_only=True)
class TaskCommand:
    """One command a task runs (or may run: a reader never decides a condition known at run time)."""

    script: str
    """One command line as the runner hands it to its interpreter, after the runner's own static
    interpolation; a part only known at run time is the literal text `RUNTIME`. For an argv
    (`shell == ""`) the arguments joined as a shell would read them: known ones quoted, one unknown
    argument `"${__rein_runtime__}"`, any number of unknown arguments `${__rein_runtime__}` unquoted."""
    line: int
    """1-based line in the file where the command is written, 0 when not known."""
    where: str
    """How a person finds it: `justfile recipe test`, `Taskfile.yml tasks.build.cmds[1]`."""
    shell: str = "sh"
    """The interpreter that runs `script` (`sh`, `bash`, `python`, `node`, ...); "" for an argv."""
    cwd: str | None = None
    """The directory it runs in, relative to the file's directory, when the task sets one. It may hold
    `RUNTIME` (just's `[no-cd]`: the directory just was started in)."""
    env: tuple[tuple[str, str], ...] = ()
    """Environment variables the runner sets for it, as far as they are static (a run-time part is
    `RUNTIME`): justfile `export`, Taskfile `env:`, tox `set_env`, poe and mise `env`."""
    file: str = ""
    """The included file the command is written in (a path as in `TaskPlan.includes`); "" for the
    file the reader was called on."""


@dataclass(frozen=True, slots=True, kw_only=True)
class TaskPlan:
    """What running one task would run, in the order the runner runs it (dependencies first)."""

    commands: tuple[TaskCommand, ...] = ()
    unknown: tuple[str, ...] = ()
    """Why part of what runs cannot be known statically. A task that does not exist is not unknown:
    the runner stops with an error and runs nothing, so the plan is empty."""
    includes: tuple[str, ...] = ()
    """Other files the runner reads for this task, as paths relative to the called file's directory
    (as written, normalized): read them and call again with them in `files`."""


class Plan:
    """Collects one call's commands, each once, and counts its steps against `MAX_STEPS`."""

    def __init__(self) -> None:
        self.commands: dict[TaskCommand, None] = {}
        self.unknown: dict[str, None] = {}
        self.includes: dict[str, None] = {}
        self.steps = 0

    def add(self, command: TaskCommand) -> None:
        self.commands.setdefault(command)

    def why(self, reason: str) -> None:
        self.unknown.setdefault(reason)

    def include(self, path: str) -> None:
        self.includes.setdefault(path)

    def step(self) -> bool:
        """Count one step; False (and one unknown reason) once the budget is spent."""
        self.steps += 1
        if self.steps > MAX_STEPS:
            self.why(f"more than {MAX_STEPS} tasks, templates or includes to follow: not all were read")
            return False
        return True

    def done(self) -> TaskPlan:
        return TaskPlan(
            commands=tuple(self.commands), unknown=tuple(self.unknown), includes=tuple(self.includes)
        )


def guarded(kind: str, texts: Iterable[str | None], read: Callable[[], TaskPlan]) -> TaskPlan:
    """`read()`, unless a text is too large; a reader's bug or a nesting too deep for Python becomes
    an unknown plan, never an exception: a command rein cannot read must not pass unseen."""
    total = sum(len(text) for text in texts if text is not None)
    if total > MAX_TEXT:
        return TaskPlan(unknown=(f"the {kind} is larger than {MAX_TEXT // 1024} KB: not read",))
    try:
        return read()
    except RecursionError:
        return TaskPlan(unknown=(f"the {kind} nests too deeply to read",))
    except Exception as error:  # fail closed: an unreadable file blocks rather than passes
        return TaskPlan(unknown=(f"reading the {kind} failed: {error!r}",))


_GLOB = re.compile(r"[*?\[]")


def join_argv(argv: Iterable[str | None], *, globs: bool = False) -> str:
    """An argv as shell text. None is one argument known only at run time; an argument that is
    exactly `RUNTIME` is any number of them (`{posargs}`, `*session.posargs`); `RUNTIME` inside an
    argument is a part of it. With `globs`, an argument with glob characters stays unquoted (a
    runner that expands globs itself, as poe does)."""
    words: list[str] = []
    for arg in argv:
        if arg is None:
            words.append(f'"{RUNTIME}"')
        elif arg == RUNTIME:
            words.append(RUNTIME)
        elif globs and _GLOB.search(arg) and RUNTIME not in arg:
            words.append(re.sub(r"([^\w*?\[\]!/.,:=@%+-])", r"\\\1", arg))
        else:
            pieces = arg.split(RUNTIME)
            words.append(f'"{RUNTIME}"'.join(shlex.quote(piece) if piece else "" for piece in pieces))
    return " ".join(word or "''" for word in words)


_VERSION = re.compile(r"(?<=[a-z])[\d.]+$")
_NAMES = {"nodejs": "node", "pwsh": "pwsh", "powershell": "pwsh", "posix": "sh"}


def interpreter(command: str | Iterable[str]) -> str:
    """The interpreter's name in a shebang line or a shell setting: `#!/usr/bin/env python3` and
    `["python3.11", "-c"]` are `python`, `/bin/bash -euo pipefail` is `bash`; "" for none."""
    words = command.removeprefix("#!").split() if isinstance(command, str) else list(command)
    if words and posixpath.basename(words[0]) == "env":
        words = [word for word in words[1:] if not word.startswith("-") and "=" not in word]
    if not words:
        return ""
    name = posixpath.basename(words[0].replace("\\", "/")).lower().removesuffix(".exe")
    name = _VERSION.sub("", name) or name
    return _NAMES.get(name, name)


def shell_quote(value: str) -> str:
    """Quote a value for a POSIX shell, keeping `RUNTIME` parts readable as variables."""
    return join_argv([value])


def joined(base: str, path: str) -> str:
    """`path` as seen from the directory of `base` (both relative to the called file's directory);
    absolute and home paths stay as written."""
    if path.startswith("~"):
        return path
    return posixpath.normpath(posixpath.join(posixpath.dirname(base), path))


def lookup(files: Mapping[str, str | None] | None, path: str) -> tuple[bool, str | None]:
    """(whether the caller read `path`, its text: None when it does not exist or cannot be read)."""
    if files is None or path not in files:
        return False, None
    return True, files[path]
