"""A tokenizer for the languages rein reads by their tokens rather than a grammar: comments are dropped,
string literals decoded (their interpolated code tokenized too), names kept with their qualifiers
(`os.execute`, `base::system`, `clojure.java.shell/sh`), brackets and separators marked.

One `Syntax` per language says what its comments, strings and names look like. The tokenizer never
fails: an unterminated string or comment runs to the end of the text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

Kind = Literal["name", "string", "command", "open", "close", "sep", "op", "number", "end"]
MAX_TOKENS = 20_000
"""Past this many tokens the rest of the text is not tokenized (the reader then fails closed)."""
MAX_NESTING = 8
"""How deep interpolated code inside strings inside interpolated code is tokenized."""


@dataclass(frozen=True, slots=True)
class Syntax:
    """What one language's comments, strings and names look like."""

    line_comments: tuple[str, ...] = ()
    block_comments: tuple[tuple[str, str], ...] = ()
    nested: bool = False
    """Block comments nest (`(* (* *) *)`)."""
    quotes: str = "\"'"
    """Characters that open and close a string with backslash escapes."""
    raw_quotes: str = ""
    """Characters that open and close a string without escapes."""
    doubled: bool = False
    """A quote is escaped by doubling it (`'it''s'`)."""
    triple: bool = False
    """`\"\"\"...\"\"\"` strings."""
    long_brackets: bool = False
    """Lua's `[[...]]` and `[==[...]==]` strings (and `--[[ ]]` comments)."""
    command: str = ""
    """The character that quotes a command literal (Julia's and gnuplot's backticks)."""
    name: str = r"[A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)*"
    """A name with its qualifiers, as one token."""
    char: str = ""
    """A character literal that is no string (`?x` in Emacs Lisp, `#\\x` in Scheme, `'x'` in OCaml)."""
    interpolation: tuple[str, ...] = ()
    """What opens code inside a string (`$(`, `${`, `#{`, `\\(`); the code runs to the matching close."""
    variables: str = ""
    """A variable interpolated into a string (`$name` in Julia and Kotlin): a part built at run time."""
    prefixes: str = ""
    """A regex for what may stand before a string and belongs to it (`r`, `raw`, `s`, `~c`)."""
    separators: str = ",;"
    ops: str = r"\.\.|::|->|=>|<>|\+\+|[^\w\s]"
    """Operators, longest first."""
    keep_newlines: bool = True
    """Newlines end statements: they are kept as `end` tokens."""
    extra: dict[str, str] = field(default_factory=dict)
    """More string forms: a regex opening one, and the regex of its close (OCaml's `{id|...|id}`)."""


@dataclass(frozen=True, slots=True)
class Token:
    kind: Kind
    text: str
    """The source text; for a string its decoded value, with `interpolated` parts as `\\x00`."""
    line: int
    dynamic: bool = False
    """A string with a part built at run time (an interpolation)."""


class _State:
    __slots__ = ("depth", "out")

    def __init__(self) -> None:
        self.out: list[Token] = []
        self.depth = 0


_ESCAPES = {
    "n": "\n",
    "t": "\t",
    "r": "\r",
    "0": "\0",
    "a": "\a",
    "b": "\b",
    "f": "\f",
    "v": "\v",
    "e": "\x1b",
}
_NUMBER = re.compile(r"\d[\w.]*")
_BLANK = re.compile(r"[ \t\r\f\v]+|\\\n")


def tokenize(text: str, syntax: Syntax) -> list[Token]:
    state = _State()
    _scan(text, syntax, state, 1)
    return state.out


