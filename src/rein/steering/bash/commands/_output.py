"""What a command prints, when rein can tell without running it: `echo`, `printf`, `cat`, `base64 -d`,
`pwd`, and what is known of the output of `mktemp`, `find` and the git commands that print a branch.

The walker uses it for what a pipe carries (`echo 'rm -rf /' | sh`), what a command substitution gives
(`D=$(pwd)`, `T=$(mktemp -d)`) and what a redirect writes to a file (`printf ... > run.sh`).
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Callable

from rein.steering.bash._effects import join_path
from rein.steering.bash.commands._inner import Call, Value
from rein.steering.bash.model import UNKNOWN, Bounded, Unknown, Word

_ECHO_ESCAPE = re.compile(r"\\(0[0-7]{0,3}|x[0-9A-Fa-f]{1,2}|[abefnrtv\\c])")
_ESCAPES = {
    "a": "\a",
    "b": "\b",
    "e": "\x1b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "v": "\v",
    "\\": "\\",
}
_FORMAT = re.compile(
    r"%(%|[sbdic])|\\([0-7]{1,3}|x[0-9A-Fa-f]{1,2}|u[0-9A-Fa-f]{1,4}|U[0-9A-Fa-f]{1,8}|[abefnrtv\\\"'])|%"
)
"""printf's format: conversions, and escapes (`\\NNN` is octal with one to three digits, unlike echo's
`\\0NNN`)."""
_BRANCH_COMMANDS = (
    ("branch", "--show-current"),
    ("rev-parse", "--abbrev-ref", "HEAD"),
    ("symbolic-ref", "--short", "HEAD"),
)


def output(call: Call) -> Value:
    """The text `call` writes to stdout: a string, a `Bounded` value, or UNKNOWN."""
    reader = _PRODUCERS.get(call.name)
    if reader is None or any(word.dynamic for word in call.argv):
        return UNKNOWN
    return reader(call)


def _echo(call: Call) -> Value:
    words = [word.value for word in call.argv[1:]]
    newline, escapes = True, False
    while words and re.fullmatch(r"-[neE]+", words[0]):
        flags = words.pop(0)
        newline = newline and "n" not in flags
        escapes = ("e" in flags) if ("e" in flags or "E" in flags) else escapes
    text = " ".join(words)
    if escapes:
        text, stop = _unescape(text)
        newline = newline and not stop
    return text + ("\n" if newline else "")


def _unescape(text: str) -> tuple[str, bool]:
    """`echo -e` escapes; True when `\\c` ends the output there."""
    out: list[str] = []
    position = 0
    for match in _ECHO_ESCAPE.finditer(text):
        out.append(text[position : match.start()])
        code = match[1]
        if code == "c":
            return "".join(out), True
        out.append(_escape(code))
        position = match.end()
    out.append(text[position:])
    return "".join(out), False


def _escape(code: str) -> str:
    if code[0] == "0":
        return chr(int(code[1:] or "0", 8) & 0xFF)
    if code[0] == "x":
        return chr(int(code[1:], 16))
    return _ESCAPES.get(code, code)


def _printf(call: Call) -> Value:
    words = [word.value for word in call.argv[1:]]
    if words and words[0] == "--":
        words.pop(0)
    if not words or words[0].startswith("-"):
        return UNKNOWN  # `-v var` assigns instead of printing
    fmt, args = words[0], words[1:]
    out: list[str] = []
    while True:
        text, used = _format_once(fmt, args)
        if isinstance(text, Unknown):
            return UNKNOWN
        out.append(text)
        args = args[used:]
        if not args or not used:
            return "".join(out)


def _format_once(fmt: str, args: list[str]) -> tuple[str | Unknown, int]:
    out: list[str] = []
    used = position = 0
    for match in _FORMAT.finditer(fmt):
        out.append(fmt[position : match.start()])
        position = match.end()
        conversion, escape = match[1], match[2]
        if escape is not None:
            out.append(_format_escape(escape))
        elif conversion == "%":
            out.append("%")
        elif conversion is None:
            return UNKNOWN, used  # a width, precision or conversion not modelled
        else:
            value = args[used] if used < len(args) else ""
            used += 1
            out.append(_unescape(value)[0] if conversion == "b" else value)
    out.append(fmt[position:])
    return "".join(out), used


def _format_escape(code: str) -> str:
    if code[0] in "01234567":
        return chr(int(code, 8) & 0xFF)
    if code[0] in "uU":
        return chr(min(int(code[1:], 16), 0x10FFFF))
    return code if code in "\"'" else _escape(code)


def _cat(call: Call) -> Value:
    operands = [word for word in call.argv[1:] if not word.value.startswith("-") or word.value == "-"]
    if len(operands) != len(call.argv) - 1:
        return UNKNOWN  # `-n`, `-A`: numbered or marked lines
    parts = [_file(call, word) for word in operands] if operands else [_stdin(call)]
    texts = [part for part in parts if isinstance(part, str)]
    return "".join(texts) if len(texts) == len(parts) else UNKNOWN


def _stdin(call: Call) -> Value:
    return call.stdin.content if call.stdin is not None else UNKNOWN


def _file(call: Call, word: Word) -> Value:
    if word.value == "-":
        return _stdin(call)
    path = join_path(call.state.cwd, word.value)
    return call.files.get(path, UNKNOWN) if isinstance(path, str) else UNKNOWN


def _base64(call: Call) -> Value:
    args = call.argv[1:]
    if not {"-d", "--decode", "-D"} & {word.value for word in args}:
        return UNKNOWN
    operands = [word for word in args if not word.value.startswith("-")]
    source = _file(call, operands[0]) if operands else _stdin(call)
    if not isinstance(source, str):
        return UNKNOWN
    try:
        return base64.b64decode("".join(source.split()), validate=False).decode("utf-8", "replace")
    except (binascii.Error, ValueError):
        return UNKNOWN


def _git(call: Call) -> Value:
    """A branch name, a commit or tag name, local branch names one per line, or the tracked files
    below the cwd (`git ls-files` with no pathspec prints paths relative to it, none of them `..` or
    absolute). None of them starts with `-`: git refuses such names."""
    words = tuple(word.value for word in call.argv[1:])
    if words in _BRANCH_COMMANDS:
        return Bounded("ref")
    sub, rest = (words[0], words[1:]) if words else ("", ())
    if sub in _REF_PRINTERS and not _PATH_OPTIONS & {word.partition("=")[0] for word in rest}:
        return Bounded("ref")
    if sub == "branch":
        options = {word for word in rest if word.startswith("-")}
        if options <= _BRANCH_LISTING:
            return Bounded("ref")
        if options <= _BRANCH_LISTING | {"-v", "-vv", "--verbose"}:
            return Bounded("reflines")
    listing = words[:1] == ("ls-files",) and all(word.startswith("-") for word in words[1:])
    if listing and not _LS_FILES_OTHER & {word.partition("=")[0] for word in words}:
        return Bounded("below", call.state.cwd) if isinstance(call.state.cwd, str) else UNKNOWN
    return UNKNOWN


_LS_FILES_OTHER = frozenset({"--full-name", "--format", "--debug", "-s", "--stage"})
_REF_PRINTERS = frozenset({"merge-base", "rev-parse", "describe", "rev-list", "name-rev", "symbolic-ref"})
"""git commands that print commit ids and ref names."""
_PATH_OPTIONS = frozenset({
    "--show-toplevel", "--git-dir", "--absolute-git-dir", "--git-common-dir", "--show-prefix",
    "--show-cdup", "--git-path", "--show-superproject-working-tree", "--local-env-vars", "--parseopt",
    "--sq-quote", "--format", "--pretty", "--stdin",
})  # fmt: skip
"""Options with which those print paths or text instead."""
_BRANCH_LISTING = frozenset({"--merged", "--no-merged", "--list", "-l", "--contains", "--no-contains"})
"""`git branch` listing local branches one per line (not `-v`, `-r` or `-a`, whose lines hold more)."""
"""`git ls-files` options that print something other than paths below the cwd."""


def _find(call: Call) -> Value:
    """`find P ...` prints paths at or below P, unless an action prints something else."""
    args = [word.value for word in call.argv[1:]]
    if any(arg.startswith(("-printf", "-fprint", "-exec", "-ok", "-ls", "-fls")) for arg in args):
        return UNKNOWN
    starts = [arg for arg in args if arg not in ("-H", "-L", "-P")]
    starts = starts[
        : next((i for i, arg in enumerate(starts) if arg.startswith(("-", "(", "!"))), len(starts))
    ]
    if len(starts) > 1:
        return UNKNOWN
    path = join_path(call.state.cwd, starts[0] if starts else ".")
    return Bounded("below", path) if isinstance(path, str) else UNKNOWN


def _pwd(call: Call) -> Value:
    """The logical cwd; `pwd -P` resolves symbolic links, which rein cannot see."""
    physical = any("P" in word.value for word in call.argv[1:] if word.value.startswith("-"))
    return call.state.cwd + "\n" if isinstance(call.state.cwd, str) and not physical else UNKNOWN


def _which(call: Call) -> Value:
    """`which git`, `command -v git`, `type -P git`: a path ending in the name, which runs the same
    program as the name itself, so rein reads it as the name."""
    args = [word.value for word in call.argv[1:]]
    if call.name == "which":
        names = args if args and not any(arg.startswith("-") for arg in args) else []
    else:  # `command -v NAME`, `type -P NAME`
        names = args[1:] if args[:1] in (["-v"], ["-P"], ["-p"]) else []
    return names[0] + "\n" if len(names) == 1 else UNKNOWN


def _filtered(call: Call) -> Value:
    """What a filter prints of an input whose lines rein bounds: some of those lines (`grep`, `head`,
    `sort`), or the first or last field of each (`awk '{print $1}'` of branch names)."""
    content = _stdin(call)
    if not isinstance(content, Bounded) or _operands(call):
        return UNKNOWN
    args = [word.value for word in call.argv[1:]]
    if call.name == "awk":
        if content.kind == "ref" and args in (["{print $1}"], ["{print $NF}"]):
            return content
        return Bounded("ref") if content.kind == "reflines" and args == ["{print $1}"] else UNKNOWN
    if call.name in ("grep", "egrep", "fgrep") and any(
        arg.startswith(("-o", "--only", "-A", "-B", "-C", "--context", "--after", "--before")) for arg in args
    ):
        return UNKNOWN  # parts of lines, or `--` between groups
    return content


def _operands(call: Call) -> bool:
    """Whether a filter reads files named on its command line instead of its input (grep's first
    operand is its pattern, awk's its program)."""
    operands = [word for word in call.argv[1:] if not word.value.startswith("-")]
    return len(operands) > (1 if call.name in ("grep", "egrep", "fgrep", "awk") else 0)


_PRODUCERS: dict[str, Callable[[Call], Value]] = {
    "echo": _echo,
    "printf": _printf,
    "cat": _cat,
    "tee": _stdin,
    "base64": _base64,
    "pwd": _pwd,
    "mktemp": lambda call: Bounded("temp"),
    "git": _git,
    "find": _find,
    "which": _which,
    "command": _which,
    "type": _which,
    **dict.fromkeys(("grep", "egrep", "fgrep", "head", "tail", "sort", "uniq", "awk"), _filtered),
}
