"""Symbolic and hard links the command line makes, and paths through them written as where they lead."""

from __future__ import annotations

import posixpath

from rein.steering.bash._effects import join_path, resolve_path
from rein.steering.bash._frame import Frame
from rein.steering.bash.commands import Call
from rein.steering.bash.model import UNKNOWN, Bounded, Expansion, Unknown, Word


def link(call: Call, frame: Frame) -> None:
    """`ln -s TARGET LINK`: later paths through LINK lead to TARGET (`ln -s / r; rm -rf r/` empties
    `/`); `ln A B`: B holds what A holds."""
    words = [word for word in call.argv[1:] if not word.value.startswith("-")]
    symbolic = any(word.value in ("-s", "--symbolic") or _bundles(word.value, "s") for word in call.argv[1:])
    if len(words) != 2:
        return
    target, link = words
    path = resolve_path(link, frame.cwd, frame.env)
    if not isinstance(path, str):
        frame.files_unknown = True
        return
    if symbolic:  # a relative target is relative to the link's own directory
        to = resolve_path(target, posixpath.dirname(path), frame.env)
        frame.write(path, Bounded("link", to) if isinstance(to, str) else UNKNOWN)
    else:
        source = resolve_path(target, frame.cwd, frame.env)
        frame.write(path, frame.files.get(source, UNKNOWN) if isinstance(source, str) else UNKNOWN)


def _bundles(value: str, letter: str) -> bool:
    return value.startswith("-") and not value.startswith("--") and letter in value[1:]


def through_links(argv: tuple[Word, ...], frame: Frame) -> tuple[Word, ...]:
    """Paths through a symbolic link the line made, written as the paths they lead to: any path that
    goes on past the link (`r/`, `r/x`, `h/*`), and the link itself where the command follows it
    (`./g` run as a program, `bash b.sh`); `rm -rf r` removes the link itself."""
    links = {
        path: value.path
        for path, value in frame.files.items()
        if isinstance(value, Bounded) and value.kind == "link"
    }
    if not links or isinstance(frame.cwd, Unknown):
        return argv
    follows = posixpath.basename(argv[0].value) not in _ON_LINKS if argv else True
    out = list(argv)
    for index, word in enumerate(argv):
        if any(isinstance(part, Expansion) and part.kind != "glob" for part in word.parts):
            continue
        path = join_path(frame.cwd, word.value)
        if not isinstance(path, str):
            continue
        for link, target in links.items():
            if path == link and (word.value.endswith("/") or index == 0 or follows):
                out[index] = Word(value=target + ("/" if word.value.endswith("/") else ""), raw=word.raw)
            elif path.startswith(link + "/"):
                out[index] = Word(value=target.rstrip("/") + path[len(link) :], raw=word.raw)
    return tuple(out)


_ON_LINKS = frozenset({"rm", "unlink", "rmdir", "find", "mv", "ln", "ls", "stat", "readlink", "lstat"})
"""Commands that act on a link named as an operand, not on what it leads to."""
