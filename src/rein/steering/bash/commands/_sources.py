"""Where a program's text comes from: a file this command line wrote, a file on disk, `<(...)`, or
standard input.

A script the line wrote a moment before (`echo '...' > f; bash f`) is read from what was written; one
written with content rein cannot know, or fetched or unpacked, is unknown, and so is a pipe from a
command whose output rein cannot tell. A script already on disk is read from disk when the host gives
a `Disk` (`call.disk`): one the agent wrote or changed this session like text the line wrote (what
cannot be read is unknown), one of the person's leniently (what cannot be read is no finding; the
walker reads its commands as the person's).
"""

from __future__ import annotations

from rein.steering.bash._effects import join_path
from rein.steering.bash._frame import TEMP
from rein.steering.bash.commands._inner import Call
from rein.steering.bash.model import Bounded, Stdin, Unknown, Word

STDIN_PATHS = frozenset({"/dev/stdin", "/dev/fd/0", "/proc/self/fd/0", "-"})

Text = tuple[str | None, str]
"""The program text (None when not known or not read) and, when it cannot be known, why."""


def stdin_text(call: Call, what: str = "commands", *, disk: bool = True) -> Text:
    """What the command reads on standard input (from a file on disk too, with `disk`)."""
    stdin = call.stdin
    if stdin is None:
        return None, ""
    if isinstance(stdin.content, str):
        return stdin.content, ""
    if stdin.kind == "file":
        return file_text(call, Word.literal(stdin.text), disk=disk)
    return None, f"{call.name} reads {what} from a {_kind(stdin)} that is not known statically"


def _kind(stdin: Stdin) -> str:
    return "pipe" if stdin.kind == "pipe" else stdin.kind


def file_text(call: Call, word: Word, what: str = "a script", *, disk: bool = True) -> Text:
    """The text of the file `word` names: what this command line wrote into it, else (with `disk`)
    what is on disk now."""
    process = _process_output(word)
    if process is not None:
        if isinstance(process, str):
            return process, ""
        return None, f"{call.name} reads {what} from {word.raw}, whose output is not known statically"
    if _temporary(word) and TEMP in call.files:  # `bash "$f"` after `f=$(mktemp); echo ... > "$f"`
        content = call.files[TEMP]
        if isinstance(content, str):
            return content, ""
        return None, f"{call.name} runs a temporary file this command line wrote with content not known"
    if word.dynamic:  # a file on disk, unless this line wrote files (or piped text) it may be one of
        if not call.files and not call.files_unknown and call.stdin is None:
            return None, ""
        return None, f"{call.name} runs {what} that is not known statically: {word.raw}"
    if word.value in STDIN_PATHS:
        return stdin_text(call)
    path = join_path(call.state.cwd, word.value)
    if isinstance(path, Unknown):
        if call.files or call.files_unknown:
            return (
                None,
                f"{call.name} runs {word.value} in a directory rein cannot tell, after this line wrote files",
            )
        return None, ""
    if path in call.files:
        content = call.files[path]
        if isinstance(content, str):
            return content, ""
        return (
            None,
            f"{call.name} runs {word.value}, which this command line wrote with content not known statically",
        )
    if call.files_unknown:
        return (
            None,
            f"{call.name} runs {word.value}, which may be a file this command line fetched or unpacked",
        )
    return disk_text(call, path, word.value) if disk else (None, "")


def disk_text(call: Call, path: str, shown: str) -> Text:
    """The text on disk at absolute `path`, as far as rein may use it: a file of the person's that
    cannot be read is no finding (None, no note); one the agent wrote is unknown."""
    if call.disk is None:
        return None, ""
    found = call.disk.read(path)
    if found is None or found.text is not None:
        return (found.text if found is not None else None), ""
    if not found.agent:
        return None, ""
    return None, f"{call.name} runs {shown}, which the agent wrote this session and rein cannot read"


def _temporary(word: Word) -> bool:
    """A word that is one fresh temporary path (`"$f"` with `f=$(mktemp)`)."""
    if len(word.parts) != 1 or isinstance(word.parts[0], str):
        return False
    value = word.parts[0].value
    return isinstance(value, Bounded) and value.kind == "temp"


def _process_output(word: Word) -> str | Unknown | None:
    """For a word that is one process substitution (`<(printf ...)`): what it outputs, else None."""
    if len(word.parts) != 1:
        return None
    part = word.parts[0]
    if isinstance(part, str) or part.kind != "process":
        return None
    return part.value if part.value is not None else Unknown()
