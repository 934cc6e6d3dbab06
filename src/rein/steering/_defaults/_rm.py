"""`no-rm-root`: a recursive `rm` (or `find -delete`) whose target is `/`, a directory right under it,
the home directory, its parent, or everything in one of them.

A target is read as the shell gives it: variables put in (as the shell that runs the line knows them),
`~` expanded, made absolute against the command's cwd; a glob stays a pattern that must not be able to
match such a directory. What rein cannot read is bounded where it can be: a fresh temp path, a path
below a known directory, a value with a literal last component (`"$TMPDIR/build"` ends in `build`, so
it is `/` or home only if home is called `build`). Anything else is UNKNOWN.
"""

from __future__ import annotations

import posixpath
import re
from fnmatch import fnmatchcase

from rein.steering._args import may_be_flag, may_split, tool_args
from rein.steering._rule import Tri
from rein.steering._types import Context
from rein.steering.bash import UNKNOWN, Bounded, CommandRef, Expansion, Unknown, Word, WordPart
from rein.steering.bash._words import lookup
from rein.steering.bash.commands._find import reach

_EVERYTHING = frozenset({"*", ".*", "{*,.*}", "{.*,*}", ".[!.]*", "..?*"})
"""Last components that match every entry of a directory."""
_GLOB = re.compile(r"[*?\[{]")
_GLOB_ONLY = frozenset(".*?[]!^")
"""A last component of these alone matches every entry, or every hidden one (`*`, `.??*`, `.[!.]*`)."""


def rm_root(ref: CommandRef, context: Context) -> Tri:
    if ref.name == "find":
        return _find_delete(ref, context)
    args = tool_args(ref, "rm")
    if args.has("-r", "-R", "--recursive"):
        return _any([root_risk(word, ref, context) for word in args.operands])
    if any(_every_file_below_a_root(word, context) for word in args.operands):
        return UNKNOWN  # `find ~ -type f -exec rm {} +`: each file below home, as `find ~ -delete` removes
    if not args.wild:
        return False
    # An unknown word may be `-r`: then a target must be able to name a root: another word, or, for
    # a word that may split into several (`rm $ARGS`, `xargs rm`, a glob), what it expands to.
    unknown = [word for word in args.operands if may_be_flag(word)]
    if not unknown:
        return False
    targets = [word for word in args.operands if word not in unknown or len(unknown) > 1 or may_split(word)]
    return UNKNOWN if _any([root_risk(word, ref, context) for word in targets]) is not False else False


def _find_delete(ref: CommandRef, context: Context) -> Tri:
    """`find P ... -delete` removes what it finds below P (P itself included)."""
    values = [word.value for word in ref.args]
    if "-delete" not in values:
        return False
    words = list(ref.args)
    follows = False
    while words:  # find's own options come before the starting points
        value = words[0].value
        follows = follows or value == "-L"
        if value in ("-H", "-L", "-P", "--") or value.startswith("-O"):
            del words[:1]
        elif value == "-D":  # `-D tree`: debug options
            del words[:2]
        else:
            break
    starts: list[Word] = []
    for word in words:
        if word.value.startswith(("-", "(", "!")) and not word.dynamic:
            break
        starts.append(word)
    expression = tuple(words[len(starts) :])
    action = next(
        (index for index, word in enumerate(expression) if word.value == "-delete"), len(expression)
    )
    found = [
        _start_risk(word, expression, action, follows, ref, context) for word in starts or [Word.literal(".")]
    ]
    return _any(found)


def _start_risk(
    word: Word, expression: tuple[Word, ...], action: int, follows: bool, ref: CommandRef, context: Context
) -> Tri:
    """What `find` removes for one start point: the start point and all below it, or only some of
    what is below it when the tests before `-delete` say so (`-name '*.pyc'`, `-mindepth 1`)."""
    text = _text(word, ref, context)
    cwd = ref.state.cwd
    if isinstance(text, Unknown) or (not text.startswith("/") and isinstance(cwd, Unknown)):
        return root_risk(word, ref, context)
    path = posixpath.normpath(posixpath.join(cwd, text) if isinstance(cwd, str) else text)
    found = reach(text, path, expression, action, follows=follows)
    home = posixpath.normpath(context.home)
    return root_risk(word, ref, context) if found == path else is_root(found, home)


def _every_file_below_a_root(word: Word, context: Context) -> bool:
    part = word.parts[0] if len(word.parts) == 1 else None
    if not isinstance(part, Expansion) or not isinstance(part.value, Bounded) or part.value.kind != "below":
        return False
    below = part.value.path
    return below.startswith("/") and is_root(below, posixpath.normpath(context.home))


