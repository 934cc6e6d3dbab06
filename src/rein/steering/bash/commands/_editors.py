"""Editors and debuggers whose commands run shell commands: vim and its relatives (`-c`, `+cmd`,
`--cmd`, `-S`/`-u` files, ex mode's stdin: `:!cmd`, `:r !cmd`, `:w !cmd`, `:%!filter`, `:terminal`,
`system()`, `:py3`), `ed` (`!cmd`, `r !cmd`, a file named `!cmd`) and `gdb` (`-ex 'shell cmd'`, `!cmd`,
`pipe`, `python`, `--args prog`). A restricted editor (`vim -Z`, `ed -r`; `rvim` and `red` are inert)
runs none."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from rein.steering.bash._words import tail
from rein.steering.bash.commands._consoles import Escape, escapes
from rein.steering.bash.commands._inner import PLACEHOLDER, Call, Inner, Unwrapped, run
from rein.steering.bash.commands._programs import launched
from rein.steering.bash.commands._queries import given, read_file, read_stdin
from rein.steering.bash.commands._subcommand_runs import Handler
from rein.steering.bash.launch import launches
from rein.steering.bash.model import Word

_RANGE = r"(?:[\s:]|%|[.$]|\d+|'[a-z<>]|/(?:\\.|[^/\n])*/|\?(?:\\.|[^?\n])*\?|[-+]\d*|[,;])*"
_MODIFIERS = re.compile(
    r"(?:(?:sil(?:ent)?!?|keep\w*|noa(?:utocmd)?|vert(?:ical)?|bo(?:tright)?|to(?:pleft)?|tab|"
    r"lefta(?:bove)?|rightb(?:elow)?|abo(?:veleft)?|bel(?:owright)?|uns(?:ilent)?|verb(?:ose)?|"
    r"hid(?:e)?|conf(?:irm)?|lockm(?:arks)?)\s+)*"
)
_BANG = re.compile(r"(?:r(?:e(?:ad?)?)?\s*|w(?:r(?:i(?:te?)?)?)?\s+)?!(.*)$", re.DOTALL)
"""`:!cmd`, `:{range}!filter`, `:r !cmd` (or `:r!cmd`), `:w !cmd` (`:w!` is a forced write)."""
_TERMINAL = re.compile(r"(?:ter(?:m(?:i(?:n(?:al?)?)?)?)?)(?:\s+\+\+\S+)*\s+(.*)$", re.DOTALL)
_EXECUTE = re.compile(r"exe(?:c(?:u(?:te?)?)?)?\s+(['\"])(.*?)(?<!\\)\1")
_LANGUAGE = re.compile(r"(py3|python3|py|python|pyx|pythonx|perl|ruby|rub)\s+(.*)$", re.DOTALL)
_CALLS = re.compile(
    r"\b(?:system|systemlist|jobstart|termopen|job_start|term_start|os\.execute|io\.popen)\s*\(\s*"
    r"(?:(['\"])((?:\\.|(?!\1).)*)\1|([^)]*))",
)
_LANGUAGES = {"py3": "python", "python3": "python", "py": "python", "python": "python", "pyx": "python"}
_LANGUAGES |= {"pythonx": "python", "perl": "perl", "ruby": "ruby", "rub": "ruby"}


def ex_commands(text: str) -> Iterator[Escape]:
    """The shell commands in vim's Ex commands, one per line, chained with `|`."""
    for line in text.splitlines():
        calls = [(match[2] if match[1] else PLACEHOLDER) for match in _CALLS.finditer(line)]
        found = [*((call, "maybe") for call in calls), *_ex_line(line, 0)]  # `call system('cmd')`
        yield from dict.fromkeys(found)  # `:py3 os.system(...)` is read once


