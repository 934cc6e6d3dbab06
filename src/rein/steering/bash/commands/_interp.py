"""Shells and interpreters: where their program comes from (`-c`, `-e`, a script file, or stdin)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from rein.steering.bash.commands._interp_awk import awk
from rein.steering.bash.commands._interp_clustered import CLUSTERS, clustered
from rein.steering.bash.commands._interp_js import javascript
from rein.steering.bash.commands._interp_program import Program
from rein.steering.bash.commands._interp_python import ipython, module
from rein.steering.bash.commands._interp_spec_names import LANGUAGES as MORE
from rein.steering.bash.model import Word

SHELLS = frozenset({
    "sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "yash", "posh", "oksh", "loksh", "lksh", "pdksh",
    "rbash",
})  # fmt: skip
_PYTHON = re.compile(r"(?:python|pypy)[0-9.]*\Z")
_LANGUAGES = {
    "node": "javascript", "nodejs": "javascript", "bun": "javascript", "deno": "javascript",
    "tsx": "javascript", "ts-node": "javascript",
    "perl": "perl", "ruby": "ruby", "php": "php", "irb": "ruby", "rake": "ruby",
    "ipython": "python", "ipython3": "python",
    "awk": "awk", "gawk": "awk", "mawk": "awk", "nawk": "awk",
}  # fmt: skip
INTERPRETERS = SHELLS | frozenset(_LANGUAGES) | frozenset(MORE)
"""Names `program` knows, besides python's (`python3.12`, `pypy3`)."""


def language(name: str) -> str | None:
    """The language a command name runs: "python", "javascript", ..., "shell"; None for others."""
    if name in _LANGUAGE_OF:
        return _LANGUAGE_OF[name]
    found = _language(name)
    if len(_LANGUAGE_OF) < 4096:
        _LANGUAGE_OF[name] = found
    return found


_LANGUAGE_OF: dict[str, str | None] = {}
"""`language` by name, asked several times per command."""


def _language(name: str) -> str | None:
    if name in SHELLS:
        return "shell"
    if name.startswith(("python", "pypy")) and _PYTHON.match(name):
        return "python"
    return _LANGUAGES.get(name) or MORE.get(name)


def program(name: str, argv: Sequence[Word]) -> Program | None:
    """How the command `argv` (with basename `name`) gets its program; None if it is no interpreter."""
    lang = language(name)
    if lang is None:
        return None
    if name in MORE:
        from rein.steering.bash.commands import (
            _interp_spec_readers,  # on first use: most lines run none of these
        )

        return _interp_spec_readers.program(name, argv)
    if lang == "shell":
        has_c, has_s, index = shell_options(argv)
        operand = argv[index] if index < len(argv) else None
        if has_c:
            return Program(lang, code=(operand,) if operand else (Word.literal(""),))
        return Program(lang, script=None if has_s else operand)
    if lang == "javascript":
        return javascript(name, argv)
    if lang == "awk":
        return awk(argv)
    if name.startswith("ipython"):
        return ipython(argv)
    found = clustered(lang, CLUSTERS[name if name in ("irb", "rake") else lang], argv)
    if name == "rake":
        return replace(found, dialect="rake", script=None) if found.code else None
    if found.module is not None and lang == "python":
        return module(found.module, argv, found.rest)
    return found


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


__all__ = ["INTERPRETERS", "SHELLS", "Program", "language", "program", "shell_options"]
