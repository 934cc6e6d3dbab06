"""JavaScript path values: `path.join`/`path.resolve`/`path.dirname` of known values, and a value as an
argv word, a shell word, or the glob of a listed directory's entries.

The home directory is written `$HOME` (the caller keeps a leading `$HOME` unquoted, and quotes a literal
`~`, which node does not expand); the working directory is `.` in a path and `$PWD` in a shell line;
each entry of a listed directory joined back to it (`dir + "/" + name`) is the glob `dir/*`.
"""

from __future__ import annotations

import posixpath
import shlex
from collections.abc import Sequence

from rein.steering.bash.launch._folding import glob_word
from rein.steering.bash.launch._launch import RUNTIME
from rein.steering.bash.launch.javascript._values import UNKNOWN, Entry, Hole, Parts, concat, literal


def as_path(value: Parts) -> str | None:
    """A path for an argv: literal text, home written `$HOME` / `$HOME/rest`, the working directory
    as a relative path; None when built at run time."""
    known = literal(value)
    if known is not None:
        return known
    head, rest = value[0], literal(value[1:]) if len(value) > 1 else ""
    if rest is None or (rest and not rest.startswith("/")):
        return None
    if head is Hole.HOME:
        return "$HOME" + rest  # not normalized: `..` below home is the walker's to resolve
    if head is Hole.CWD:
        return posixpath.normpath("." + rest)
    return None


def _raw(value: Parts) -> str | None:
    """A path as written, home `$HOME` and the working directory `.`, slashes collapsed."""
    out = ""
    for part in value:
        if isinstance(part, str):
            out += part
        elif part in (Hole.HOME, Hole.CWD):
            out += "$HOME" if part is Hole.HOME else "."
        else:
            return None
    while "//" in out:
        out = out.replace("//", "/")
    return out


def as_glob(value: Parts) -> str | None:
    """Each entry of a listed directory joined back to it (`dir + "/" + f` with `f` from
    `fs.readdirSync(dir)`): the glob `dir/*` as a shell word, its wildcard unquoted; None otherwise."""
    entries = [index for index, part in enumerate(value) if isinstance(part, Entry)]
    if len(entries) != 1:
        return None
    index = entries[0]
    entry = value[index]
    assert isinstance(entry, Entry)
    folder = _raw(entry.dir)
    prefix = _raw(value[:index])
    suffix = literal(value[index + 1 :]) if index + 1 < len(value) else ""
    if folder is None or prefix is None or suffix is None or (suffix and not suffix.startswith("/")):
        return None
    base = folder.rstrip("/")
    joined = prefix.endswith("/") and prefix.rstrip("/") == base
    if not joined and not (prefix == "" and base == "."):  # `rmSync(f)`: an entry of `.`
        return None
    return glob_word(base + "/*" + suffix)


def shell_word(value: str | None) -> str:
    """An argv element quoted as one shell word; None (built at run time) is an unknown variable."""
    if value is None:
        return f'"{RUNTIME}"'
    if value == "$HOME" or value.startswith("$HOME/"):
        return "$HOME" + (shlex.quote(value[5:]) if len(value) > 5 else "")
    return shlex.quote(value)


def join_path(args: Sequence[Parts], resolve: bool) -> Parts:
    """`path.join(...)` (or `path.resolve(...)`, where an absolute part starts over) of the values."""
    if resolve:
        for index in range(len(args) - 1, -1, -1):
            first = args[index][0]
            if first in (Hole.HOME, Hole.CWD) or (isinstance(first, str) and first.startswith("/")):
                args = args[index:]
                break
    texts = [literal(arg) for arg in args]
    if all(text is not None for text in texts):
        joined = "/".join(text for text in texts if text)
        return (posixpath.normpath(joined).replace("//", "/") if joined else ".",)
    if not args:
        return UNKNOWN
    head = args[0]
    if head in ((Hole.HOME,), (Hole.CWD,)) and all(text is not None for text in texts[1:]):
        rest = "/".join(text for text in texts[1:] if text)
        if head == (Hole.CWD,):
            return (posixpath.normpath("./" + rest),)
        return (Hole.HOME, "/" + rest) if rest else (Hole.HOME,)
    if len(args) == 2 and len(args[1]) == 1 and isinstance(args[1][0], Entry):
        return concat([head, ("/",), args[1]])  # `path.join(dir, f)` of a listed directory's entry
    return UNKNOWN


def dirname(value: Parts) -> Parts:
    """`path.dirname(p)`: lexical for a literal path (as node's is); the parent of home or of the
    working directory (`process.cwd()` is absolute) for a path below them."""
    known = literal(value)
    if known is not None:
        trimmed = known.rstrip("/")
        if not trimmed:
            return ("/",) if known else (".",)
        return (posixpath.dirname(trimmed) or ".",)
    rest = literal(value[1:]) if len(value) > 1 else ""
    if rest is None or (rest and not rest.startswith("/")):
        return UNKNOWN
    if value[0] is Hole.CWD:
        return (posixpath.normpath("." + rest + "/.."),)
    if value[0] is Hole.HOME:
        trimmed = rest.rstrip("/")
        if not trimmed or ".." in trimmed.split("/"):
            return (Hole.HOME, trimmed + "/..")
        parent = posixpath.dirname(trimmed)
        return (Hole.HOME, parent) if parent != "/" else (Hole.HOME,)
    return UNKNOWN
