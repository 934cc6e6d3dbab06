"""Words and operators of a shell that is not bash (fish, csh, PowerShell, nushell, elvish), as one
`Dialect` says its quotes, variables, substitutions and redirections look.

A word is parts: literal text (quoted or not: an unquoted `*` is a glob), the home directory, or a
part built at run time (a variable, a command substitution). The code of a substitution or a block
(`(cmd)`, `` `cmd` ``, `$(cmd)`, `{ ... }`) is kept to be read as more commands of the same shell.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum

MAX_TOKENS = 20_000


class Mark(Enum):
    RUNTIME = "runtime"
    SPREAD = "spread"
    """A whole word that is a variable: any number of words (fish's lists, `$argv`)."""
    HOME = "home"


Part = tuple[str, bool] | Mark
"""Literal text and whether it was quoted, or a mark."""


@dataclass(frozen=True, slots=True)
class Dialect:
    name: str
    single: str = "backslash"
    """How `'...'` escapes: "backslash" (`\\'`, fish), "doubled" (`''`, PowerShell, elvish), "raw"."""
    double_escape: str = "\\"
    double_vars: bool = True
    escape: str = "\\"
    substs: tuple[str, ...] = ()
    """What opens a command substitution in a word: `(`, `$(`, `@(`, `` ` ``."""
    blocks: bool = False
    """`{...}` holds commands (PowerShell's script blocks, nushell's and elvish's closures)."""
    lists: bool = False
    """`[...]` starting a word is a list or a type, read as a value."""
    redirects: Mapping[str, str] = field(default_factory=dict)
    """Redirection operators and bash's for each ("" drops it and its target)."""
    operators: tuple[str, ...] = ("&&", "||", "|", "&")
    homes: frozenset[str] = frozenset({"HOME"})
    """Variables that hold the home directory (`$HOME`, `$env:HOME`)."""
    block_comment: tuple[str, str] | None = None


@dataclass(frozen=True, slots=True)
class Word:
    parts: tuple[Part, ...]

    @property
    def text(self) -> str | None:
        """The word when it is all literal."""
        if all(isinstance(part, tuple) for part in self.parts):
            return "".join(part[0] for part in self.parts if isinstance(part, tuple))
        return None


@dataclass(frozen=True, slots=True)
class Token:
    kind: str
    """"word", "sep" (`;`, a newline), "op" (`|`, `&&`, ...), "redirect"."""
    text: str = ""
    word: Word | None = None


@dataclass(slots=True)
class Lexed:
    tokens: list[Token]
    inner: list[str]
    """Code in substitutions and blocks, to be read too."""
    overflow: bool = False


def lex(text: str, dialect: Dialect) -> Lexed:
    out = Lexed([], [])
    _Lexer(text, dialect, out).run()
    return out


class _Lexer:
    __slots__ = ("dialect", "out", "pos", "text")

    def __init__(self, text: str, dialect: Dialect, out: Lexed) -> None:
        self.text, self.dialect, self.out, self.pos = text, dialect, out, 0

    def run(self) -> None:
        text, tokens = self.text, self.out.tokens
        while self.pos < len(text):
            if len(tokens) > MAX_TOKENS:
                self.out.overflow = True
                return
            char = text[self.pos]
            if char in " \t\r" or (char == self.dialect.escape and text.startswith("\n", self.pos + 1)):
                self.pos += 1 if char != self.dialect.escape else 2
                continue
            comment = self.dialect.block_comment
            if comment and text.startswith(comment[0], self.pos):
                end = text.find(comment[1], self.pos)
                self.pos = len(text) if end < 0 else end + len(comment[1])
                continue
            if char == "#":
                end = text.find("\n", self.pos)
                self.pos = len(text) if end < 0 else end
                continue
            if char in ";\n":
                tokens.append(Token("sep", char))
                self.pos += 1
                continue
            if (
                char == "&"
                and self.dialect.name == "powershell"
                and (not tokens or tokens[-1].kind != "word")
            ):
                tokens.append(Token("word", word=Word((("&", False),))))  # the call operator
                self.pos += 1
                continue
            found = self._operator()
            if found is not None:
                tokens.append(found)
                continue
            tokens.append(Token("word", word=self._word()))

    def _operator(self) -> Token | None:
        redirects, operators, _ = _tables(self.dialect)
        for op in redirects:
            if self.text.startswith(op, self.pos):
                self.pos += len(op)
                return Token("redirect", op)
        for op in operators:
            if self.text.startswith(op, self.pos):
                self.pos += len(op)
                return Token("op", op)
        return None

    def _word(self) -> Word:
        text, dialect = self.text, self.dialect
        parts: list[Part] = []
        start = self.pos
        while self.pos < len(text):
            char = text[self.pos]
            if char in " \t\r\n;" or (self.pos > start and self._at_operator()):
                break
            if self.pos == start and char == "{" and dialect.blocks:
                parts.append(self._group("{", "}"))
                break
            if self.pos == start and char == "[" and dialect.lists:
                end = _close(text, self.pos, "[", "]")
                self.out.inner.extend(lex(text[self.pos + 1 : end], dialect).inner)  # its substitutions
                parts.append(Mark.RUNTIME)
                self.pos = end + 1
                continue
            if (
                self.pos == start
                and char == "~"
                and (self.pos + 1 >= len(text) or text[self.pos + 1] in "/ \t\n;")
            ):
                parts.append(Mark.HOME)
                self.pos += 1
                continue
            opener = next((s for s in dialect.substs if text.startswith(s, self.pos)), None)
            if opener is not None:
                closing = "`" if opener == "`" else ")"
                parts.append(self._group(opener, closing))
            elif char == "'":
                parts.append((self._single(), True))
            elif char == '"':
                parts.extend(self._double())
            elif char == dialect.escape:
                parts.append((text[self.pos + 1 : self.pos + 2], True))
                self.pos += 2
            elif (
                char == "$"
                and self.pos + 1 < len(text)
                and (text[self.pos + 1].isalnum() or text[self.pos + 1] in "_{")
            ):
                parts.append(self._variable(alone=self.pos == start))
            elif (
                char == "{"
                and not dialect.blocks
                and "," in text[self.pos : _close(text, self.pos, "{", "}")]
            ):
                self.pos = _close(text, self.pos, "{", "}") + 1
                parts.append(Mark.RUNTIME)  # brace expansion: words rein does not spell out
            else:
                plain = _PLAIN.match(text, self.pos)
                run = plain.group() if plain else char
                parts.append((run, False))
                self.pos += len(run)
        return Word(tuple(parts))

    def _at_operator(self) -> bool:
        redirects, operators, starts = _tables(self.dialect)
        if self.text[self.pos] not in starts:
            return False
        return any(self.text.startswith(op, self.pos) for op in (*operators, *redirects))

    def _group(self, opener: str, closing: str) -> Mark:
        if opener == "`":
            end = self.text.find("`", self.pos + 1)
            end = len(self.text) if end < 0 else end
        else:
            end = _close(self.text, self.pos + len(opener) - 1, opener[-1], closing)
        inner = self.text[self.pos + len(opener) : end]
        if opener == "{":  # a closure's parameters: `{|x| ...}`
            inner = re.sub(r"^\s*\|[^|\n]*\|", "", inner)
        self.out.inner.append(inner)
        self.pos = end + 1
        return Mark.RUNTIME

    def _single(self) -> str:
        text, out = self.text, []
        self.pos += 1
        while self.pos < len(text):
            char = text[self.pos]
            if char == "'":
                if self.dialect.single == "doubled" and text.startswith("''", self.pos):
                    out.append("'")
                    self.pos += 2
                    continue
                self.pos += 1
                break
            if (
                char == "\\"
                and self.dialect.single == "backslash"
                and text[self.pos + 1 : self.pos + 2] in ("'", "\\")
            ):
                out.append(text[self.pos + 1])
                self.pos += 2
                continue
            out.append(char)
            self.pos += 1
        return "".join(out)

    def _double(self) -> list[Part]:
        text, dialect = self.text, self.dialect
        parts: list[Part] = []
        self.pos += 1
        while self.pos < len(text):
            char = text[self.pos]
            if char == '"':
                self.pos += 1
                break
            if dialect.double_escape and char == dialect.double_escape and self.pos + 1 < len(text):
                parts.append((text[self.pos + 1], True))
                self.pos += 2
            elif dialect.double_vars and text.startswith("$(", self.pos):
                parts.append(self._group("$(", ")"))
            elif (
                dialect.double_vars
                and char == "$"
                and self.pos + 1 < len(text)
                and (text[self.pos + 1].isalnum() or text[self.pos + 1] in "_{")
            ):
                parts.append(self._variable(alone=False))
            elif dialect.double_vars and char == "`" and "`" in dialect.substs:
                parts.append(self._group("`", "`"))
            else:
                parts.append((char, True))
                self.pos += 1
        return parts or [("", True)]

    def _variable(self, alone: bool) -> Mark:
        text = self.text
        self.pos += 1
        if text[self.pos] == "{":
            end = text.find("}", self.pos)
            name = text[self.pos + 1 : end if end >= 0 else len(text)]
            self.pos = len(text) if end < 0 else end + 1
        else:
            start = self.pos
            while self.pos < len(text) and (text[self.pos].isalnum() or text[self.pos] in "_:."):
                self.pos += 1
            name = text[start : self.pos].rstrip(":.")
            self.pos = start + len(name)
        for prefix in ("env:", "env.", "E:"):
            name = name.removeprefix(prefix)
        if name in self.dialect.homes:
            return Mark.HOME
        return Mark.SPREAD if alone and self._word_ends() else Mark.RUNTIME

    def _word_ends(self) -> bool:
        return self.pos >= len(self.text) or self.text[self.pos] in " \t\r\n;|&)"


_PLAIN = re.compile(r"[^\s;'\"\\`$(){}\[\]|&<>~@#,*?!^]+")
"""A run of characters that mean nothing special in any of the dialects."""
_TABLES: dict[int, tuple[tuple[str, ...], tuple[str, ...], str]] = {}


def _tables(dialect: Dialect) -> tuple[tuple[str, ...], tuple[str, ...], str]:
    """The dialect's redirections (longest first), its operators, and the characters that may start
    one inside a word (in nushell and PowerShell only `|` and `&` do)."""
    found = _TABLES.get(id(dialect))
    if found is None:
        redirects = tuple(sorted(dialect.redirects, key=len, reverse=True))
        ops = (*redirects, *dialect.operators)
        starts = "|&" if dialect.name in ("nu", "powershell") else "".join({op[0] for op in ops})
        found = _TABLES[id(dialect)] = (redirects, dialect.operators, starts)
    return found


def _close(text: str, pos: int, opening: str, closing: str) -> int:
    """The index of the bracket closing the one at `pos`, skipping quoted text."""
    depth, quote = 0, ""
    while pos < len(text):
        char = text[pos]
        if quote:
            if char == quote:
                quote = ""
            elif char == "\\" and quote == '"':
                pos += 1
        elif char in "'\"":
            quote = char
        elif char == opening:
            depth += 1
        elif char == closing:
            depth -= 1
            if depth == 0:
                return pos
        pos += 1
    return len(text)
