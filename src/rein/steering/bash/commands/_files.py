"""The files a command writes, and what into them, for the scripts a command line writes and then runs
(`printf ... | tee run.sh; sh run.sh`). Redirects (`> f`) are the walker's; this is what commands do:
`tee`, `cp`, `mv`, editing in place (worked out by `_edits` where it can be: `sed -i`, `perl -pi`, `git
apply`, `patch`), `npm pkg set`, and downloads and archives, whose files rein cannot name."""

from __future__ import annotations

import re
from collections.abc import Callable

from rein.steering.bash.commands._edits import applied, perl_in_place, sed_in_place
from rein.steering.bash.commands._git import subcommand_index
from rein.steering.bash.commands._inner import Call, Value
from rein.steering.bash.commands._interp import language, program
from rein.steering.bash.commands._options import parse
from rein.steering.bash.commands._pywrites import may_write
from rein.steering.bash.commands._sources import stdin_text
from rein.steering.bash.commands._tables import spec
from rein.steering.bash.commands._writers import (
    Write,
    copy,
    dd,
    decompress,
    editor,
    fifo,
    sed_files,
    sponge,
    truncate,
)
from rein.steering.bash.model import UNKNOWN, Word

Writes = tuple[tuple[Write, ...], bool]
"""The files written, and whether the command writes files rein cannot name."""

NONE: Writes = ((), False)
_WRITE_APIS = re.compile(
    r"\b(?:open|fopen|write\w*|File|fs|FileUtils|put_contents|copy\w*|move|rename\w*|Path|shutil|symlink\w*|"
    r"link|Deno|Bun|IO|sysopen)\b"
)
"""Calls through which a program in any of the languages rein reads may write a file."""
_UNNAMED = frozenset({"unzip", "7z", "7za", "cpio", "unrar", "rsync", "scp"})


def writes(call: Call) -> Writes:
    """The files `call` writes; a `>(...)` it writes into is a pipe, not a file (see `feeds`)."""
    handler = _WRITERS.get(call.name)
    if handler is None and language(call.name) not in (None, "shell"):
        return _program(call)
    if handler is None:
        return NONE
    found, unnamed = handler(call)
    return tuple(write for write in found if not _is_process(write[0])), unnamed


def feeds(call: Call) -> dict[str, Value]:
    """What `call` writes into each `>(...)` it names as a file (`tee >(sh)`), by the word's text."""
    handler = _WRITERS.get(call.name)
    if handler is None:
        return {}
    return {word.raw: content for word, content, _ in handler(call)[0] if _is_process(word)}


def _is_process(word: Word) -> bool:
    parts = word.parts
    return len(parts) == 1 and not isinstance(parts[0], str) and parts[0].kind == "process"


def _program(call: Call) -> Writes:
    """`python -c 'open("x.sh", "w")...'`: a program that may write files writes ones rein cannot
    name, so a later `bash x.sh` is unknown. A program file on disk is the project's and not read."""
    prog = program(call.name, call.argv)
    if prog is None or prog.module is not None:
        return NONE
    if prog.code:
        text = "\n".join(word.value for word in prog.code)
    elif prog.script is None or prog.script.value == "-":
        text = stdin_text(call, "its program")[0] or ""
    else:
        return NONE
    parsed = may_write(text) if prog.language == "python" else None
    if parsed is not None:
        return (), parsed
    return (), bool(_WRITE_APIS.search(text) or (prog.language == "awk" and ">" in text))


def _operands(call: Call) -> list[Word]:
    return [word for word in call.argv[1:] if not word.value.startswith("-") or word.value == "-"]


def _tee(call: Call) -> Writes:
    content = call.stdin.content if call.stdin is not None else UNKNOWN
    append = any(word.value in ("-a", "--append") for word in call.argv[1:])
    return tuple((word, content, append) for word in _operands(call)), False


def _both(first: Writes, second: Writes) -> Writes:
    return (*first[0], *second[0]), first[1] or second[1]


def _git(call: Call) -> Writes:
    """`git clone` (a tree rein cannot know) and `git apply` (the files its diff changes)."""
    return _both(_clone(call), applied(call))