def _any(risks: list[Tri]) -> Tri:
    if True in risks:
        return True
    return UNKNOWN if any(isinstance(risk, Unknown) for risk in risks) else False


def root_risk(word: Word, ref: CommandRef, context: Context) -> Tri:
    """Whether removing `word` recursively may remove a root: True, False, or UNKNOWN."""
    home = posixpath.normpath(context.home)
    text = _text(word, ref, context)
    if isinstance(text, Unknown):
        return _bounded_risk(word, text, home)
    if not text.startswith("/"):
        cwd = ref.state.cwd
        if isinstance(cwd, Unknown):
            return _relative_risk(text, home)
        text = posixpath.join(cwd, text)
    return is_root(text, home)


def _text(word: Word, ref: CommandRef, context: Context) -> str | Unknown:
    """The word's value as a path pattern: variables and `~` put in, globs kept as written."""
    env = ref.state.expansion
    parts: list[str] = []
    for part in word.parts or (word.value,):
        if isinstance(part, str):
            parts.append(part)
            continue
        if part.kind == "glob":
            parts.append(part.raw)
            continue
        value = lookup(part, env)
        if isinstance(value, Unknown) and part.raw == "~" and "HOME" not in env:
            value = context.home  # bash: `~` with HOME unset is the user's home from the passwd file
        if isinstance(value, Unknown):
            return value
        parts.append(value)
    return "".join(parts)


def is_root(path: str, home: str) -> bool:
    """`/`, a directory right under it, home or its parent, or a glob that can match one of them or
    every entry in one (`~/*`, `~/.??*`, `/usr/*`, `/home/*/*`)."""
    path = posixpath.normpath(path).replace("//", "/")
    roots = {"/", home, posixpath.dirname(home)}
    if path in roots or posixpath.dirname(path) == "/":
        return True
    parent, base = posixpath.split(path)
    if set(base) <= _GLOB_ONLY and _GLOB.search(base) and is_root(parent, home):
        return True  # every entry (or every hidden one) of a root
    return bool(_GLOB.search(path)) and any(fnmatchcase(root, path) for root in roots)


def _relative_risk(path: str, home: str) -> Tri:
    """A relative path below a cwd rein does not know: it is a root only if it can name the cwd
    itself, climb out of it, or end in home's (or its parent's) name."""
    normal = posixpath.normpath(path)
    if normal in (".", "..") or normal.startswith("../") or posixpath.basename(normal) in _EVERYTHING:
        return UNKNOWN
    name = posixpath.basename(normal)
    return (
        UNKNOWN if name in (posixpath.basename(home), posixpath.basename(posixpath.dirname(home))) else False
    )


def _bounded_risk(word: Word, value: Unknown, home: str) -> Tri:
    """A target rein cannot read: safe when bounded (a temp path, a path below a safe directory, a
    literal last component that no root has)."""
    parts = word.parts
    if len(parts) == 1 and isinstance(parts[0], Expansion) and isinstance(value, Bounded):
        if value.kind in ("temp", "ref"):
            return False
        if value.kind == "reflines":
            return UNKNOWN
        below = value.path
        if below.startswith("/"):
            return UNKNOWN if is_root(below, home) or home.startswith(below.rstrip("/") + "/") else False
        return _relative_risk(below, home)
    name = _last_component(parts)
    if name is None or set(name) <= _GLOB_ONLY:  # `$X/`, `$X/*`, `$X/.*`, `$X/..`: X itself or all of it
        return UNKNOWN
    roots = (posixpath.basename(home), posixpath.basename(posixpath.dirname(home)))
    return UNKNOWN if any(fnmatchcase(root, name) for root in roots) else False


def _last_component(parts: tuple[WordPart, ...]) -> str | None:
    """The last path component of a word whose directory is only known at run time, when it is
    written out: literal text and globs after the word's last literal `/` (`"$TMPDIR/build-"*` ends in
    `build-*`); None when a part there is only known at run time, or there is no such `/`."""
    found: list[str] = []
    for part in reversed(parts):
        if isinstance(part, Expansion) and (part.kind != "glob" or any(c in part.raw for c in "\\'\"")):
            return None
        text = part if isinstance(part, str) else part.raw
        _, slash, after = (text if found else text.rstrip("/")).rpartition("/")
        found.append(after)
        if slash:
            return "".join(reversed(found))
    return None
