"""What builtins do to the shell state (`cd`, `pushd`, `export`, `unset`, `read`, ...), and the options
that move one command elsewhere (`git -C`, `make -C`)."""

from __future__ import annotations

import posixpath
import re
import shlex
from collections.abc import Callable, Sequence

from rein.steering.bash._frame import POSITIONAL, Frame, Value
from rein.steering.bash._words import assigned, resolve, split_assignment, tail
from rein.steering.bash.model import EMPTY_ENV, UNKNOWN, Bounded, Env, Unknown, Word

Argv = Sequence[Word]
GIT_VALUE_OPTIONS = frozenset({
    "-C", "-c", "--config-env", "--git-dir", "--work-tree", "--namespace", "--attr-source",
    "--shallow-file", "--super-prefix",
})  # fmt: skip
"""git's global options that take the next word as their value (git.c `handle_options`); the
`--opt=value` spellings are one word. `--exec-path[=<path>]` and `--list-cmds=<x>` never take the
next word. `--super-prefix` (older gits) and `--attr-source` (newer ones) are kept for every version:
a git that lacks one rejects the command, so skipping its value is never wrong."""
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def join_path(cwd: Value, path: str) -> Value:
    """`path` made absolute against `cwd` and normalized; UNKNOWN when it depends on an unknown cwd."""
    if not path.startswith("/"):
        if isinstance(cwd, Unknown):
            return UNKNOWN
        path = posixpath.join(cwd, path) if path else cwd
    path = posixpath.normpath(path)
    return "/" + path.lstrip("/") if path.startswith("//") else path


def resolve_path(word: Word, cwd: Value, env: Env) -> Value:
    """The absolute path `word` names; a fresh temporary path (`"$(mktemp)"`) stays that bound."""
    text = resolve(word, env)
    if isinstance(text, Bounded) and text.kind == "temp":
        return text
    return UNKNOWN if isinstance(text, Unknown) else join_path(cwd, text)


def git_globals(argv: Argv) -> tuple[list[Word], int]:
    """The `-C` directories of a git command and the index of its subcommand (len(argv) if none)."""
    dirs: list[Word] = []
    index, count = 1, len(argv)
    while index < count:
        value = argv[index].value
        if value in GIT_VALUE_OPTIONS:
            if value == "-C" and index + 1 < count:
                dirs.append(argv[index + 1])
            index += 2
        elif value.startswith("-"):
            index += 1
        else:
            break
    return dirs, min(index, count)


def command_cwd(name: str, argv: Argv, cwd: Value, env: Env) -> Value | None:
    """Where `git -C`, `make -C` run (relative directories compose); None when they stay put."""
    if name == "git":
        if len(argv) < 3 or not argv[1].value.startswith("-"):
            return None
        dirs = git_globals(argv)[0]
    elif name in ("make", "gmake"):
        dirs = _make_dirs(argv)
    else:
        return None
    for directory in dirs:
        cwd = resolve_path(directory, cwd, env)
    return cwd if dirs else None


def apply(name: str, argv: Argv, frame: Frame, prefix: Env = EMPTY_ENV) -> None:
    """Apply what the builtin `argv` does to the shell that runs it. `prefix` holds the command's own
    assignments (`CDPATH=/ cd home`), which the builtin sees while it runs."""
    handler = _BUILTINS.get(name)
    if handler is None or argv[0].value != name:
        return
    if "CDPATH" in prefix and name in ("cd", "pushd") and "CDPATH" not in frame.env:
        frame.env = {**frame.env, "CDPATH": prefix["CDPATH"]}
        handler(argv, frame)
        frame.env = {key: value for key, value in frame.env.items() if key != "CDPATH"}
        return
    handler(argv, frame)


