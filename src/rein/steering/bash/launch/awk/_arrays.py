"""Arrays an awk program fills from a literal with `split("status,log", a, ",")`, and the values an
element of one takes where a command reads it: `a[2]` the second, `a[i]` in `for (i in a)` or `for (i
= 1; i <= n; i++)` (with `n` the count `split` returned) each element, one launch per value; any other
index each element or the empty string (an index past the end).

An array counts only when that `split` is its one write: it runs unconditionally in its action, before
the command in the same action (or in BEGIN, for a command in BEGIN), with a single-character or `" "`
separator, and the program otherwise only reads elements of it (no `a[k] = ...`, `delete a`, `sub(...,
a[k])`, no passing `a` to a function, which may change it). Anything else is built at run time, as
ever.
"""

from __future__ import annotations

from dataclasses import dataclass

from rein.steering.bash.launch.awk._lex import Token
from rein.steering.bash.launch.awk._program import ASSIGN, Program

MAX_VALUES = 16
"""How many values (or combinations of values) one command is read with."""


@dataclass(frozen=True, slots=True)
class Split:
    """An array filled once by `split` of a literal."""

    values: tuple[str, ...]
    site: int
    """The token index of `split`."""
    count: str
    """The variable assigned what `split` returns (`n = split(...)`), "" when none."""


def splits(program: Program) -> dict[str, Split]:
    """The arrays of `program` filled once by `split` of a literal, by name."""
    tokens = program.tokens
    found: dict[str, Split] = {}
    rejected: set[str] = set()
    for index, token in enumerate(tokens):
        if token.kind != "name" or token.text != "split" or not program.is_token(index + 1, "("):
            continue
        site = _split(program, index)
        name = site[0] if site is not None else _target(tokens, index)
        if site is None or name in found:
            rejected.add(name)  # filled twice, or in a way rein does not read
        else:
            found[name] = site[1]
    kept = {name: split for name, split in found.items() if name not in rejected}
    return {name: split for name, split in kept.items() if _only_read(program, name, split.site + 4)}


def _split(program: Program, at: int) -> tuple[str, Split] | None:
    """`split("a,b", arr, ",")` at token `at`: the array and its values."""
    tokens = program.tokens
    close = program.match.get(at + 1, -1)
    inner = tokens[at + 2 : close] if close > at else ()
    shape = [token.kind for token in inner]
    if shape != ["str", "op", "name", "op", "str"] or inner[1].text != "," or inner[3].text != ",":
        return None
    subject, separator = inner[0].text, inner[4].text
    if separator == " ":
        values = tuple(subject.split())
    elif len(separator) == 1:
        values = tuple(subject.split(separator)) if subject else ()
    else:
        return None  # a regular expression: not read
    statement = _statement_start(program, at)
    if not values or len(values) > MAX_VALUES or not program.unconditional(statement):
        return None
    count = ""
    if statement + 2 == at and tokens[statement].kind == "name" and program.is_token(statement + 1, "="):
        count = tokens[statement].text
    return inner[2].text, Split(values, at, count)


def _target(tokens: tuple[Token, ...], at: int) -> str:
    """The array a `split` call we cannot read fills: its second argument, when a plain name."""
    for index in range(at + 2, min(len(tokens) - 1, at + 64)):
        if tokens[index].kind == "op" and tokens[index].text == ",":
            following = tokens[index + 1]
            return following.text if following.kind == "name" else ""
    return ""


def _statement_start(program: Program, at: int) -> int:
    """Where the statement holding `split` starts: `split(...)` or `n = split(...)`."""
    if at >= 2 and program.tokens[at - 2].kind == "name" and program.is_token(at - 1, "="):
        return at - 2
    return at


def _only_read(program: Program, name: str, filled: int) -> bool:
    """Whether every use of the array but the `split` filling it (at token `filled`) reads one element
    (or loops over its keys)."""
    tokens = program.tokens
    for index, token in enumerate(tokens):
        if token.kind != "name" or token.text != name or index == filled:
            continue
        if program.is_token(index - 1, "in") and program.is_token(index + 1, ")"):
            continue  # `for (k in a)`
        if not program.is_token(index + 1, "["):
            return False  # `delete a`, `f(a)`, `a` as a scalar
        close = program.match.get(index + 1, -1)
        after = tokens[close + 1] if 0 <= close < len(tokens) - 1 else None
        if after is not None and after.kind == "op" and (after.text in ASSIGN or after.text in ("++", "--")):
            return False
        if program.is_token(index - 1, "++", "--", "getline", "delete", ","):
            return False  # `++a[k]`, `getline a[k]`, `sub(r, s, a[k])` (and any argument, to be safe)
    return True


def element_values(program: Program, arrays: dict[str, Split], at: int) -> tuple[str, ...] | None:
    """The values `NAME[...]` at token `at` may take, when NAME is such an array read after it is
    filled; None otherwise."""
    name = program.tokens[at].text
    split = arrays.get(name)
    if split is None or not _after(program, split.site, at):
        return None
    close = program.match.get(at + 1, -1)
    index = program.tokens[at + 2 : close] if close > at else ()
    if len(index) == 1 and index[0].kind == "num" and index[0].text.isdigit():
        position = int(index[0].text)
        return (split.values[position - 1] if 1 <= position <= len(split.values) else "",)
    if len(index) == 1 and index[0].kind == "name" and _covers(program, index[0].text, at, name, split):
        return split.values
    return (*split.values, "")


def _after(program: Program, site: int, use: int) -> bool:
    """Whether `split` at `site` has run when the command at `use` does."""
    (action, phase), (use_action, use_phase) = program.actions[site], program.actions[use]
    if phase == "BEGIN" and use_phase == "BEGIN":
        return (use_action, use) > (action, site)
    return action == use_action and use > site and phase not in ("", "function")


def _covers(program: Program, variable: str, at: int, name: str, split: Split) -> bool:
    """Whether `variable` is the variable of a loop around `at` that walks the array's elements:
    `for (i in a)`, or `for (i = 1; i <= n; i++)` with `n` the count or the literal length."""
    tokens = program.tokens
    for start in range(at - 1, -1, -1):
        if not (program.is_token(start, "for") and program.is_token(start + 1, "(")):
            continue
        close = program.match.get(start + 1, -1)
        if close < 0 or not _body_holds(program, close, at):
            continue
        header = [token.text for token in tokens[start + 2 : close]]
        if header == [variable, "in", name]:
            return not _written(program, variable, close)
        if len(header) != 10 or header[:6] != [variable, "=", "1", ";", variable, "<="]:
            return False
        bound = header[6]
        counted = bound == split.count and len(program.sites.get(bound, ())) == 1
        known = counted or bound == str(len(split.values))
        return header[7:] == [";", variable, "++"] and known and not _written(program, variable, close)
    return False


def _body(program: Program, header_end: int) -> tuple[int, int]:
    """The token range of the body of the loop whose header ends at `header_end`."""
    start = header_end + 1
    while start < len(program.tokens) and program.tokens[start].kind == "nl":
        start += 1
    if program.is_token(start, "{"):
        return start, program.match.get(start, len(program.tokens))
    return start, program.statement_end(start)


def _body_holds(program: Program, header_end: int, at: int) -> bool:
    start, end = _body(program, header_end)
    return start <= at < end


def _written(program: Program, variable: str, header_end: int) -> bool:
    """Whether the loop's body writes its variable (an assignment, `++`, `getline i`, `sub(r, s, i)`)."""
    start, end = _body(program, header_end)
    return any(start <= site.index < end for site in program.sites.get(variable, ()))
