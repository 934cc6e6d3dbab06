"""SQL text cut into statements, for `_sql_statements`: sqlparse's tokens (imported on first use),
read as the client reads them.

The client's own commands are skipped as the client reads them: psql's meta-commands (`\\c db`, `\\i
f`; `\\g` and `\\gexec` send the buffer, and `\\gexec` runs every value the query returns as SQL),
sqlite's and duckdb's dot-commands (`.tables`), mysql's client commands (`use db`, `source f`,
`DELIMITER //`) and `GO` lines. A `;` ends a statement except inside the `BEGIN ... END` body of a
`CREATE TRIGGER|FUNCTION|PROCEDURE|EVENT` (which runs later; a body that never ends is cut at its `;`).

Where dialects disagree on where a token ends (`#` starts a comment in MySQL and is an operator in
PostgreSQL, `\\'` escapes a quote in MySQL and not in standard strings, `--x` is no comment in
MySQL, `/*! ... */` runs in MySQL), the text is also read the other way and both readings count.
A long text (a dump) is cut at the `;` that end lines and only the pieces that could hold a kind are
lexed.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from typing import Any

from rein.steering.bash.commands import PLACEHOLDER

Raw = tuple[str, str]
"""A token: its kind (`keyword`, `name`, `string`, `dollar`, `comment1`, ...) and its text."""
Tok = tuple[str, str, str]
"""A significant token: its kind, its text, and its text in upper case."""
OPERANDS = frozenset({"name", "symbol", "string", "dollar", "number", "placeholder"})
"""The kinds of token a value or a name is."""

_DELIMITER = re.compile(r"(?im)^[ \t]*delimiter[ \t]+(\S+)[ \t]*$")
_CLIENT_COMMANDS = frozenset({
    "?", "CHARSET", "CLEAR", "CONNECT", "DELIMITER", "EDIT", "EGO", "EXIT", "GO", "HELP", "NOPAGER",
    "NOTEE", "NOWARNING", "PAGER", "PRINT", "PROMPT", "QUIT", "REHASH", "RESETCONNECTION", "SOURCE",
    "STATUS", "SYSTEM", "TEE", "USE", "WARNINGS",
})  # fmt: skip
"""mysql's client commands: at the start of a statement they run up to the end of the line or `;`."""
_SENDS = frozenset({"\\G", "\\g", "\\gx", "\\gexec", "\\gset", "\\gdesc", "\\watch", "\\crosstabview"})
"""psql (and mysql `\\g`, `\\G`) meta-commands that send the statement in the buffer."""
_ROUTINES = frozenset({"TRIGGER", "FUNCTION", "PROCEDURE", "EVENT"})

_LARGE = 16_000
"""Past this many characters (a dump restored), only the chunks between `;` line ends that start a
statement of a kind rein looks for are lexed: sqlparse reads some 250 KB a second."""
_CHUNKS = re.compile(r";[ \t]*\r?\n")
_DOLLAR_BODY = re.compile(r"(?<![\w$])\$([A-Za-z_]\w*)?\$.*?\$\1\$", re.DOTALL)
_CHUNK_HINT = re.compile(
    rf"(?im)(?:^|;)(?:[\s(]|/\*!\d*)*(?:drop|truncate|delete|update|alter|with|explain|prepare|execute|do)\b"
    rf"|\\gexec|{PLACEHOLDER}"
)


def _chunks(text: str) -> Iterator[str]:
    """A long text cut at the `;` that end a line, except inside a dollar-quoted body (a function's)."""
    bodies = [match.span() for match in _DOLLAR_BODY.finditer(text)] if "$" in text else []
    start = body = 0
    for match in _CHUNKS.finditer(text):
        at = match.start()
        while body < len(bodies) and bodies[body][1] <= at:
            body += 1
        if body < len(bodies) and bodies[body][0] < at:
            continue
        yield text[start:at]
        start = match.end()
    yield text[start:]


def _lex(text: str) -> list[Raw]:
    """sqlparse's tokens of `text`, each as (kind, text)."""
    from sqlparse.lexer import Lexer

    out: list[Raw] = []
    lexer = Lexer.get_default_instance()  # type: ignore[no-untyped-call]  # sqlparse's own, untyped
    for ttype, value in lexer.get_tokens(text):
        kind = _KINDS.get(ttype)
        if kind is None:
            kind = _KINDS[ttype] = _kind_of(ttype)
        out.append((kind, value))
    return out


_KINDS: dict[object, str] = {}
"""The kind of each sqlparse token type met so far."""


def _kind_of(ttype: Any) -> str:
    """The kind this reader gives one of sqlparse's token types."""
    from sqlparse import tokens as T

    order = (
        (T.Newline, "newline"), (T.Whitespace, "ws"), (T.Comment.Single, "comment1"), (T.Comment, "comment"),
        (T.Command, "command"), (T.Error, "error"), (T.String.Single, "string"), (T.String.Symbol, "symbol"),
        (T.Number, "number"), (T.Name.Placeholder, "placeholder"), (T.Name, "name"), (T.Keyword, "keyword"),
        (T.Operator, "operator"), (T.Punctuation, "punct"),
    )  # fmt: skip
    if ttype is T.Literal:
        return "dollar"  # `$$...$$`, `$tag$...$tag$`
    return next((kind for parent, kind in order if ttype in parent), "other")


