"""Shells and interpreters: where their program comes from (`-c`, `-e`, a script file, or stdin)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from rein.steering.bash.model import Word

SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "mksh", "ash"})
_PYTHON = re.compile(r"(?:python|pypy)[0-9.]*\Z")
_LANGUAGES = {
    "node": "javascript", "nodejs": "javascript", "bun": "javascript", "deno": "javascript",
    "perl": "perl", "ruby": "ruby", "php": "php",
    "awk": "awk", "gawk": "awk", "mawk": "awk", "nawk": "awk",
}  # fmt: skip
INTERPRETERS = SHELLS | frozenset(_LANGUAGES)
"""Names `program` knows, besides python's (`python3.12`, `pypy3`)."""
_JS_CODE = frozenset({"-e", "--eval", "-p", "--print"})
_JS_VALUE = frozenset({"-r", "--require", "--import", "--loader", "-C", "--conditions", "--input-type"})
# Letters of a short-option cluster that take the rest of the cluster, or the next word, as a value.
_VALUE_LETTERS = {"python": "WXm", "perl": "IMmdDx", "ruby": "IrCEFx", "php": "cdz"}
_CODE_LETTERS = {"python": "c", "perl": "eE", "ruby": "e", "php": "r"}


@dataclass(frozen=True, slots=True)
class Program:
    """Where an interpreter or shell takes its program from."""

    language: str
    code: tuple[Word, ...] = ()
    """Inline program text (`-c`, `-e`; perl and ruby may give several, joined by newlines)."""
    script: Word | None = None
    """The script operand, when the program is a file."""
    module: Word | None = None
    """`python -m module`: the module run as the program."""
    rest: int = 0
    """Index of the first argument passed to the program (after `-m module`)."""

    @property
    def from_stdin(self) -> bool:
        return not self.code and self.module is None and (self.script is None or self.script.value == "-")


def language(name: str) -> str | None:
    """The language a command name runs: "python", "javascript", ..., "shell"; None for others."""
    if name in SHELLS:
        return "shell"
    if name.startswith(("python", "pypy")) and _PYTHON.match(name):
        return "python"
    return _LANGUAGES.get(name)


def program(name: str, argv: Sequence[Word]) -> Program | None:
    """How the command `argv` (with basename `name`) gets its program; None if it is no interpreter."""
    lang = language(name)
    if lang is None:
        return None
    if lang == "shell":
        has_c, has_s, index = shell_options(argv)
        operand = argv[index] if index < len(argv) else None
        if has_c:
            return Program(lang, code=(operand,) if operand else (Word.literal(""),))
        return Program(lang, script=None if has_s else operand)
    if lang == "javascript":
        return _javascript(name, argv)
    if lang == "awk":
        return _awk(argv)
    return _clustered(lang, argv)


def shell_options(argv: Sequence[Word]) -> tuple[bool, bool, int]:
    """Whether a shell got `-c` and `-s`, and the index of its first operand (the `-c` string)."""
    has_c = has_s = False
    index, count = 1, len(argv)
    while index < count:
        value = argv[index].value
        if value in ("--", "-"):
            return has_c, has_s, index + 1
        if value.startswith("--"):
            index += 2 if value in ("--rcfile", "--init-file") else 1
            continue
        if len(value) < 2 or value[0] not in "-+":
            break
        letters = value[1:]
        if value[0] == "-":
            has_c = has_c or "c" in letters
            has_s = has_s or "s" in letters
        index += 1 + letters.count("o") + letters.count("O")
    return has_c, has_s, index


def _javascript(name: str, argv: Sequence[Word]) -> Program:
    index, count = 1, len(argv)
    if name == "deno":
        if count > 2 and argv[1].value == "eval":
            return Program("javascript", code=(argv[2],))
        return Program("javascript", script=argv[1] if count > 1 else None)
    while index < count:
        value = argv[index].value
        head, eq, rest = value.partition("=")
        if head in _JS_CODE:
            if eq:
                return Program("javascript", code=(Word.literal(rest),))
            return Program("javascript", code=(argv[index + 1],) if index + 1 < count else ())
        if value == "--" or not value.startswith("-") or value == "-":
            break
        index += 2 if value in _JS_VALUE else 1
    index += argv[index].value == "--" if index < count else 0
    return Program("javascript", script=argv[index] if index < count else None)


def _awk(argv: Sequence[Word]) -> Program:
    index, count = 1, len(argv)
    while index < count:
        value = argv[index].value
        if value == "--":
            index += 1
            break
        if not value.startswith("-") or value == "-":
            break
        if value in ("-f", "--file") or value.startswith("-f"):
            return Program("awk", script=argv[index + 1] if value == "-f" and index + 1 < count else None)
        index += 2 if value in ("-v", "-F", "--assign", "--field-separator") else 1
    return Program("awk", code=(argv[index],) if index < count else ())


def _clustered(lang: str, argv: Sequence[Word]) -> Program:
    """python, perl, ruby, php: short options may be clustered (`python -Bc`, `perl -lne`)."""
    value_letters, code_letters = _VALUE_LETTERS[lang], _CODE_LETTERS[lang]
    code: list[Word] = []
    index, count = 1, len(argv)
    while index < count:
        value = argv[index].value
        if value == "--":
            index += 1
            break
        if value == "-" or not value.startswith("-"):
            break
        index += 1
        position = 1 if not value.startswith("--") else len(value)
        while position < len(value):
            letter, rest = value[position], value[position + 1 :]
            if letter in code_letters or letter in value_letters:
                taken = Word.literal(rest) if rest else (argv[index] if index < count else None)
                index += 0 if rest else 1
                if taken is not None and letter in code_letters:
                    code.append(taken)
                elif lang == "python" and letter == "m":
                    return Program(lang, module=taken, rest=index)
                break
            position += 1
            if lang in ("perl", "ruby") and letter == "i":
                break  # `-i.bak`: the rest of the cluster is the backup suffix (so `-pie` has no -e)
            if lang in ("perl", "ruby") and letter in "l0":
                while position < len(value) and value[position] in "01234567":
                    position += 1
        if code and lang == "python":
            return Program(lang, code=tuple(code))
    if code:
        return Program(lang, code=tuple(code))
    return Program(lang, script=argv[index] if index < count else None)
