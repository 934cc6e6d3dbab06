"""A program named only at run time (`$X -i in.mp4`, `subprocess.run([exe, "-i", ...])`): what could
it run?

Each rule is tried with every program name it is about (`_match._any_name`), so `$X push --force`
and `$X -rf ~` still block. What remains is a program that runs something else: a shell, an
interpreter or a wrapper given a command, code or a script. Its arguments say whether it could be
given one; when none could, no rule applies whatever the program is, and it runs.
"""

from __future__ import annotations

import posixpath
import re

from rein.steering._args import may_split
from rein.steering.bash import CommandRef, Word

_SHELLISH = re.compile(r"[\s;&|`$()<>{}\\*?\[\]'\"]")
_PLAIN = re.compile(r"[\w.:,=+-]+")
_CODE_FLAGS = frozenset({
    "-c", "-e", "-E", "-r", "-x", "-m", "-S", "--eval", "--exec", "--command", "--run", "--execute",
    "--print", "-p",
})  # fmt: skip
_SCRIPTS = (
    ".sh", ".bash", ".zsh", ".fish", ".py", ".js", ".mjs", ".cjs", ".ts", ".rb", ".pl", ".php", ".lua",
    ".tcl", ".r", ".R", ".jl", ".mk", ".ps1", ".bat", ".cmd", ".exe", ".jar", ".el", ".awk",
)  # fmt: skip


def may_run_something(ref: CommandRef, known: frozenset[str]) -> bool:
    """Whether a program named only at run time, given `ref`'s arguments, could be running a command
    rein would have to read: a name that may split into several words (`$CMD` unquoted, `"$@"`), an
    argument that may split, that is a command name, a script or a path to a program, that holds
    shell syntax or blanks (a command line, code), or an option that hands code over (`-c`, `-e`)."""
    if may_split(ref.argv[0]):  # `$CMD`, `"$@"`: the name may be several words, the command itself
        return True
    args = ref.args
    for index, word in enumerate(args):
        value = word.value
        if word.dynamic or not value:
            return True
        name = posixpath.basename(value)
        if name in known or _SHELLISH.search(value):
            return True
        if value in _CODE_FLAGS and (value == "-m" or _handed(args[index + 1 : index + 2], known)):
            return True
        if value.endswith(_SCRIPTS) or value.startswith(("./", "../", "/", "~")):
            return True
        if value.startswith("-") and "=" in value:  # `--exec=...`: read its value the same way
            option, _, setting = value.partition("=")
            if option in _CODE_FLAGS or posixpath.basename(setting) in known:
                return True
    return False


def _handed(following: tuple[Word, ...], known: frozenset[str]) -> bool:
    """Whether what follows a code flag could be code or a command: not a plain word such as
    ffmpeg's `-c copy` or a port after `-p`. Nothing following may mean the code comes on stdin."""
    if not following:
        return True
    word = following[0]
    value = word.value
    return word.dynamic or not _PLAIN.fullmatch(value) or value in known
