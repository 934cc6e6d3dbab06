"""Finding a task runner's file and turning what its reader says into inner commands: the machinery
the task runners (`_tasks`) share.

A file comes from what this line wrote into it, else from disk (`call.disk`); each command says the
file and line it comes from; the person's file is read leniently, one the agent wrote, or a task given
words only known at run time, strictly.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeAlias

from rein.steering.bash._disk import Read
from rein.steering.bash.commands._inner import NOTHING, Argv, Call, Inner, Unwrapped
from rein.steering.bash.commands._sources import file_text
from rein.steering.bash.model import Unknown, Word

if TYPE_CHECKING:
    from rein.steering.bash.tasks import TaskCommand, TaskPlan

_ROUNDS = 8
"""Times a reader is called again with the files it named (an include's includes)."""

Reader: TypeAlias = "Callable[[str, Mapping[str, str | None]], TaskPlan]"


@dataclass(frozen=True, slots=True)
class _Found:
    path: str
    text: str | None
    note: str
    read: Read | None


def find(call: Call, names: Sequence[str], base: str, up: bool) -> _Found | None:
    """The first of `names` in `base` (and, with `up`, in each directory above it): what the line
    wrote there, else what is on disk."""
    directory = posixpath.normpath(base)
    while True:
        for name in names:
            path = f"{directory.rstrip('/')}/{name}"
            if path in call.files or (call.disk is not None and call.disk.exists(path)):
                text, note = file_text(call, Word.literal(path), "a task file")
                read = call.disk.of(text) if call.disk is not None and text is not None else None
                return _Found(path, text, note, read)
        if not up or directory == "/":
            return None
        directory = posixpath.dirname(directory)


def _plan(call: Call, found: _Found, reader: Reader) -> tuple[TaskPlan, bool]:
    """The reader's plan with every file it names read (bounded), and whether all of them were the
    person's files on disk."""
    assert found.text is not None
    files: dict[str, str | None] = {}
    lenient = found.read is not None and found.read.lenient
    plan = reader(found.text, files)
    for _ in range(_ROUNDS):
        wanted = [path for path in plan.includes if path not in files]
        if not wanted:
            break
        for path in wanted:
            full = posixpath.normpath(posixpath.join(posixpath.dirname(found.path), path))
            text, _ = file_text(call, Word.literal(full), "an included task file")
            read = call.disk.of(text) if call.disk is not None and text is not None else None
            lenient = lenient and (text is None or (read is not None and read.lenient))
            files[path] = text
        plan = reader(found.text, files)
    return plan, lenient


def run_task(call: Call, label: str, found: _Found | None, reader: Reader, dynamic: bool) -> Unwrapped:
    """The inner commands of one task, from the task file `found`."""
    if found is None:
        return NOTHING
    if found.text is None:
        return Unwrapped(notes=(found.note,)) if found.note else NOTHING
    plan, lenient = _plan(call, found, reader)
    lenient = lenient and not dynamic  # words only known at run time are the agent's, not the file's
    directory = posixpath.dirname(found.path)
    shown = call.disk.label(found.path) if call.disk is not None else found.path
    inners = [_inner(label, command, directory, shown, lenient, call) for command in plan.commands]
    unknown = tuple(f"{label}: {why}" for why in plan.unknown)
    return Unwrapped(tuple(inners), () if lenient else unknown, tolerated=unknown if lenient else ())


def _inner(label: str, command: TaskCommand, directory: str, shown: str, lenient: bool, call: Call) -> Inner:
    file = command.file or shown
    if command.file and call.disk is not None:
        file = call.disk.label(posixpath.normpath(posixpath.join(directory, command.file)))
    origin = f"{file}:{command.line}" if command.line else file
    cwd = Word.literal(posixpath.normpath(posixpath.join(directory, command.cwd or ".")))
    env = tuple((name, Word.literal(value)) for name, value in command.env)
    why = f"{label} runs {command.where}"
    if command.shell in ("", "sh", "bash", "zsh", "dash", "ksh"):
        return Inner(
            label,
            "child",
            script=command.script,
            cwd=cwd,
            env_set=env,
            why=why,
            origin=origin,
            lenient=lenient,
        )
    argv = tuple(Word.literal(word) for word in (command.shell, "-c", command.script))
    return Inner(label, "child", argv=argv, cwd=cwd, env_set=env, why=why, origin=origin, lenient=lenient)


def base_of(call: Call, directory: Word | None) -> str | None:
    cwd = call.state.cwd
    if isinstance(cwd, Unknown) or (directory is not None and directory.dynamic):
        return None
    return posixpath.normpath(posixpath.join(cwd, directory.value)) if directory is not None else cwd


def words_of(words: Argv) -> list[str | None]:
    return [None if word.dynamic else word.value for word in words]


def runtime_words(words: Argv) -> bool:
    return any(word.dynamic for word in words)


def unknown_task(call: Call, label: str, found: _Found | None) -> Unwrapped:
    """A task named only at run time: which one runs is not known (no finding in the person's file)."""
    if found is None or found.text is None:
        return NOTHING
    why = f"{label} runs a task only known at run time"
    return (
        Unwrapped(tolerated=(why,))
        if found.read is not None and found.read.lenient
        else Unwrapped(notes=(why,))
    )