_TAKES_VALUE = {"curl": "AbcCdDeEFHKmoPQrtTuUwxXyYz", "wget": "aABDeiIloOPQRtTUwX"}
"""Short options that take a value, so a bundle ends there (`curl -sSLo f`, `wget -qO f`)."""


def _download(call: Call) -> Writes:
    """`curl -o f`, `wget -O f` (also in a bundle, `-sSLo f`, `-qOf`): the file holds what the network
    sent; curl's `-O` and wget without `-O` name it from the URL. `-` is stdout."""
    argv = call.argv
    letters, output = _TAKES_VALUE[call.name], "o" if call.name == "curl" else "O"
    found: list[Word] = []
    named = False
    index = 1
    while index < len(argv):
        value = argv[index].value
        if value in ("--output", "--output-document") and index + 1 < len(argv):
            found.append(argv[index + 1])
            index += 1
        elif value.startswith(("--output=", "--output-document=")):
            found.append(Word.literal(value.partition("=")[2]))
        elif value in ("--remote-name", "--remote-name-all"):
            named = True
        elif value[:1] == "-" and value[1:2] not in ("", "-"):
            for position, letter in enumerate(value[1:], start=2):
                named = named or (letter == "O" and call.name == "curl")
                if letter in letters:
                    attached = value[position:]
                    target = (
                        Word.literal(attached)
                        if attached
                        else argv[index + 1]
                        if index + 1 < len(argv)
                        else None
                    )
                    found.extend([target] if letter == output and target is not None else [])
                    index += not attached
                    break
        index += 1
    files = tuple((word, UNKNOWN, False) for word in found if word.value != "-")
    return files, named or (call.name == "wget" and not found)


def _clone(call: Call) -> Writes:
    """`git clone`, `gh repo clone`: a new tree of files rein cannot know."""
    argv = call.argv
    if call.name != "git":
        return (), any(word.value == "clone" for word in argv[1:3])
    at = subcommand_index(argv)  # `git -C dir clone URL`
    return (), at < len(argv) and argv[at].value == "clone"


def _tar(call: Call) -> Writes:
    first = call.argv[1].value if len(call.argv) > 1 else ""
    extracts = "x" in first.lstrip("-") or any(word.value in ("--extract", "--get") for word in call.argv)
    return (), extracts


def _package_json(call: Call) -> Writes:
    """`npm pkg set|delete|fix`, `npm set-script` (also through `pnpm`, and `bun pm pkg`): package.json
    changes in ways rein does not follow, so a script run after it is not known."""
    argv = call.argv
    parsed = parse(argv, 1, spec(call.name if call.name in ("npm", "pnpm") else "bun"))
    words = [word.value for word in argv[parsed.rest : parsed.rest + 3]]
    if call.name == "bun" and words[:1] == ["pm"]:
        words = words[1:]
    if words[:1] != ["set-script"] and (
        words[:1] != ["pkg"] or words[1:2] not in (["set"], ["delete"], ["fix"])
    ):
        return NONE
    directory = parsed.last("-C", "--prefix", "--dir", "--cwd")
    path = f"{directory.value.rstrip('/')}/package.json" if directory is not None else "package.json"
    return ((Word(value=path, raw=path), UNKNOWN, False),), False


_WRITERS: dict[str, Callable[[Call], Writes]] = {
    "tee": _tee,
    "cp": copy,
    "mv": copy,
    "install": copy,
    "sponge": sponge,
    "mkfifo": fifo,
    "mknod": fifo,
    "dd": dd,
    "truncate": truncate,
    **dict.fromkeys(("ed", "ex", "vim", "nvim", "vi"), editor),
    **dict.fromkeys(
        ("gunzip", "gzip", "bunzip2", "bzip2", "unxz", "xz", "unzstd", "zstd", "unlzma", "lzma"), decompress
    ),
    "sed": lambda call: _both((sed_in_place(call), False), sed_files(call)),
    "gsed": lambda call: _both((sed_in_place(call), False), sed_files(call)),
    "perl": lambda call: (perl_in_place(call), False),
    "patch": applied,
    "curl": _download,
    "wget": _download,
    "tar": _tar,
    "bsdtar": _tar,
    "git": _git,
    "gh": _clone,
    "npm": _package_json,
    "pnpm": _package_json,
    "bun": _package_json,
    **{name: lambda call: ((), True) for name in _UNNAMED},
}