def declare(argv: Argv, frame: Frame) -> None:
    """`export`, `declare`, `typeset`, `local`, `readonly`: assignments and export flags."""
    export: bool | None = True if argv[0].value == "export" else None
    opaque = skip = functions = False
    for word in argv[1:]:
        value = word.value
        if not word.dynamic and len(value) > 1 and value[0] in "-+" and "=" not in value:
            letters = value[1:]
            if "x" in letters or (export and "n" in letters):
                export = value[0] == "-" and "x" in letters
            functions = functions or "f" in letters
            skip = skip or bool(set(letters) & set("fFp"))
            opaque = opaque or bool(set(letters) & set("aAilunc"))
            continue
        if functions and export:  # `export -f f`: child shells get the function
            frame.exported = frame.exported | {value}
        if skip:
            continue
        split = split_assignment(word)
        if split is not None:
            name, value_word, append = split
            plain = not opaque and not value_word.value.startswith("(")  # not an array
            new = assigned(name, value_word if plain else None, append, frame.env)
            frame.set_var(name, new, export=export)
        elif word.dynamic:
            frame.forget_env()
        elif export:
            frame.export(value)


def _cd(argv: Argv, frame: Frame) -> None:
    operands = _operands(argv)
    if len(operands) > 1:
        frame.chdir(UNKNOWN)
        return
    if not operands:
        home = frame.env.get("HOME", UNKNOWN)
        frame.chdir(UNKNOWN if isinstance(home, Unknown) else join_path(frame.cwd, home))
        return
    word = operands[0]
    if word.value == "-" and not word.dynamic:
        old = frame.env.get("OLDPWD", UNKNOWN)
        frame.chdir(UNKNOWN if isinstance(old, Unknown) else join_path(frame.cwd, old))
        return
    text = resolve(word, frame.env)
    if isinstance(text, Unknown) or ("CDPATH" in frame.env and _searches_cdpath(text)):
        frame.chdir(UNKNOWN)
        return
    frame.chdir(join_path(frame.cwd, text))


def _searches_cdpath(path: str) -> bool:
    return not path.startswith("/") and path.split("/", 1)[0] not in (".", "..")


def _pushd(argv: Argv, frame: Frame) -> None:
    operands = _operands(argv)
    stack = frame.dirs
    if not operands:
        frame.dirs = (frame.cwd, *stack[1:])
        frame.chdir(stack[0] if stack else UNKNOWN)
    elif operands[0].value[:1] in "+-" or len(operands) > 1:
        frame.dirs = ()
        frame.chdir(UNKNOWN)
    else:
        target = resolve_path(operands[0], frame.cwd, frame.env)
        frame.dirs = (frame.cwd, *stack)
        frame.chdir(target)


def _popd(argv: Argv, frame: Frame) -> None:
    stack = frame.dirs
    if _operands(argv) or not stack:
        frame.dirs = ()
        frame.chdir(UNKNOWN)
        return
    frame.dirs = stack[1:]
    frame.chdir(stack[0])


def _unset(argv: Argv, frame: Frame) -> None:
    functions = False
    for word in argv[1:]:
        value = word.value
        if word.dynamic:
            frame.forget_env()
        elif value.startswith("-"):
            functions = "f" in value
        elif functions or value not in frame.env:
            frame.set_function(value, None)
        else:
            frame.unset_var(value)


def _alias(argv: Argv, frame: Frame) -> None:
    """`alias name='text'`: later commands named `name` run `text` instead."""
    for word in argv[1:]:
        name, eq, value = word.value.partition("=")
        if eq and not name.startswith("-"):
            frame.set_alias(name, UNKNOWN if word.dynamic else value)


def _hash(argv: Argv, frame: Frame) -> None:
    """`hash -p /bin/rm ls`: `ls` runs `/bin/rm` from now on, which rein records as an alias."""
    words = list(argv[1:])
    while words and words[0].value.startswith("-") and words[0].value != "-p":
        words.pop(0)
    if len(words) < 3 or words[0].value != "-p":
        return
    path = words[1]
    for name in words[2:]:
        frame.set_alias(name.value, UNKNOWN if path.dynamic else shlex.quote(path.value))


def _unalias(argv: Argv, frame: Frame) -> None:
    for word in argv[1:]:
        if word.value == "-a":
            frame.aliases = {}
        else:
            frame.set_alias(word.value, None)


