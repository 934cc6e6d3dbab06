"""The files a command writes, and what into them, for the scripts a command line writes and then runs
(`printf ... | tee run.sh; sh run.sh`). Redirects (`> f`) are the walker's; this is what commands do:
`tee`, `cp`, `mv`, editing in place, `npm pkg set`, and downloads and archives, whose files rein cannot
name."""

from __future__ import annotations

import re
from collections.abc import Callable

from rein.steering.bash._effects import join_path
from rein.steering.bash.commands._inner import Call, Value
from rein.steering.bash.commands._interp import language, program
from rein.steering.bash.commands._options import parse
from rein.steering.bash.commands._sources import stdin_text
from rein.steering.bash.commands._tables import spec
from rein.steering.bash.model import UNKNOWN, Word

Write = tuple[Word, Value, bool]
"""A path as written, the content (UNKNOWN when not known) and whether it is appended."""
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
    handler = _WRITERS.get(call.name)
    if handler is None and language(call.name) not in (None, "shell"):
        return _program(call)
    return handler(call) if handler is not None else NONE


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
    return (), bool(_WRITE_APIS.search(text) or (prog.language == "awk" and ">" in text))


def _operands(call: Call) -> list[Word]:
    return [word for word in call.argv[1:] if not word.value.startswith("-") or word.value == "-"]


def _tee(call: Call) -> Writes:
    content = call.stdin.content if call.stdin is not None else UNKNOWN
    append = any(word.value in ("-a", "--append") for word in call.argv[1:])
    return tuple((word, content, append) for word in _operands(call)), False


def _copy(call: Call) -> Writes:
    operands = _operands(call)
    if len(operands) != 2:
        return tuple((word, UNKNOWN, False) for word in operands[-1:]), len(operands) > 2
    source, target = operands
    path = join_path(call.state.cwd, source.value) if not source.dynamic else UNKNOWN
    content = call.files.get(path, UNKNOWN) if isinstance(path, str) else UNKNOWN
    base = source.value.rstrip("/").rpartition("/")[2]
    inside = Word.literal(f"{target.value.rstrip('/')}/{base}") if not target.dynamic else target
    return ((target, content, False), (inside, content, False)), False


def _in_place(call: Call) -> Writes:
    """`sed -i`, `perl -i`: edits files in place, so what they hold is no longer known."""
    if not any(word.value.startswith(("-i", "--in-place")) for word in call.argv[1:]):
        return NONE
    return tuple((word, UNKNOWN, False) for word in _operands(call)[1:]), False


def _download(call: Call) -> Writes:
    """`curl -o f`, `wget -O f`: the file holds what the network sent; `-O` names it from the URL."""
    argv = call.argv
    for index, word in enumerate(argv[1:], start=1):
        value = word.value
        if value in ("-o", "--output", "--output-document") and index + 1 < len(argv):
            return ((argv[index + 1], UNKNOWN, False),), False
        if value.startswith(("--output=", "--output-document=")):
            return ((Word.literal(value.partition("=")[2]), UNKNOWN, False),), False
    named = call.name == "wget" or any(word.value in ("-O", "--remote-name") for word in argv[1:])
    return (), named


def _clone(call: Call) -> Writes:
    """`git clone`, `gh repo clone`: a new tree of files rein cannot know."""
    return (), any(word.value == "clone" for word in call.argv[1:3])


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
    "cp": _copy,
    "mv": _copy,
    "install": _copy,
    "sed": _in_place,
    "perl": _in_place,
    "curl": _download,
    "wget": _download,
    "tar": _tar,
    "bsdtar": _tar,
    "git": _clone,
    "gh": _clone,
    "npm": _package_json,
    "pnpm": _package_json,
    "bun": _package_json,
    **{name: lambda call: ((), True) for name in _UNNAMED},
}
