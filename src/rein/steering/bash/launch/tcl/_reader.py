"""What a Tcl program (tclsh, wish, Expect) launches: `exec` (its words, with `|`, `<`, `>`, `2>@1`
and `&` as the shell's pipes and redirections), `open "|cmd"`, Expect's `spawn` and `system`, and
`file delete -force` (the `rm -rf` it amounts to). `eval`, `uplevel`, `subst` and a command whose
name is built at run time run code rein cannot see unless its words are literal; a bracketed or
braced script is read wherever it stands, `[list a b]` is the list it builds.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping

from rein.steering.bash.launch._folding import (
    MAX_DEPTH,
    RUNTIME_VALUE,
    Mark,
    Value,
    globbed,
    literal,
    removal,
    too_deep,
    unknown_launch,
)
from rein.steering.bash.launch._launch import RUNTIME, Launch
from rein.steering.bash.launch.lexical._reader import MAX_TEXT
from rein.steering.bash.launch.tcl._words import Command, Parser, TclWord

_OPERATORS = {
    "|": "|", "|&": "|&", "<": "<", ">": ">", ">>": ">>", "2>": "2>", "2>>": "2>>", "&": "&", "<<": "<<<",
    "2>@1": "2>&1", ">&": "&>", ">>&": "&>>",
}  # fmt: skip
_CHANNELS = frozenset({"<@", ">@", "2>@", ">&@"})
"""Redirections to a Tcl channel: the operator and its channel are dropped."""
_EVALS = frozenset({"namespace", "interp", "apply", "after", "time", "catch", "try"})
_LAUNCHERS = frozenset({"exec", "open", "spawn", "exp_spawn", "system", "exp_system"})
_MENTIONS = ("exec", "open", "spawn", "system", "file", "eval", "uplevel", "subst", "rename", "interp")
"""Words without which a program (or a braced word of it) launches nothing."""


def read(text: str, env: Mapping[str, str]) -> tuple[Launch, ...]:
    if not any(word in text for word in _MENTIONS):
        return ()
    if len(text) > MAX_TEXT:
        return (unknown_launch("tcl", "the Tcl program is too long to read", 1),)
    found: list[Launch] = []
    _script(text, 1, found, 0)
    return tuple(dict.fromkeys(found))


def _script(text: str, line: int, found: list[Launch], depth: int) -> None:
    if depth > MAX_DEPTH * 4:
        found.append(too_deep("tcl", line))
        return
    parser = Parser(text)
    for command in parser.commands(line):
        _command(command, found, depth)
    if parser.overflow:
        found.append(unknown_launch("tcl", "the Tcl program is too long to read", line))


def _command(command: Command, found: list[Launch], depth: int) -> None:
    for script, at in command.scripts:
        _script(script, at, found, depth + 1)
    for word in command.words[1:]:
        if word.braced and word.value.text and any(name in (word.value.text or "") for name in _MENTIONS):
            _script(word.value.text or "", command.line, found, depth + 1)
    head = command.words[0]
    name = head.value.text.lstrip(":") if head.value.text is not None else None
    at = command.line
    if name is None or head.expand:
        if any(word.value.text in _LAUNCHERS for word in command.words):
            found.append(unknown_launch("tcl", "a command whose name is built at run time runs exec", at))
        elif head.value.parts and Mark.RUNTIME in head.value.parts:
            found.append(
                unknown_launch("tcl", "a command whose name is built at run time may run a process", at)
            )
        return
    args = command.words[1:]
    if name in ("exec", "spawn", "exp_spawn"):
        found.append(_exec(name, _switches(args), at))
    elif name in ("system", "exp_system"):
        found.append(_shell_line(name, args, at))
    elif name == "open" and args:
        target = args[0].value
        text = target.text
        if target.parts and isinstance(target.parts[0], str) and target.parts[0].startswith("|"):
            rest = Value((target.parts[0][1:], *target.parts[1:]))
            if text is not None:
                found.append(_exec("open |", [TclWord(literal(w)) for w in _tcl_list(text[1:])], at))
            else:
                found.append(_shell_line("open |", [TclWord(rest)], at))
        elif text is None:
            found.append(
                unknown_launch("open", "open is given a file name built at run time, which may be |cmd", at)
            )
    elif name == "file" and len(args) > 1 and args[0].value.text == "delete":
        _delete(args[1:], found, at)
    elif name in ("rename", "interp") and any(word.value.text in _LAUNCHERS for word in args):
        found.append(unknown_launch(name, f"{name} gives a process command another name", at))
    elif name in ("eval", "uplevel", "subst"):
        if name == "uplevel" and args and (args[0].value.text or "x").lstrip("#").isdigit():
            args = args[1:]
        if any(word.value.text is None or word.expand for word in args):
            found.append(unknown_launch(name, f"{name} runs a script built at run time", at))
        elif name != "subst":
            _script(" ".join(word.value.text or "" for word in args), at, found, depth + 1)
    elif name in _EVALS:
        for word in args:
            if word.value.text is None and not word.braced:
                found.append(unknown_launch(name, f"{name} runs a script built at run time", at))
                break
            if not word.braced and word.value.text:
                _script(word.value.text, at, found, depth + 1)


def _switches(args: list[TclWord]) -> list[TclWord]:
    while args and (args[0].value.text or "") in (
        "-ignorestderr",
        "-keepnewline",
        "-noecho",
        "-nottycopy",
        "-nottyinit",
        "-console",
        "-pty",
        "-open",
        "-leaveopen",
    ):
        args = args[1:]
    return args[1:] if args and args[0].value.text == "--" else args


def _exec(api: str, args: list[TclWord], at: int) -> Launch:
    """`exec` and `spawn`: words, pipes and redirections, as a shell line."""
    words: list[str] = []
    unknown = ""
    skip = False
    for word in args:
        text = word.value.text
        if skip:
            skip = False
            continue
        if text in _CHANNELS:
            skip = True
            continue
        if text in _OPERATORS and not word.braced:
            words.append(_OPERATORS[text])
            continue
        if word.expand:
            unknown = f"{api} is given a list of arguments built at run time"
            words.append(RUNTIME)
            continue
        shell, dynamic = _quoted(word.value)
        unknown = unknown or (f"{api} is called with a value built at run time" if dynamic else "")
        words.append(shell)
    if not words or words[0] == RUNTIME:
        return unknown_launch(api, f"{api} runs a program whose name is built at run time", at)
    return Launch(api=api, shell=" ".join(words), unknown=unknown, line=at)


def _shell_line(api: str, args: list[TclWord], at: int) -> Launch:
    """Expect's `system`: its words joined by blanks, run by `/bin/sh`."""
    value = Value()
    for index, word in enumerate(args):
        value = value + (literal(" ") if index else Value()) + (RUNTIME_VALUE if word.expand else word.value)
    text, dynamic = value.shell()
    return Launch(
        api=api,
        shell=text,
        unknown=f"{api} is called with a value built at run time" if dynamic else "",
        line=at,
    )


def _delete(args: list[TclWord], found: list[Launch], at: int) -> None:
    force = False
    while args and (args[0].value.text or "").startswith("-"):
        force = force or args[0].value.text == "-force"
        if args[0].value.text == "--":
            args = args[1:]
            break
        args = args[1:]
    if force:
        launch = removal(
            "file delete -force",
            ("rm", "-rf"),
            [globbed(w.value) if w.value.text else w.value for w in args],
            at,
        )
        if launch is not None:
            found.append(Launch(api=launch.api, shell=launch.shell, argv=launch.argv, line=at))


def _quoted(value: Value) -> tuple[str, bool]:
    """One argv element as a shell word: literal parts quoted, run-time parts as `RUNTIME`."""
    out: list[str] = []
    dynamic = False
    for part in value.parts:
        if isinstance(part, str):
            out.append(shlex.quote(part))
        else:
            out.append(f'"{RUNTIME}"')
            dynamic = True
    return "".join(out) or "''", dynamic


def _tcl_list(text: str) -> list[str]:
    """A Tcl list's elements (braces and quotes group, as `split` of a literal list reads them)."""
    words = Parser(text).commands()
    return [w.value.text or RUNTIME for command in words for w in command.words]