def _delimited(text: str) -> str:
    """mysql's `DELIMITER //` written out: the lines it governs end their statements with `;`."""
    if "elimiter" not in text.lower() or not _DELIMITER.search(text):
        return text
    out: list[str] = []
    delimiter = ";"
    for line in text.splitlines(keepends=True):
        match = _DELIMITER.match(line)
        if match is not None:
            delimiter = match[1]
            out.append("\n")
        else:
            out.append(line.replace(delimiter, ";") if delimiter != ";" else line)
    return "".join(out)


def _other_reading(raw: Sequence[Raw]) -> str | None:
    """The text as the other dialect would cut it, where a token's end depends on the dialect; None
    when nothing does."""
    parts: list[str] = []
    changed = False
    operand = False
    for kind, value in raw:
        part = value
        if kind == "comment1" and value.startswith("#") and operand:  # PostgreSQL's `1 # 2` is XOR
            part = "+" + value[1:]
        elif kind == "comment1" and value.startswith("--") and value[2:3] not in ("", " ", "\t", "\n"):
            part = "- -" + value[2:]
        elif kind == "string" and "\\" in value:
            part = value.replace("\\", " ")
        elif kind == "comment" and value.startswith("/*!"):
            part = re.sub(r"^/\*!\d*", lambda m: " " * len(m[0]), value)[:-2] + "  "
        changed = changed or part is not value
        parts.append(part)
        if kind not in ("ws", "newline", "comment", "comment1"):
            operand = kind in OPERANDS or value == ")"
    return "".join(parts) if changed else None


def _statements(raw: Sequence[Raw]) -> Iterator[tuple[list[Tok], bool]]:
    """Each statement's significant tokens, and whether it was sent with `\\gexec`."""
    current: list[Tok] = []
    cuts: list[int] = []
    """Where a `;` inside a routine's `BEGIN ... END` body stood: the cuts if the body never ends."""
    depth = block = 0
    skip_line = client = False
    line_start = True
    for index, (kind, value) in enumerate(raw):
        if kind == "newline" or (kind == "comment1" and value.endswith("\n")):
            skip_line = client = False
            line_start = True
            continue
        if skip_line or kind in ("ws", "comment", "comment1"):
            continue
        at_line_start, line_start = line_start, False
        if client:
            client = value != ";"
            continue
        if kind == "error" and value == "\\":
            following = raw[index + 1][1] if index + 1 < len(raw) else ""
            skip_line = following[:1] not in (";", "\\")  # `\;` and `\\` are no meta-commands
            continue
        upper = value.upper()
        ends = (kind == "command" and value in _SENDS) or (upper == "GO" and at_line_start)
        if ends or (value == ";" and depth == 0 and not block):
            yield from _pieces(current, cuts, block, value == "\\gexec")
            current, cuts, depth, block = [], [], 0, 0
            skip_line = value != ";"
            continue
        if kind == "command":
            skip_line = True
            continue
        if not current and (value == "." or upper in _CLIENT_COMMANDS):  # `.tables`, `use db`
            skip_line = value == "."
            client = not skip_line
            continue
        if value == "(":
            depth += 1
        elif value == ")":
            depth = max(0, depth - 1)
        elif depth == 0 and _routine(current):  # a body that runs when the routine is called
            if upper in ("BEGIN", "CASE"):
                block += 1
            elif upper in ("END", "END CASE") and block:
                block -= 1
            elif value == ";":
                cuts.append(len(current))
                continue
        current.append((kind, value, upper))
    yield from _pieces(current, cuts, block, False)


def _routine(current: list[Tok]) -> bool:
    """`CREATE [OR REPLACE] TRIGGER|FUNCTION|PROCEDURE|EVENT ...`: its body is not run now."""
    return (
        bool(current)
        and current[0][2].startswith("CREATE")
        and any(tok[2] in _ROUTINES for tok in current[1:5])
    )


def _pieces(current: list[Tok], cuts: list[int], block: int, sends: bool) -> Iterator[tuple[list[Tok], bool]]:
    """The statement, or (when a routine's body never ended) the statements its `;` separate."""
    if not current:
        return
    if not block or not cuts:
        yield current, sends
        return
    for start, end in zip([0, *cuts], [*cuts, len(current)], strict=True):
        if start < end:
            yield current[start:end], sends


def pieces(text: str, *, whole: bool = False) -> Iterator[str]:
    """The text to lex: with mysql's `DELIMITER` written out, and a long one (unless `whole`) cut
    into the pieces that could hold a statement of a kind rein looks for."""
    text = _delimited(text)
    if len(text) <= _LARGE or whole:
        yield text
        return
    for chunk in _chunks(text):
        if _CHUNK_HINT.search(chunk):
            yield chunk


def statements(text: str) -> Iterator[tuple[list[Tok], bool]]:
    """Each statement of `text` (in both readings where they differ), and whether `\\gexec` sent it."""
    raw = _lex(text)
    other = _other_reading(raw)
    yield from _statements(raw)
    if other is not None:
        yield from _statements(_lex(other))
