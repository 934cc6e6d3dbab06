"""What an awk program (POSIX awk, gawk, mawk) launches: `system(cmd)`, output piped to a command
(`print ... | cmd`, `printf ... | cmd`, gawk's coprocess `|&`), a command read from (`cmd | getline`,
`cmd |& getline`), and gawk's indirect call `@f(...)` of a variable naming `system`.

An output pipe's command reads what awk prints, data only known at run time: its launch is
`printf %s "$RUNTIME" | cmd`, as the shell would run it, so the walker judges what `cmd` does with it.

The command is a string expression: literals (escapes decoded) joined by juxtaposition, with a
variable resolved when the program assigns it exactly once, unconditionally, from literals, before
the use in a way no command-line assignment can undo (see `Program.resolve`), and an element of an
array `split` from a literal (`_arrays`), once per value it may take; every other part is `RUNTIME`.
Output redirected to a file (`print > "f"`), `close(cmd)` and strings printed as data launch nothing.
`-v` and operand assignments are not in the text and are not read.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from rein.steering.bash.launch._launch import RUNTIME, Launch
from rein.steering.bash.launch.awk._arrays import MAX_VALUES, Split, element_values, splits
from rein.steering.bash.launch.awk._lex import KEYWORDS, tokenize
from rein.steering.bash.launch.awk._program import ASSIGN, LOWER, Program

Parts = list[str | None]
"""A string value as known text and run-time parts (None)."""

_ARITHMETIC = frozenset({"+", "-", "*", "/", "%", "^", "**"})
_MENTIONS = re.compile(r"system|getline|\||@")
_FED = f'printf %s "{RUNTIME}" | '
_NONE: Mapping[int, str] = {}
"""Stands for awk's output, which a `print | cmd` command reads on its standard input."""


def _value(program: Program, start: int, end: int, fixed: Mapping[int, str] = _NONE) -> Parts:
    """The string an expression between token indexes `start` and `end` evaluates to; `fixed` gives the
    value of array elements (by the token index of the array's name) a loop reads one at a time."""
    at = start
    while at < end:
        token = program.tokens[at]
        if token.kind == "op" and token.text in ("(", "["):
            at = program.match.get(at, end) + 1
            continue
        if token.kind == "op" and token.text in ASSIGN:
            return _value(program, at + 1, end, fixed) if token.text == "=" else [None]
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
        part, at = _primary(program, at, end, fixed)
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


def _primary(program: Program, at: int, end: int, fixed: Mapping[int, str]) -> tuple[Parts, int]:
    token = program.tokens[at]
    if token.kind == "str":
        return [token.text], at + 1
    if token.kind == "num":
        return [_number(token.text)], at + 1
    if token.kind == "name":
        if program.is_token(at + 1, "(", "[") and at + 1 < end:
            after = min(program.match.get(at + 1, end), end) + 1
            return [fixed.get(at)], after  # an element of an array a `split` filled, or unknown
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
        return ([None] if commas else _value(program, at + 1, close, fixed)), close + 1
    if token.text in ("$", "-", "+", "!", "++", "--", "@") and at + 1 < end:
        _, after = _primary(program, at + 1, end, fixed)
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
    arrays = splits(program) if "split" in text else {}
    found: list[Launch | None] = []

    def each(start: int, end: int, api: str, line: int, what: str, fed: bool = False) -> None:
        """The command between `start` and `end`, once per value of the array elements it reads."""
        for fixed in _combinations(program, arrays, start, end):
            made = _launch(api, _value(program, start, end, fixed), line, what, fed=fed)
            if made not in found:
                found.append(made)

    for index, token in enumerate(tokens):
        following = tokens[index + 1] if index + 1 < len(tokens) else None
        if token.kind == "name" and token.text == "system" and program.is_token(index + 1, "("):
            close = program.match.get(index + 1, len(tokens))
            each(index + 2, close, "system()", token.line, "system() runs")
        elif token.kind == "op" and token.text in ("|", "|&"):
            if following is not None and following.kind == "name" and following.text == "getline":
                each(
                    program.operand_before(index),
                    index,
                    f"{token.text} getline",
                    token.line,
                    "awk reads from",
                )
            else:
                api = f"{program.printer(index)} |" if token.text == "|" else "|&"
                end = program.statement_end(index + 1)
                each(index + 1, end, api, token.line, "awk pipes its output to", fed=True)
        elif token.kind == "op" and token.text == "@" and following is not None and following.kind == "name":
            found.append(_indirect(program, index))
    error = lexed.error or program.unbalanced
    if error and _MENTIONS.search(text):
        found.append(
            Launch(api="awk", unknown=f"the awk program does not parse near line {error}", line=error)
        )
    return tuple(launch for launch in found if launch is not None)


def _combinations(program: Program, arrays: dict[str, Split], start: int, end: int) -> list[dict[int, str]]:
    """Each combination of values of the array elements the tokens read (one, with none, when there
    are none or too many); the same element read twice (`a[i] " " a[i]`) takes one value."""
    tokens = program.tokens
    reads: dict[tuple[str, ...], list[int]] = {}
    choices: dict[tuple[str, ...], tuple[str, ...]] = {}
    for at in range(start, min(end, len(tokens))):
        token = tokens[at]
        if token.kind != "name" or token.text not in arrays or not program.is_token(at + 1, "["):
            continue
        values = element_values(program, arrays, at)
        if values is not None:
            close = program.match.get(at + 1, at + 1)
            element = tuple(part.text for part in tokens[at : close + 1])
            if any(text in ASSIGN or text in ("++", "--") for text in element):
                element = (*element, str(at))  # `a[i++]` twice reads two elements
            reads.setdefault(element, []).append(at)
            choices[element] = values
    combos: list[dict[int, str]] = [{}]
    for element, positions in reads.items():
        combos = [
            {**combo, **dict.fromkeys(positions, value)} for combo in combos for value in choices[element]
        ]
    return combos if len(combos) <= MAX_VALUES else [{}]


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