def _scan(text: str, syntax: Syntax, state: _State, line: int) -> None:
    name = re.compile(syntax.name)
    ops = re.compile(syntax.ops)
    char = re.compile(syntax.char) if syntax.char else None
    prefix = re.compile(syntax.prefixes) if syntax.prefixes else None
    extra = [(re.compile(opening), close) for opening, close in syntax.extra.items()]
    openers = (*syntax.line_comments, *(opening for opening, _ in syntax.block_comments))
    comments = {opening[0] for opening in openers} | ({"-"} if syntax.long_brackets else set())
    strings = set(syntax.quotes + syntax.raw_quotes + syntax.command) | (
        {"["} if syntax.long_brackets else set()
    )
    out, pos, size = state.out, 0, len(text)
    while pos < size and len(out) < MAX_TOKENS:
        ch = text[pos]
        blank = _BLANK.match(text, pos)
        if blank:
            line += blank.group().count("\n")
            pos = blank.end()
            continue
        if ch == "\n":
            if syntax.keep_newlines:
                out.append(Token("end", "\n", line))
            line, pos = line + 1, pos + 1
            continue
        skipped = _comment(text, pos, syntax) if ch in comments else None
        if skipped is not None:
            line += text.count("\n", pos, skipped)
            pos = skipped
            continue
        if char is not None and (found := char.match(text, pos)):
            out.append(Token("op", found.group(), line))
            pos = found.end()
            continue
        start = pos
        found = prefix.match(text, pos) if prefix is not None else None
        if found and found.end() < size and text[found.end()] in syntax.quotes + syntax.raw_quotes:
            pos = found.end()
        string = _string(text, pos, syntax, state, line) if text[pos] in strings else None
        if string is None and extra:
            for opening, close in extra:
                if found := opening.match(text, pos):
                    end = re.compile(close.replace("\\1", re.escape(found.group(1) or ""))).search(
                        text, found.end()
                    )
                    stop = end.start() if end else size
                    out.append(Token("string", text[found.end() : stop], line))
                    string = end.end() if end else size
                    break
        if string is not None:
            line += text.count("\n", start, string)
            pos = string
            continue
        pos = start
        if found := name.match(text, pos):
            out.append(Token("name", found.group(), line))
            pos = found.end()
        elif found := _NUMBER.match(text, pos):
            out.append(Token("number", found.group(), line))
            pos = found.end()
        elif ch in "([{":
            out.append(Token("open", ch, line))
            pos += 1
        elif ch in ")]}":
            out.append(Token("close", ch, line))
            pos += 1
        elif ch in syntax.separators:
            out.append(Token("sep", ch, line))
            pos += 1
        else:
            found = ops.match(text, pos)
            op = found.group() if found and found.group() else ch
            out.append(Token("op", op, line))
            pos += len(op)


def _comment(text: str, pos: int, syntax: Syntax) -> int | None:
    """The end of a comment starting at `pos`, or None."""
    if syntax.long_brackets and text.startswith("--", pos):
        level = _long_open(text, pos + 2)
        if level is not None:
            close = text.find("]" + "=" * level + "]", pos)
            return len(text) if close < 0 else close + level + 2
    for opening, closing in syntax.block_comments:
        if text.startswith(opening, pos):
            return _block_end(text, pos + len(opening), opening, closing, syntax.nested)
    for opening in syntax.line_comments:
        if text.startswith(opening, pos):
            end = text.find("\n", pos)
            return len(text) if end < 0 else end
    return None


def _block_end(text: str, pos: int, opening: str, closing: str, nested: bool) -> int:
    depth = 1
    while depth:
        close = text.find(closing, pos)
        if close < 0:
            return len(text)
        inner = text.find(opening, pos) if nested else -1
        if 0 <= inner < close:
            depth, pos = depth + 1, inner + len(opening)
        else:
            depth, pos = depth - 1, close + len(closing)
    return pos


def _long_open(text: str, pos: int) -> int | None:
    """The level of a Lua long bracket `[==[` at `pos`, or None."""
    found = re.compile(r"\[(=*)\[").match(text, pos)
    return len(found.group(1)) if found else None


