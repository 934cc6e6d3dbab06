"""`make` as a runner: the recipes of the makefile it reads.

A makefile this command line wrote or fed it (`-f -` with a heredoc, `-f <(printf ...)`, `--eval`, a
`Makefile` written earlier in the line) is read whole: every recipe is checked, as text the line wrote.
A makefile on disk (`make test` with a `Makefile` in the directory) is read from disk with its
`include`s, and only the recipes make runs for the goals given (the default goal without one) are
checked; each command says the file and line it comes from (`Makefile:12`). A goal only known at run
time makes which recipes run unknown: for the person's own makefile that is no finding, for one the
agent wrote it is unknown.
"""

from __future__ import annotations

import importlib
import posixpath
from dataclasses import replace
from typing import TYPE_CHECKING

from rein.steering.bash._disk import Read
from rein.steering.bash._effects import join_path
from rein.steering.bash.commands._inner import Call, Unwrapped
from rein.steering.bash.commands._options import Parsed, parse
from rein.steering.bash.commands._programs import launched
from rein.steering.bash.commands._sources import STDIN_PATHS, disk_text, file_text
from rein.steering.bash.commands._tables import spec
from rein.steering.bash.launch import Launch, launches
from rein.steering.bash.model import Unknown, Word

if TYPE_CHECKING:
    from rein.steering.bash.launch.make import Include

_DEFAULT_NAMES = ("GNUmakefile", "makefile", "Makefile")


def make(call: Call) -> Unwrapped:
    parsed = parse(call.argv, 1, spec("make"))
    directory = parsed.last("-C", "--directory")
    base = _base(call, directory)
    texts: list[str] = []
    notes: list[str] = []
    files = parsed.values("-f", "--file", "--makefile")
    for word in files or _default_makefile(call, base):
        text, note = file_text(call, _in(base, word), "a makefile")
        texts.extend([text] if text is not None else [])
        notes.extend([note] if note else [])
    evals = parsed.values("--eval", "-E")
    for word in evals:
        if word.dynamic:
            notes.append(f"make --eval text is dynamic: {word.raw}")
        texts.append(word.value)
    if not texts:
        return Unwrapped(notes=tuple(notes))
    env = {name: value for name, value in call.state.env.items() if isinstance(value, str)}
    disk = call.disk.of(texts[0]) if call.disk is not None and len(texts) == 1 and not evals else None
    if disk is None:
        found = launched("make", launches("make", "\n".join(texts), env))
    else:
        goals = _goals(parsed)
        if goals is None:
            unknown = f"make builds a goal only known at run time from {disk.label}"
            return Unwrapped(tolerated=(unknown,)) if disk.lenient else Unwrapped(notes=(unknown,))
        strict: list[str] = []
        try:
            # The reader is loaded when a make command is met (a hook that meets none never loads it).
            reader = importlib.import_module("rein.steering.bash.launch.make")
            include = _includer(call, base, parsed, disk, strict)
            read = reader.read(texts[0], env, goals=goals, include=include)
        except Exception as error:  # a reader's bug: what it would run is unknown, never a crash
            read = (Launch(api="make", unknown=f"reading {disk.label} failed: {error!r}"),)
        found = launched("make", read, "", replace(disk, lenient=disk.lenient and not strict))
    inners = tuple(job if directory is None else replace(job, cwd=directory) for job in found.inners)
    return Unwrapped(inners, (*notes, *found.notes), tolerated=found.tolerated)


def _base(call: Call, directory: Word | None) -> str | None:
    """The directory make runs in, when rein can tell."""
    if directory is not None and directory.dynamic:
        return None
    base = join_path(call.state.cwd, directory.value) if directory is not None else call.state.cwd
    return None if isinstance(base, Unknown) else base


def _in(base: str | None, word: Word) -> Word:
    """A `-f` makefile as make finds it: relative to the directory `-C` moved it to."""
    if base is None or word.dynamic or word.value in STDIN_PATHS or word.value.startswith("/"):
        return word
    return Word.literal(posixpath.normpath(posixpath.join(base, word.value)))


def _default_makefile(call: Call, base: str | None) -> list[Word]:
    """The makefile make reads without `-f`: the first of its default names this command line wrote,
    or, on disk, that exists."""
    if base is None:
        return []
    for name in _DEFAULT_NAMES:
        if f"{base}/{name}" in call.files or call.files_unknown:
            return [Word.literal(f"{base}/{name}")]
    if call.disk is not None:
        for name in _DEFAULT_NAMES:
            if call.disk.exists(f"{base}/{name}"):
                return [Word.literal(f"{base}/{name}")]
    return []


def _goals(parsed: Parsed) -> list[str] | None:
    """The goals given (not `VAR=value` words); None when one is only known at run time."""
    goals: list[str] = []
    for word in parsed.operands:
        if word.dynamic:
            return None
        if "=" not in word.value:
            goals.append(word.value)
    return goals


def _includer(call: Call, base: str | None, parsed: Parsed, disk: Read, strict: list[str]) -> Include:
    """Reads an included makefile from disk: relative to make's directory, then each `-I` directory.
    An included file the agent wrote makes the whole read strict (`strict` gets its name)."""
    home = base or posixpath.dirname(disk.path)
    dirs = [home, *(word.value for word in parsed.values("-I", "--include-dir") if not word.dynamic)]

    def include(name: str) -> str | None:
        for directory in dirs if not name.startswith("/") else ["/"]:
            path = posixpath.normpath(posixpath.join(home, directory, name))
            text, _ = disk_text(call, path, name)
            if text is not None:
                read = call.disk.of(text) if call.disk is not None else None
                if read is not None and not read.lenient:
                    strict.append(name)
                return text
        return None

    return include
