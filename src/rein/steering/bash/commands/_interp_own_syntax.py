"""The interpreters that read their command lines their own way: PowerShell (case-insensitive,
abbreviated parameters, `-Command` taking every word after it, `-EncodedCommand` in base64), Emacs
and emacsclient (`--eval`, `-l`, `-f`; every operand an expression with `emacsclient -e`), and lldb
(`-o`/`-O` commands, `-s` files, the program it debugs)."""

from __future__ import annotations

import base64
import binascii
import shlex
from collections.abc import Sequence
from dataclasses import replace

from rein.steering.bash._words import tail
from rein.steering.bash.commands._interp_program import Program
from rein.steering.bash.launch import RUNTIME
from rein.steering.bash.model import Word

_PWSH_VALUES = (
    "executionpolicy", "ep", "ex", "workingdirectory", "wd", "inputformat", "inp", "if", "outputformat", "of",
    "o", "configurationname", "config", "custompipename", "windowstyle", "w", "settingsfile", "settings",
    "version", "v",
)  # fmt: skip


def powershell(argv: Sequence[Word], default: str) -> Program:
    """`pwsh -Command ...` (the rest of the words joined), `-File f`, `-EncodedCommand b64`; an operand is
    a `-File` to pwsh and a `-Command` to Windows PowerShell. Parameters are case-insensitive prefixes."""
    index = 1
    while index < len(argv):
        word = argv[index]
        value = word.value.lower()
        index += 1
        if not value.startswith(("-", "/")) or value == "-":
            return _powershell_run(default, argv, index - 1)
        name = value.lstrip("-/").partition(":")[0]
        if name == "c" or (len(name) > 2 and "command".startswith(name)):
            return _powershell_run("command", argv, index)
        if name in ("f", "file") or (len(name) > 1 and "file".startswith(name)):
            return _powershell_run("file", argv, index)
        if name in ("e", "ec") or (len(name) > 1 and "encodedcommand".startswith(name)):
            return _encoded(argv[index] if index < len(argv) else None)
        if name in ("cwa", "commandwithargs"):
            return _powershell_run("command", argv, index, 1)
        if name in _PWSH_VALUES or any(long.startswith(name) and len(name) > 2 for long in _PWSH_VALUES):
            index += 1
    return Program("powershell")


def _powershell_run(mode: str, argv: Sequence[Word], index: int, count: int = 0) -> Program:
    rest = argv[index : index + count] if count else argv[index:]
    if not rest or rest[0].value == "-":
        return Program("powershell")
    if mode == "file":
        return Program("powershell", script=rest[0])
    if len(rest) == 1:
        return Program("powershell", code=(rest[0],))
    if any(word.dynamic for word in rest):
        return Program("powershell", code=tuple(rest))
    return Program("powershell", code=(Word.literal(" ".join(word.value for word in rest)),))


def _encoded(word: Word | None) -> Program:
    """`-EncodedCommand`: base64 of UTF-16LE text, decoded; what does not decode is unknown."""
    if word is None or word.dynamic:
        return Program("powershell", code=(word,) if word is not None else ())
    try:
        text = base64.b64decode(word.value, validate=True).decode("utf-16-le")
    except (binascii.Error, UnicodeDecodeError, ValueError):
        text = "Invoke-Expression $undecodable"
    return Program("powershell", code=(Word.literal(text),))


_EMACS_CODE = frozenset({"--eval", "-eval", "--execute", "-execute"})
_EMACS_FILES = frozenset({"-l", "--load", "-load", "--script", "-script", "-x"})
_EMACS_CALLS = frozenset({"-f", "--funcall", "-funcall"})
_EMACS_VALUES = frozenset({
    "-L", "--directory", "--chdir", "-d", "--display", "-fn", "--font", "-bg", "-fg", "--background-color",
    "--foreground-color", "-bd", "-cr", "-ms", "-bw", "-ib", "-lsp", "-g", "--geometry", "-T", "--title",
    "--name", "--xrm", "-t", "--terminal", "--init-directory", "--dump-file", "-u", "--user",
    "-s", "--socket-name", "--server-file", "-a", "--alternate-editor", "--tramp", "-F",
    "--frame-parameters", "--parent-id", "-w", "--timeout",
})  # fmt: skip


def emacs(argv: Sequence[Word]) -> Program | None:
    """`emacs --batch --eval X -l f -f fn`; `emacsclient -e`, with which every operand is an expression."""
    client = argv[0].value.endswith("emacsclient")
    code: list[Word] = []
    files: list[Word] = []
    evaluate = False
    index = 1
    while index < len(argv):
        word = argv[index]
        name, eq, _ = word.value.partition("=")
        index += 1
        if client and name in ("-e", "--eval"):
            evaluate = True
            continue
        if not name.startswith("-") or name == "-":
            if evaluate:
                code.append(word)
            continue
        known = name in _EMACS_CODE or name in _EMACS_FILES or name in _EMACS_CALLS or name in _EMACS_VALUES
        if not known:
            continue
        taken = tail(word, len(name) + 1) if eq else (argv[index] if index < len(argv) else None)
        index += 0 if eq else 1
        if taken is None:
            continue
        if name in _EMACS_CODE and not client:
            code.append(taken)
        elif name in _EMACS_FILES and not client:
            files.append(taken)
        elif name in _EMACS_CALLS and not client:
            code.append(replace(taken, value=f"({taken.value})"))
    if code:
        return Program("elisp", code=tuple(code), files=tuple(files))
    return Program("elisp", script=files[0], files=tuple(files[1:])) if files else None


TARGET = "__rein_target__"
"""The line that gives lldb's reader the program `run` starts (`launch.lldb.TARGET`)."""
_LLDB_BEFORE = frozenset({"-O", "--one-line-before-file"})
_LLDB_CODE = frozenset({"-o", "--one-line", "-k", "--one-line-on-crash"}) | _LLDB_BEFORE
_LLDB_FILES = frozenset({"-s", "--source", "-S", "--source-before-file", "-K", "--source-on-crash"})
_LLDB_VALUES = frozenset({
    "-a", "--arch", "-c", "--core", "-p", "--attach-pid", "-n", "--attach-name", "-l", "--script-language",
    "-f", "--file",
})  # fmt: skip


def lldb(argv: Sequence[Word]) -> Program | None:
    """`lldb -o CMD -s FILE -- prog args`: the commands, with the program `run` starts as the line
    `__rein_target__ prog args` between the `-O` commands and the others."""
    before: list[Word] = []
    after: list[Word] = []
    files: list[Word] = []
    target: list[Word] = []
    index = 1
    while index < len(argv):
        word = argv[index]
        name, eq, _ = word.value.partition("=")
        index += 1
        if word.value == "--":
            target.extend(argv[index:])
            break
        if name in _LLDB_CODE or name in _LLDB_FILES or name in _LLDB_VALUES:
            taken = tail(word, len(name) + 1) if eq else (argv[index] if index < len(argv) else None)
            index += 0 if eq else 1
            if taken is None:
                continue
            listed = before if name in _LLDB_BEFORE else after if name in _LLDB_CODE else files
            listed = listed if name not in ("-f", "--file") else target
            listed.append(taken) if name not in _LLDB_VALUES or name in ("-f", "--file") else None
        elif not word.value.startswith("-"):
            target.append(word)
    program = [f'"{RUNTIME}"' if word.dynamic else shlex.quote(word.value) for word in target]
    line = (Word.literal(f"{TARGET} {' '.join(program)}"),) if target else ()
    if not before and not line and not after and not files:
        return None
    return Program("lldb", code=(*before, *line, *after), files=tuple(files))
