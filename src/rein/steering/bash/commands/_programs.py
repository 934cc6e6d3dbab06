"""Interpreters as runners: what a Python, JavaScript, Ruby, Perl, PHP or awk program would launch.

The program comes from `-c`/`-e`, a script this command line wrote, or stdin it can read (a heredoc,
`echo ... |`); the `launch` readers find the processes it starts, and each becomes an inner command the
walker checks. `python -m module args` runs the module as a command (`python3 -X dev -m http.server`
is `http.server`). A program text rein cannot see (a file on disk) launches nothing rein can check; a
process API called with a value built at run time makes the command unknown. A file this command line
wrote and then runs by its path (`./run.sh`) is read with the interpreter its `#!` line names.
"""

from __future__ import annotations

import posixpath
import re
import shlex
from collections.abc import Sequence
from dataclasses import replace

from rein.steering.bash._disk import Read
from rein.steering.bash.commands._inner import NOTHING, Call, Inner, Unwrapped, Value, run
from rein.steering.bash.commands._interp import language, program
from rein.steering.bash.commands._interp_dialects import read
from rein.steering.bash.commands._sources import file_text, stdin_text
from rein.steering.bash.launch import RUNTIME, Launch, launches
from rein.steering.bash.model import UNKNOWN, Stdin

_FEEDS = re.compile(r"\binput\s*[=:]|\bstdin\b|\bcommunicate\b|\bpopen\w*\b|\bproc_open\b|['\"]\|-['\"]")
"""Program text that writes to a process's standard input."""
_MOVES = re.compile(r"\bchdir\b|\bcwd\s*[=:]|\bproc_open\b|\bpushd\b")
"""Program text that changes the directory its processes start in."""


def interpreter(call: Call) -> Unwrapped:
    prog = program(call.name, call.argv)
    if prog is None or prog.language == "shell":
        return NOTHING
    if prog.module is not None:
        return run(f"{call.name} -m", "child", (prog.module, *call.argv[prog.rest :]))
    notes: list[str] = []
    texts: list[str] = []
    if prog.code:
        notes.extend(f"{call.name} code is dynamic: {word.raw}" for word in prog.code if word.dynamic)
        texts.append("\n".join(word.value for word in prog.code))
    elif prog.script is not None and prog.script.value != "-":
        text, note = file_text(call, prog.script, "a program")
        texts.extend([text] if text is not None else [])
        notes.extend([note] if note else [])
    elif not prog.files:
        text, note = stdin_text(call, "its program")
        texts.extend([text] if text is not None else [])
        notes.extend([note] if note else [])
    for word in prog.files:
        text, note = file_text(call, word, "a program")
        texts.extend([text] if text is not None else [])
        notes.extend([note] if note else [])
    if not texts:
        return Unwrapped(notes=tuple(notes))
    text = "\n".join(texts)
    found = launched(call.name, read(prog, text, _known_env(call)), text, _from_disk(call, texts))
    return Unwrapped(found.inners, (*notes, *found.notes), tolerated=found.tolerated)


def _from_disk(call: Call, texts: Sequence[str]) -> Read | None:
    """The file on disk the program text is, when all of it was read from disk (for several files,
    the first, and the person's only if all are)."""
    if call.disk is None or not texts:
        return None
    reads = [call.disk.of(text) for text in texts]
    first = reads[0]
    if first is None or any(read is None for read in reads):
        return None
    return replace(first, lenient=all(read is not None and read.lenient for read in reads))


def executable(call: Call) -> Unwrapped | None:
    """A program run by its path (`./run.sh`, `~/bin/x`) that this command line wrote: its text as a
    script of the interpreter its `#!` line names (`sh` without one). None when the path is no file
    the line wrote, so the command is read by its name as usual."""
    head = call.argv[0]
    if "/" not in head.value:
        return None
    text, note = file_text(call, head, "a program")
    if text is None:
        return Unwrapped(notes=(note,)) if note else None
    interpreter = _shebang(text)
    lang = language(interpreter) if interpreter else "shell"
    why = f"{head.value} is a file this command line wrote"
    if lang == "shell":
        args = (head.value, *(None if word.dynamic else word.value for word in call.argv[1:]))
        inner = Inner(interpreter or "sh", "child", script=text, via="script", why=why, args=_values(args))
        return Unwrapped((inner,))
    if lang is None:
        if call.disk is not None and (read := call.disk.of(text)) is not None and read.lenient:
            return Unwrapped(tolerated=(f"{head.value} runs with {interpreter}, a program rein cannot read",))
        return Unwrapped(notes=(f"{head.value} runs with {interpreter}, a program rein cannot read",))
    return launched(head.value, launches(lang, text, _known_env(call)), text, _from_disk(call, [text]))


def _shebang(text: str) -> str:
    """The interpreter's name a `#!` line names (`#!/usr/bin/env python3` is `python3`); "" for none."""
    if not text.startswith("#!"):
        return ""
    words = text[2:].partition("\n")[0].split()
    if words and posixpath.basename(words[0]) == "env":
        words = [word for word in words[1:] if not word.startswith("-") and "=" not in word]
    return posixpath.basename(words[0]) if words else ""


def _values(args: tuple[str | None, ...]) -> tuple[Value, ...]:
    return tuple(UNKNOWN if arg is None else arg for arg in args)


def _known_env(call: Call) -> dict[str, str]:
    return {name: value for name, value in call.state.env.items() if isinstance(value, str)}


def launched(label: str, found: Sequence[Launch], text: str = "", disk: Read | None = None) -> Unwrapped:
    """The inner commands for what a program launches; unknown launches become notes.

    `text` is the program: where it feeds a process's stdin (`input=`, `popen(..., "w")`) that stdin
    is unknown, so `subprocess.run(["sh"], input=...)` is a shell reading code rein cannot see; where
    it changes directory (`os.chdir`, `cwd=`), the launched commands run in a directory rein cannot
    tell. `disk` is the file on disk the program is: each launch says its line there, and a file of
    the person's is read leniently (what cannot be known in it is tolerated, not a block)."""
    inners: list[Inner] = []
    notes: list[str] = []
    stdin = Stdin("pipe") if _FEEDS.search(text) else None
    moved = bool(_MOVES.search(text))
    for launch in found:
        why = f"{label} starts it with {launch.api}" + (f" (line {launch.line})" if launch.line else "")
        script = launch.shell
        if script is None and launch.argv:
            script = " ".join(_quoted(value) for value in launch.argv) + (
                f" {RUNTIME}" if launch.rest else ""
            )
        if script is not None:
            inner = Inner(f"{label} {launch.api}", "maybe", script=script, why=why, stdin=stdin)
            if disk is not None:
                origin = f"{launch.file or disk.label}:{launch.line}" if launch.line else disk.label
                inner = replace(inner, origin=origin, lenient=disk.lenient)
            inners.append(replace(inner, cwd_unknown=True) if moved else inner)
        if launch.unknown:
            notes.append(f"{label}: {launch.unknown}")
    if disk is not None and disk.lenient:
        return Unwrapped(tuple(inners), tolerated=tuple(notes))
    return Unwrapped(tuple(inners), tuple(notes))


def _quoted(value: str | None) -> str:
    """One argv element as a shell word with the same value: `$HOME` at its start still expands (the
    readers write the home directory that way), a literal `~` does not (no shell reads an argv), and an
    element built at run time is an unknown variable."""
    if value is None:
        return f'"{RUNTIME}"'
    if value == "$HOME" or value.startswith("$HOME/"):
        return "$HOME" + (shlex.quote(value[5:]) if value[5:] else "")
    return shlex.quote(value)