def _set(argv: Argv, frame: Frame) -> None:
    """`set -- a b`: new positional parameters."""
    values = [word.value for word in argv[1:]]
    if "--" in values:
        rest = argv[values.index("--") + 2 :]
        frame.set_args(tuple(UNKNOWN if word.dynamic else word.value for word in rest))


def _shift(argv: Argv, frame: Frame) -> None:
    array = frame.arrays.get(POSITIONAL)
    count = argv[1].value if len(argv) > 1 else "1"
    if isinstance(array, tuple) and count.isdigit():
        frame.set_args(array[int(count) :])
    else:
        frame.set_args(UNKNOWN)


def _invalidate(names: Sequence[str], frame: Frame) -> None:
    for name in names:
        frame.set_var(name, UNKNOWN)


def _read(argv: Argv, frame: Frame) -> None:
    names, index = _named_options(argv, "adinNptu", "a")
    _invalidate(names + [word.value for word in argv[index:]] or ["REPLY"], frame)


def _mapfile(argv: Argv, frame: Frame) -> None:
    _, index = _named_options(argv, "dnOsuCc", "")
    _invalidate([word.value for word in argv[index : index + 1]] or ["MAPFILE"], frame)


def _printf(argv: Argv, frame: Frame) -> None:
    _invalidate(_named_options(argv, "v", "v")[0], frame)


def _let(argv: Argv, frame: Frame) -> None:
    _invalidate([name for word in argv[1:] for name in _IDENTIFIER.findall(word.value)], frame)


def _getopts(argv: Argv, frame: Frame) -> None:
    _invalidate([word.value for word in argv[2:3]] + ["OPTARG", "OPTIND"], frame)


def _named_options(argv: Argv, valued: str, naming: str) -> tuple[list[str], int]:
    """Options up to the first operand; the values of the `naming` options are variable names."""
    names: list[str] = []
    index = 1
    while index < len(argv):
        value = argv[index].value
        if value == "--":
            return names, index + 1
        if not value.startswith("-") or value == "-":
            break
        index += 1
        for position, letter in enumerate(value[1:], start=2):
            if letter in valued:
                taken = value[position:] or (argv[index].value if index < len(argv) else "")
                index += 0 if value[position:] else 1
                if letter in naming and taken:
                    names.append(taken)
                break
    return names, index


def _operands(argv: Argv) -> list[Word]:
    """Arguments after the leading options (`cd -P dir`, `pushd -n dir`); `-` and `+N` are operands."""
    index = 1
    while index < len(argv):
        value = argv[index].value
        if value == "--":
            index += 1
            break
        if not value.startswith("-") or value == "-" or value[1:].isdigit():
            break
        index += 1
    return list(argv[index:])


def _make_dirs(argv: Argv) -> list[Word]:
    dirs: list[Word] = []
    for index, word in enumerate(argv[1:], start=1):
        value = word.value
        if value == "--":
            break
        if value in ("-C", "--directory") and index + 1 < len(argv):
            dirs.append(argv[index + 1])
        elif value.startswith("--directory="):
            dirs.append(tail(word, 12))
        elif value.startswith("-C") and len(value) > 2:
            dirs.append(tail(word, 2))
    return dirs


_BUILTINS: dict[str, Callable[[Argv, Frame], None]] = {
    "cd": _cd,
    "pushd": _pushd,
    "popd": _popd,
    "export": declare,
    "declare": declare,
    "typeset": declare,
    "local": declare,
    "readonly": declare,
    "unset": _unset,
    "read": _read,
    "mapfile": _mapfile,
    "readarray": _mapfile,
    "printf": _printf,
    "let": _let,
    "getopts": _getopts,
    "alias": _alias,
    "unalias": _unalias,
    "hash": _hash,
    "set": _set,
    "shift": _shift,
}
BUILTINS = frozenset(_BUILTINS)
"""The builtins whose effects `apply` models."""