def _ex_line(line: str, depth: int) -> Iterator[Escape]:
    rest = line
    while rest.strip() and depth < 4:
        rest = _MODIFIERS.sub("", re.sub(rf"^{_RANGE}", "", rest, count=1), count=1)
        bang = _BANG.match(rest)
        if bang is not None:  # the shell command takes the rest of the line, `|` included
            yield bang[1], "maybe"
            return
        terminal = _TERMINAL.match(rest)
        if terminal is not None:
            yield terminal[1], "maybe"
            return
        language = _LANGUAGE.match(rest)
        if language is not None:
            yield from _program(_LANGUAGES[language[1]], language[2])
            return
        execute = _EXECUTE.match(rest)
        if execute is not None:
            yield from _ex_line(execute[2], depth + 1)
        _, bar, rest = rest.partition("|")
        if not bar:
            return


def _program(language: str, code: str) -> Iterator[Escape]:
    found = launched(language, launches(language, code))
    for inner in found.inners:
        yield inner.script or "", "maybe"
    if found.notes:
        yield PLACEHOLDER, "maybe"


_VIM_EX_MODE = frozenset({"ex", "exim", "nex"})
_VIM_VALUES = "cSuUTitqWs"
"""vim's options that take an argument, attached or the next word (`-s` is silent in ex mode)."""


def vim(call: Call) -> Unwrapped:
    """`vim -c CMD`, `+CMD`, `--cmd CMD`, `-S file` and `-u file` (when this line wrote them), `-s
    keys` in normal mode, ex mode's stdin (`ex -s f <<< '!cmd'`, `vim -es`), `--remote-send KEYS`."""
    argv = call.argv
    if any(word.value == "-Z" for word in argv[1:]):
        return Unwrapped()
    commands: list[Word] = []
    files: list[Word] = []
    keys: list[Word] = []
    ex_mode = call.name in _VIM_EX_MODE
    index = 1
    while index < len(argv):
        word, following = argv[index], argv[index + 1] if index + 1 < len(argv) else None
        value = word.value
        index += 1
        if value == "--":
            break
        if value.startswith("+") and len(value) > 1 and not re.fullmatch(r"\+\d*|\+/.*", value):
            commands.append(tail(word, 1))
        elif value in ("--cmd", "--remote-send") and following is not None:
            index += 1
            (commands if value == "--cmd" else keys).append(following)
        elif value.startswith("-") and not value.startswith("--"):
            for position, letter in enumerate(value[1:], start=1):
                ex_mode = ex_mode or letter in "eE"
                if letter not in _VIM_VALUES or (letter == "s" and ex_mode):
                    continue
                if position + 1 < len(value):
                    argument: Word | None = tail(word, position + 1)
                else:
                    argument, index = following, index + 1
                if argument is not None:
                    {"c": commands, "s": keys, "S": files, "u": files}.get(letter, []).append(argument)
                break
    texts = given(commands)
    notes: list[str] = []
    for word in files:
        if word.value not in ("NONE", "NORC", "NOPLUGIN", "DEFAULTS"):
            more, why = read_file(call, word, "commands")
            texts, notes = texts + more, notes + why
    for word in keys:
        more = given([word]) if word.value.startswith(":") or "<CR>" in word.value else []
        more = more or read_file(call, word, "keys")[0]
        texts += [line[1:] for text in more for line in re.split(r"<CR>|\n|\r", text) if line.startswith(":")]
    if ex_mode:
        texts += read_stdin(call)
    return escapes(call.name, texts, ex_commands, notes)


_ED_ADDRESS = r"(?:[\d.$,;+\-\s]|'[a-z]|/(?:\\.|[^/])*/|\?(?:\\.|[^?])*\?)*"
_ED_SHELL = re.compile(rf"^{_ED_ADDRESS}(?:[rwWeE]\s*)?!(.*)$")
_ED_GLOBAL = re.compile(r"^\s*[gGvV]/(?:\\.|[^/])*/(.*)$")


def _ed_commands(text: str) -> Iterator[Escape]:
    for line in text.splitlines():
        match = _ED_GLOBAL.match(line)
        found = _ED_SHELL.match(match[1] if match is not None else line)
        if found is not None:
            yield found[1], "child"


