"""Python's program runners: `python -m timeit`, `-m pdb`, `-m cProfile`/`profile`, `-m trace` and
`-m IPython` take Python code or another script or module to run, and `ipython` takes `-c CODE`.

timeit runs its `-s` setup and statements; pdb's `-c` commands are Python (a leading `!` or `p `
marks a statement or expression); the profilers and trace run a script or, with `-m`/`--module`, a
module, which may be one of these again. Any other module runs as a command (`python -m http.server`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from rein.steering.bash._words import tail
from rein.steering.bash.commands._interp_getopt import Getopt, getopt
from rein.steering.bash.commands._interp_program import Program
from rein.steering.bash.model import Word

_TIMEIT = Getopt(
    values="nrsu",
    longs={"number": "=n", "repeat": "=r", "setup": "=s", "unit": "=u", "process": "p", "verbose": "v",
           "help": "h"},
)  # fmt: skip
_PDB = Getopt(values="c", longs={"command": "=c", "help": "h"})
_PROFILE = Getopt(values="os", longs={"outfile": "=o", "sort": "=s"})
_TRACE = Getopt(
    values="fC",
    longs={
        "file": "=f", "coverdir": "=C", "ignore-module": "=", "ignore-dir": "=", "module": "", "count": "c",
        "trace": "t", "listfuncs": "l", "trackcalls": "T", "report": "r", "no-report": "R",
        "missing": "m", "summary": "s", "timing": "g", "help": "h", "version": "",
    },
)  # fmt: skip
_PDB_COMMAND = re.compile(r"\s*(?:!|pp?\s+(?!=))")
"""The start of a pdb command that is a Python statement (`!stmt`) or prints an expression (`p x`)."""

_IPYTHON_VALUES = frozenset({
    "--profile", "--profile-dir", "--ipython-dir", "--config", "--log-level", "--colors", "--logfile",
    "--logappend", "--autocall", "--cache-size", "--ext", "--gui", "--pylab", "--matplotlib",
})  # fmt: skip
_IPYTHON_CODE = frozenset({"-c", "--c"})
_IPYTHON_CODE_TRAITS = ("--TerminalIPythonApp.code_to_run", "--InteractiveShellApp.code_to_run")


def module(name: Word, argv: Sequence[Word], rest: int) -> Program:
    """`python -m name argv[rest:]...`: the program the module runs."""
    tool = "" if name.dynamic else name.value
    if tool == "timeit":
        read = getopt(argv, _TIMEIT, rest)
        code = (*read.values("-s"), *read.operands)
        return Program("python", code=code or (Word.literal("pass"),))
    if tool == "pdb":
        read = getopt(argv, _PDB, rest)
        commands = [_pdb_statement(word) for word in read.values("-c")]
        if commands:
            return Program("python", code=tuple(commands))
        return _runs(read.has("-m"), argv, read.end)
    if tool in ("cProfile", "profile"):
        read = getopt(argv, _PROFILE, rest)
        return _runs(read.has("-m"), argv, read.end)
    if tool == "trace":
        read = getopt(argv, _TRACE, rest)
        return _runs(read.has("--module"), argv, read.end)
    if tool == "IPython":
        return ipython(argv, rest)
    return Program("python", module=name, rest=rest)


def _runs(as_module: bool, argv: Sequence[Word], end: int) -> Program:
    """A script, or a module with `-m`, run with the words after it."""
    if end >= len(argv):
        return Program("python", code=(Word.literal(""),))  # no program: the tool only prints its usage
    if as_module:
        return module(argv[end], argv, end + 1)
    return Program("python", script=argv[end])


def _pdb_statement(word: Word) -> Word:
    found = _PDB_COMMAND.match(word.value)
    return tail(word, found.end()) if found else word


def ipython(argv: Sequence[Word], start: int = 1) -> Program:
    """`ipython [options] [-c CODE | -m MODULE | script]`; options take `--name=value` or `--name value`."""
    index, count = start, len(argv)
    while index < count:
        word = argv[index]
        value = word.value
        head, eq, _ = value.partition("=")
        index += 1
        if value == "--":
            break
        if value == "-" or not value.startswith("-"):
            return Program("python", script=word, dialect="ipython")
        if head in _IPYTHON_CODE or head in _IPYTHON_CODE_TRAITS:
            code = tail(word, len(head) + 1) if eq else (argv[index] if index < count else Word.literal(""))
            return Program("python", code=(code,), dialect="ipython")
        if head in ("-m", "--m"):
            name = tail(word, len(head) + 1) if eq else (argv[index] if index < count else None)
            return module(name, argv, index + (0 if eq else 1)) if name else Program("python")
        if not eq and (head in _IPYTHON_VALUES or (head.startswith("--") and "." in head)):
            index += 1
    script = argv[index] if index < count else None
    return Program("python", script=script, dialect="ipython")
