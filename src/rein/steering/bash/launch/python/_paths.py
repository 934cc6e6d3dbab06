"""Paths among rein's Python values: `os.path` and `pathlib` operations on known paths, the home
directory and globs, and how a path is written as a shell word.

The current directory is `.` and its parent `..` (`Path.cwd().parent`), the home directory `Home`
and its parent `Home("/..")`; a directory's entries (`os.listdir`, `Path.iterdir`, `glob.glob`) are a
`Glob`, which a shell expands to every match: removing each entry of `~` is `rm -rf $HOME/*`.
"""

from __future__ import annotations

import posixpath
import re
import shlex
from collections.abc import Sequence
from pathlib import PurePosixPath

from rein.steering.bash.launch._launch import RUNTIME
from rein.steering.bash.launch.python._values import Glob, Home, Seq, Text, Value, word

_WILD = re.compile(r"\*+|\?|\[[^\]/]*\]")
"""What a glob pattern matches by: `**` and a bracket expression are read as `*` and `?`, which match
at least as much."""


def _path(value: Value) -> tuple[Text | Home | None, bool]:
    """The path `value` is, and whether it is a glob."""
    if isinstance(value, Glob):
        return value.path, True
    if isinstance(value, Home) or (isinstance(value, Text) and value.known is not None):
        return value, False
    return None, False


def _made(path: Value, glob: bool) -> Value:
    if not isinstance(path, Text | Home):
        return None
    return Glob(path) if glob else path


def path_join(values: Sequence[Value]) -> Value:
    """`os.path.join(...)`: an absolute part starts over, so one built at run time before it does not
    matter."""
    out: Value = Text(("",))
    glob = False
    for value in values:
        path, wild = _path(value)
        known = path.known if isinstance(path, Text) else None
        if isinstance(path, Home) or (known is not None and known.startswith("/")):
            out, glob = path, wild
        elif known is None or out is None:
            out = None
        elif isinstance(out, Home):
            out, glob = Home(posixpath.join("~" + out.rest, known)[1:]), glob or wild
        elif isinstance(out, Text) and out.known is not None:
            out, glob = Text((posixpath.join(out.known, known),)), glob or wild
    return _made(out, glob)


def pure_path(values: Sequence[Value]) -> Value:
    """`pathlib.Path(...)`: joined, then normalised as pathlib does (`Path("/a/")` is `/a`)."""
    joined = path_join(values) if values else Text((".",))
    path, glob = _path(joined)
    if isinstance(path, Home):
        return _made(Home(str(PurePosixPath("~" + path.rest))[1:]), glob)
    if isinstance(path, Text) and path.known is not None:
        return _made(Text((str(PurePosixPath(path.known)),)), glob)
    return None


def expanduser(value: Value) -> Value:
    known = value.known if isinstance(value, Text) else None
    if known is not None and (known == "~" or known.startswith("~/")):
        return Home(known[1:])
    return None if known is not None and known.startswith("~") else value


def _climb(rest: str) -> str:
    """A home-relative path normalised, its `..` kept where they climb above the home directory."""
    parts: list[str] = []
    for part in rest.split("/"):
        if part in ("", "."):
            continue
        if part == ".." and parts and parts[-1] != "..":
            parts.pop()
        else:
            parts.append(part)
    return "".join("/" + part for part in parts)


def normpath(value: Value) -> Value:
    """`os.path.normpath`, and `abspath`: a relative path names the same file relative to the working
    directory as the command rein checks runs in."""
    path, glob = _path(value)
    if isinstance(path, Home):
        return _made(Home(_climb(path.rest)), glob)
    if isinstance(path, Text) and path.known is not None:
        return _made(Text((posixpath.normpath(path.known),)), glob)
    return None


def parent(value: Value, levels: int = 1) -> Value:
    """`Path(p).parent` (`levels` times) and `os.path.dirname(p)` of a path that names a directory:
    the parent of `.` (the working directory) is `..`, of the home directory `$HOME/..`."""
    path, glob = _path(value)
    for _ in range(levels):
        if isinstance(path, Home):
            path = Home(_climb(path.rest + "/.."))
        elif isinstance(path, Text) and path.known is not None:
            known = posixpath.normpath(path.known)
            relative = known.split("/")[-1] in (".", "..")  # `.` and `..` have a parent pathlib cannot see
            path = Text(
                ((posixpath.normpath(known + "/..") if relative else posixpath.dirname(known)) or ".",)
            )
        else:
            return None
    return _made(path, glob and _wild(path))


def _wild(path: Text | Home | None) -> bool:
    spelled = path.rest if isinstance(path, Home) else path.known if isinstance(path, Text) else None
    return bool(spelled and _WILD.search(spelled))


def entries(directory: Value, pattern: str = "*", names: bool = False) -> Value:
    """What listing `directory` yields: each entry's path, or only its name (`os.listdir`)."""
    if names:
        return Seq((Glob(Text((pattern,))),)) if _path(directory)[0] is not None else None
    listed = path_join([directory, Text((pattern,))])
    return Seq((listed if isinstance(listed, Glob) else _made(listed, True),)) if listed is not None else None


def globbed(pattern: Value) -> Value:
    """`glob.glob(pattern)`: every match, or the path itself when it has no wildcard."""
    path, _ = _path(pattern)
    if path is None:
        return None
    return Seq((_made(path, _wild(path)),))


def shell_word(value: Value) -> str:
    """`value` as a shell word with the same value, as the walker reads an argv (`_programs._quoted`):
    the home directory as `$HOME`, a glob's wildcards unquoted so the shell expands them."""
    if isinstance(value, Glob):
        path = value.path
        prefix, spelled = ("$HOME", path.rest) if isinstance(path, Home) else ("", path.known or "")
        out, position = [prefix], 0
        for match in _WILD.finditer(spelled):
            out.append(_quote(spelled[position : match.start()]))
            out.append("*" if match.group().startswith("*") else "?")
            position = match.end()
        out.append(_quote(spelled[position:]))
        return "".join(out)
    single = word(value)
    if single is None:
        return f'"{RUNTIME}"'
    if single.startswith("$HOME"):
        return "$HOME" + _quote(single[5:])
    return shlex.quote(single)


def _quote(part: str) -> str:
    return shlex.quote(part) if part else ""