def _string(text: str, pos: int, syntax: Syntax, state: _State, line: int) -> int | None:
    """Appends the string literal at `pos` and returns its end, or None when there is none."""
    if syntax.long_brackets:
        level = _long_open(text, pos)
        if level is not None:
            opening = pos + level + 2
            close = text.find("]" + "=" * level + "]", opening)
            end = len(text) if close < 0 else close
            body = text[opening:end].removeprefix("\n")
            state.out.append(Token("string", body, line))
            return end if close < 0 else end + level + 2
    ch = text[pos] if pos < len(text) else ""
    if not ch or (ch not in syntax.quotes and ch not in syntax.raw_quotes and ch != syntax.command):
        return None
    kind: Kind = "command" if ch == syntax.command else "string"
    if syntax.triple and text.startswith(ch * 3, pos):
        close = text.find(ch * 3, pos + 3)
        end = len(text) if close < 0 else close
        _append(text[pos + 3 : end], kind, syntax, state, line, ch not in syntax.raw_quotes)
        return end if close < 0 else end + 3
    escapes = ch not in syntax.raw_quotes
    index = pos + 1
    while index < len(text):
        current = text[index]
        if current == "\\" and escapes:
            index += 2
            continue
        if current == ch:
            if syntax.doubled and text.startswith(ch, index + 1):
                index += 2
                continue
            break
        if escapes and syntax.interpolation:
            skipped = _interpolated_end(text, index, syntax)
            if skipped is not None:
                index = skipped
                continue
        index += 1
    body = text[pos + 1 : min(index, len(text))]
    if syntax.doubled:
        body = body.replace(ch * 2, ch)
    _append(body, kind, syntax, state, line, escapes)
    return min(index + 1, len(text))


def _interpolated_end(text: str, index: int, syntax: Syntax) -> int | None:
    for opening in syntax.interpolation:
        if text.startswith(opening, index):
            return _matching(text, index + len(opening), opening[-1])
    return None


def _matching(text: str, pos: int, opening: str) -> int:
    """The index after the bracket that closes `opening`, whose inside starts at `pos`."""
    closing = {"(": ")", "{": "}", "[": "]"}[opening]
    depth = 1
    while pos < len(text) and depth:
        if text[pos] == opening:
            depth += 1
        elif text[pos] == closing:
            depth -= 1
        elif text[pos] == "\\":
            pos += 1
        pos += 1
    return pos


def _append(body: str, kind: Kind, syntax: Syntax, state: _State, line: int, escapes: bool) -> None:
    """Appends the string `body` decoded; code interpolated into it is tokenized after it."""
    codes: list[str] = []
    dynamic = False
    if escapes and syntax.interpolation:
        pieces: list[str] = []
        index = 0
        while index < len(body):
            for opening in syntax.interpolation:
                if body.startswith(opening, index):
                    end = _matching(body, index + len(opening), opening[-1])
                    codes.append(body[index + len(opening) : end - 1])
                    pieces.append("\0")
                    index = end
                    break
            else:
                pieces.append(body[index])
                index += 1
        body = "".join(pieces)
    if syntax.variables:
        body, count = re.subn(syntax.variables, "\0", body)
        dynamic = dynamic or bool(count)
    value = decode(body) if escapes else body
    state.out.append(Token(kind, value, line, dynamic=dynamic or bool(codes)))
    if codes and state.depth < MAX_NESTING:
        state.depth += 1
        for code in codes:
            _scan(code, syntax, state, line)
        state.depth -= 1


_ESCAPE = re.compile(r"\\(x[0-9A-Fa-f]{1,2}|u\{[0-9A-Fa-f]+\}|u[0-9A-Fa-f]{4}|[0-7]{1,3}|\n|.)", re.DOTALL)


def decode(body: str) -> str:
    """Backslash escapes as the C family reads them; an unknown escape is the character itself."""
    if "\\" not in body:
        return body
    return _ESCAPE.sub(_escape, body)


def _escape(found: re.Match[str]) -> str:
    code = found.group(1)
    if code == "\n":
        return ""
    if code in ("x", "u"):
        return code
    if code[0] == "x":
        return chr(int(code[1:], 16))
    if code[0] == "u":
        digits = code[2:-1] if code[1] == "{" else code[1:]
        number = int(digits, 16)
        return chr(number) if number <= 0x10FFFF else "\ufffd"
    if code[0] in "01234567" and (len(code) > 1 or code != "0"):
        return chr(int(code, 8))
    return _ESCAPES.get(code, code)