def ed(call: Call) -> Unwrapped:
    """`ed [-s] [file]` reads commands on stdin: `!cmd`, `r !cmd`, `w !cmd`, `e !cmd`; a file operand
    `!cmd` is read from cmd's output. `-r` is restricted."""
    argv = call.argv
    if any(re.fullmatch(r"-[a-zA-Z]*r[a-zA-Z]*|--restricted", word.value) for word in argv[1:]):
        return Unwrapped()
    operands = [word for word in argv[1:] if not word.value.startswith("-") or word.value == "-"]
    texts = [f"e {text}" for text in given(operands[:1]) if text.startswith("!")]
    return escapes("ed", [*texts, *read_stdin(call)], _ed_commands)


_GDB_COMMANDS = frozenset({
    "-ex", "--ex", "-eval-command", "--eval-command", "-iex", "--iex", "-init-eval-command",
    "--init-eval-command",
})  # fmt: skip
_GDB_FILES = frozenset({
    "-x", "--x", "-command", "--command", "-ix", "--ix", "-init-command", "--init-command",
})  # fmt: skip
_GDB_SHELL = re.compile(r"^\s*(?:shell\s+|!)(.*)$")
_GDB_PIPE = re.compile(r"^\s*(?:pipe\s|\|).*?\|(.*)$")
_GDB_MAKE = re.compile(r"^\s*make\b(.*)$")
_GDB_PYTHON = re.compile(r"^\s*(?:python|py|pi)(?:\s+(.*))?$")


def gdb_commands(text: str) -> Iterator[Escape]:
    """gdb's `shell cmd`, `!cmd`, `pipe cmd | shell-cmd`, `make args`, and `python` code (one line, or
    a block up to `end`)."""
    lines = iter(text.splitlines())
    for line in lines:
        for pattern, prefix in ((_GDB_SHELL, ""), (_GDB_PIPE, ""), (_GDB_MAKE, "make")):
            match = pattern.match(line)
            if match is not None:
                yield f"{prefix}{match[1]}", "child"
                break
        else:
            python = _GDB_PYTHON.match(line)
            if python is None:
                continue
            code = python[1]
            if not code:
                code = "\n".join(_until_end(lines))
            yield from _program("python", code)


def _until_end(lines: Iterable[str]) -> Iterator[str]:
    for line in lines:
        if line.strip() == "end":
            return
        yield line


def gdb(call: Call) -> Unwrapped:
    """`gdb -ex CMD` (and `--eval-command=CMD`, `-iex`), `-x FILE` the line wrote, stdin; `--args
    prog args` is the program `run` starts."""
    argv = call.argv
    commands: list[Word] = []
    notes: list[str] = []
    texts: list[str] = []
    program: tuple[Word, ...] = ()
    index = 1
    while index < len(argv):
        word, following = argv[index], argv[index + 1] if index + 1 < len(argv) else None
        name, eq, _ = word.value.partition("=")
        index += 1
        if word.value in ("--args", "-args"):
            program = argv[index:]
            break
        if name in _GDB_COMMANDS or name in _GDB_FILES:
            value = tail(word, len(name) + 1) if eq else following
            index += not eq
            if value is None:
                continue
            if name in _GDB_COMMANDS:
                commands.append(value)
            else:
                more, why = read_file(call, value, "commands")
                texts, notes = texts + more, notes + why
    found = escapes("gdb", [*given(commands), *texts, *read_stdin(call)], gdb_commands, notes)
    started = run("gdb --args", "maybe", program)
    inners: tuple[Inner, ...] = (*found.inners, *started.inners)
    return Unwrapped(inners, found.notes)


HANDLERS: dict[str, Handler] = {
    **dict.fromkeys(
        ("vim", "vi", "nvim", "view", "vimdiff", "gvim", "gview", "evim", "vimx", "ex", "nex", "exim"), vim
    ),
    "ed": ed,
    "gdb": gdb,
}
"""Editors and debuggers by command name."""
