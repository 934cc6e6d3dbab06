"""`make` as a runner: the recipes of a makefile this command line wrote or fed it (`-f -` with a
heredoc, `-f <(printf ...)`, `--eval`, a `Makefile` written earlier in the line). A makefile on disk
that the line did not write is the project's own and is not read."""

from __future__ import annotations

from dataclasses import replace

from rein.steering.bash._effects import join_path
from rein.steering.bash.commands._inner import Call, Unwrapped
from rein.steering.bash.commands._options import parse
from rein.steering.bash.commands._programs import launched
from rein.steering.bash.commands._sources import file_text
from rein.steering.bash.commands._tables import spec
from rein.steering.bash.launch import launches
from rein.steering.bash.model import Unknown, Word

_DEFAULT_NAMES = ("GNUmakefile", "makefile", "Makefile")


def make(call: Call) -> Unwrapped:
    parsed = parse(call.argv, 1, spec("make"))
    texts: list[str] = []
    notes: list[str] = []
    files = parsed.values("-f", "--file", "--makefile")
    for word in files or _default_makefile(call, parsed.last("-C", "--directory")):
        text, note = file_text(call, word, "a makefile")
        texts.extend([text] if text is not None else [])
        notes.extend([note] if note else [])
    for word in parsed.values("--eval", "-E"):
        if word.dynamic:
            notes.append(f"make --eval text is dynamic: {word.raw}")
        texts.append(word.value)
    if not texts:
        return Unwrapped(notes=tuple(notes))
    env = {name: value for name, value in call.state.env.items() if isinstance(value, str)}
    found = launched("make", launches("make", "\n".join(texts), env))
    directory = parsed.last("-C", "--directory")
    inners = tuple(job if directory is None else replace(job, cwd=directory) for job in found.inners)
    return Unwrapped(inners, (*notes, *found.notes))


def _default_makefile(call: Call, directory: Word | None) -> list[Word]:
    """The makefile make reads without `-f`, when this command line wrote one."""
    if directory is not None and directory.dynamic:
        return []
    base = join_path(call.state.cwd, directory.value) if directory is not None else call.state.cwd
    if isinstance(base, Unknown):
        return []
    for name in _DEFAULT_NAMES:
        if f"{base}/{name}" in call.files or call.files_unknown:
            return [Word.literal(f"{base}/{name}")]
    return []
