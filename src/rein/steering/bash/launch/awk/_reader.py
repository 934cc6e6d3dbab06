"""What an awk program (POSIX awk, gawk, mawk) launches: `system(cmd)`, output piped to a command
(`print ... | cmd`, `printf ... | cmd`, gawk's coprocess `|&`), a command read from (`cmd | getline`,
`cmd |& getline`), and gawk's indirect call `@f(...)` of a variable naming `system`.

An output pipe's command reads what awk prints, data only known at run time: its launch is
`printf %s "$RUNTIME" | cmd`, as the shell would run it, so the walker judges what `cmd` does with it.

The command is a string expression: literals (escapes decoded) joined by juxtaposition, with a
variable resolved when the program assigns it exactly once, unconditionally, from literals, before
the use in a way no command-line assignment can undo (see `Program.resolve`); every other part is
`RUNTIME`. Output redirected to a file (`print > "f"`), `close(cmd)` and strings printed as data
launch nothing. `-v` and operand assignments are not in the text and are not read.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from rein.steering.bash.launch._launch import RUNTIME, Launch
from rein.steering.bash.launch.awk._lex import KEYWORDS, tokenize
from rein.steering.bash.launch.awk._program import ASSIGN, LOWER, Program

Parts = list[str | None]
"""A string value as known text and run-time parts (None)."""

_ARITHMETIC = frozenset({"+", "-", "*", "/", "%", "^", "**"})
_MENTIONS = re.compile(r"system|getline|\||@")
_FED = f'printf %s "{RUNTIME}" | '
"""Stands for awk's output, which a `print | cmd` command reads on its standard input."""


def _value(program: Program, start: int, end: int) -> Parts:
    """The string an expression between token indexes `start` and `end` evaluates to."""
    at = start
    while at < end:
        token = program.tokens[at]
        if token.kind == "op" and token.text in ("(", "["):
            at = program.match.get(at, end) + 1
            continue
        if token.kind == "op" and token.text in ASSIGN:
            return _value(program, at + 1, end) if token.text == "=" else [None]
        if (token.kind == "op" and token.text in LOWER) or (token.kind == "name" and token.text in KEYWORDS):
            return [None]
        at += 1
    items: list[Parts] = []
    joined: list[bool] = []
    operator, at = False, start
    while at < end:
        token = program.tokens[at]
        if token.kind == "nl":
            at += 1
            continue
        if token.kind == "op" and token.text in _ARITHMETIC and items and not operator:
            operator, at = True, at + 1
            continue
        part, at = _primary(program, at, end)
        if at < end and program.is_token(at, "++", "--"):
            part, at = [None], at + 1
        items.append(part)
        joined.append(operator)
        operator = False
    out: Parts = []
    for index, item in enumerate(items):
        arithmetic = joined[index] or (index + 1 < len(items) and joined[index + 1])
        out.extend([None] if arithmetic else item)
    return _collapse(out)


def _primary(program: Program, at: int, end: int) -> tuple[Parts, int]:
    token = program.tokens[at]
    if token.kind == "str":
        return [token.text], at + 1
    if token.kind == "num":
        return [_number(token.text)], at + 1
    if token.kind == "name":
        if program.is_token(at + 1, "(", "[") and at + 1 < end:
            return [None], min(program.match.get(at + 1, end), end) + 1
        known = None if token.text in KEYWORDS else program.resolve(token.text, at)
        return [known], at + 1
    if token.kind != "op":
        return [None], at + 1
    if token.text == "(":
        close = program.match.get(at, end)
        if close >= end:
            return [None], end
        commas = any(
            program.is_token(index, ",") and program.top(index, at) for index in range(at + 1, close)
        )
        return ([None] if commas else _value(program, at + 1, close)), close + 1
    if token.text in ("$", "-", "+", "!", "++", "--", "@") and at + 1 < end:
        _, after = _primary(program, at + 1, end)
        return [None], after
    return [None], at + 1


def _number(text: str) -> str | None:
    """A numeric literal as awk turns it into a string (CONVFMT %.6g; integers as such)."""
    if text.lower().startswith("0x") or (len(text) > 1 and text[0] == "0" and text.isdigit()):
        return None  # gawk reads hex and octal in the source, other awks do not
    number = float(text)
    return str(int(number)) if number.is_integer() and abs(number) < 1e16 else f"{number:.6g}"


def _collapse(parts: Parts) -> Parts:
    out: Parts = []
    for part in parts:
        if out and part is None and out[-1] is None:
            continue
        if out and part is not None and isinstance(out[-1], str):
            out[-1] += part
            continue
        out.append(part)
    return out


def _launch(api: str, parts: Parts, line: int, what: str, *, fed: bool = False) -> Launch | None:
    """`fed`: the command reads what awk prints (`print | cmd`): it is written as the shell would
    run it, `printf %s "$RUNTIME" | cmd`, so the walker sees a `sh` or `xargs` reading data only
    known at run time (and `sort` reading it harmlessly)."""
    feed = _FED if fed else ""
    if all(part is not None for part in parts):
        text = "".join(part for part in parts if part is not None)
        return Launch(api=api, shell=feed + text, line=line) if text else None  # system("") only flushes
    why = f"{what} a command built at run time"
    if not "".join(part for part in parts if part is not None).strip():
        return Launch(api=api, unknown=why, line=line)
    shell = "".join(RUNTIME if part is None else part for part in parts)
    return Launch(api=api, shell=feed + shell, unknown=why, line=line)


def read(text: str, env: Mapping[str, str]) -> tuple[Launch, ...]:
    lexed = tokenize(text)
    program = Program(lexed.tokens)
    tokens = program.tokens
    found: list[Launch | None] = []
    for index, token in enumerate(tokens):
        following = tokens[index + 1] if index + 1 < len(tokens) else None
        if token.kind == "name" and token.text == "system" and program.is_token(index + 1, "("):
            close = program.match.get(index + 1, len(tokens))
            found.append(_launch("system()", _value(program, index + 2, close), token.line, "system() runs"))
        elif token.kind == "op" and token.text in ("|", "|&"):
            if following is not None and following.kind == "name" and following.text == "getline":
                parts = _value(program, program.operand_before(index), index)
                found.append(_launch(f"{token.text} getline", parts, token.line, "awk reads from"))
            else:
                api = f"{program.printer(index)} |" if token.text == "|" else "|&"
                parts = _value(program, index + 1, program.statement_end(index + 1))
                found.append(_launch(api, parts, token.line, "awk pipes its output to", fed=True))
        elif token.kind == "op" and token.text == "@" and following is not None and following.kind == "name":
            found.append(_indirect(program, index))
    error = lexed.error or program.unbalanced
    if error and _MENTIONS.search(text):
        found.append(
            Launch(api="awk", unknown=f"the awk program does not parse near line {error}", line=error)
        )
    return tuple(launch for launch in found if launch is not None)


def _indirect(program: Program, at: int) -> Launch | None:
    """gawk's `@name(args)`: calls the function whose name the variable `name` holds."""
    name, tokens = program.tokens[at + 1], program.tokens
    if not program.is_token(at + 2, "("):
        return None  # @include, @load, @namespace: files rein cannot read, like make's include
    target = program.resolve(name.text, at + 1)
    if target is None:
        return Launch(
            api=f"@{name.text}()",
            unknown=f"gawk calls the function named by {name.text}, which may be system()",
            line=name.line,
        )
    if target != "system":
        return None
    close = program.match.get(at + 2, len(tokens))
    return _launch(f"@{name.text}()", _value(program, at + 3, close), name.line, "system() runs")
