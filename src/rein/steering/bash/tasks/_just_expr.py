"""Justfile expressions as a tree: strings, variables, backticks, function calls, `+`, `/`, `||`,
`&&` and `if ... { } else { }` (just's GRAMMAR.md `expression`), and the `{{...}}` interpolations of
recipe lines and format strings."""

from __future__ import annotations

from dataclasses import dataclass

from rein.steering.bash.tasks._just_lex import JustSyntax, Lexer, Token


@dataclass(frozen=True, slots=True)
class Lit:
    text: str
    shell: bool = False
    """A shell-expanded string (`x'...'`): `$VAR` and `~` are expanded when the justfile loads."""


@dataclass(frozen=True, slots=True)
class Format:
    parts: tuple[str | Expr, ...]


@dataclass(frozen=True, slots=True)
class Var:
    name: str


@dataclass(frozen=True, slots=True)
class Tick:
    command: str
    line: int


@dataclass(frozen=True, slots=True)
class Call:
    name: str
    args: tuple[Expr, ...]
    line: int


@dataclass(frozen=True, slots=True)
class Binary:
    op: str
    left: Expr | None
    right: Expr


@dataclass(frozen=True, slots=True)
class If:
    left: Expr
    op: str
    right: Expr
    then: Expr
    otherwise: Expr


Expr = Lit | Format | Var | Tick | Call | Binary | If
_BINARY = frozenset({"+", "/", "||", "&&"})
_COMPARE = frozenset({"==", "!=", "=~", "!~"})


class Parser:
    """Reads expressions from one logical line's tokens."""

    def __init__(self, tokens: list[Token], lexer: Lexer, line: int = 0) -> None:
        self.tokens, self.lexer, self.at, self.base = tokens, lexer, 0, line

    def peek(self, offset: int = 0) -> Token | None:
        at = self.at + offset
        return self.tokens[at] if at < len(self.tokens) else None

    def is_op(self, text: str, offset: int = 0) -> bool:
        token = self.peek(offset)
        return token is not None and token.kind == "op" and token.text == text

    def take(self) -> Token:
        token = self.peek()
        if token is None:
            raise JustSyntax(f"unexpected end of line {self._line(self.tokens[-1] if self.tokens else None)}")
        self.at += 1
        return token

    def expect(self, text: str) -> None:
        token = self.take()
        if token.kind != "op" or token.text != text:
            raise JustSyntax(f"expected {text!r} on line {self._line(token)}, found {token.text!r}")

    def name(self) -> str:
        token = self.take()
        if token.kind != "name":
            raise JustSyntax(f"expected a name on line {self._line(token)}, found {token.text!r}")
        return token.text

    def _line(self, token: Token | None) -> int:
        return self.base or (self.lexer.line(token.at) if token is not None else 0)

    def expression(self) -> Expr:
        token = self.peek()
        if token is not None and token.kind == "name" and token.text == "if" and not self.is_op("(", 1):
            return self._if()
        if self.is_op("/"):
            self.take()
            return Binary("/", None, self.expression())
        left = self.value()
        following = self.peek()
        if following is not None and following.kind == "op" and following.text in _BINARY:
            self.take()
            return Binary(following.text, left, self.expression())
        return left

    def _if(self) -> Expr:
        self.take()
        left = self.expression()
        op = self.take()
        if op.kind != "op" or op.text not in _COMPARE:
            raise JustSyntax(f"expected a comparison on line {self._line(op)}")
        right = self.expression()
        self.expect("{")
        then = self.expression()
        self.expect("}")
        if self.name() != "else":
            raise JustSyntax("expected else")
        token = self.peek()
        if token is not None and token.kind == "name" and token.text == "if":
            return If(left, op.text, right, then, self._if())
        self.expect("{")
        otherwise = self.expression()
        self.expect("}")
        return If(left, op.text, right, then, otherwise)

    def value(self) -> Expr:
        token = self.take()
        if token.kind == "string":
            if token.prefix == "f":
                return Format(fragments(token.text, self._line(token)))
            return Lit(token.text, shell=token.prefix == "x")
        if token.kind == "backtick":
            return Tick(token.text, self._line(token))
        if token.kind == "name":
            if self.is_op("("):
                self.take()
                args: list[Expr] = []
                while not self.is_op(")"):
                    args.append(self.expression())
                    if not self.is_op(")"):
                        self.expect(",")
                self.take()
                return Call(token.text, tuple(args), self._line(token))
            return Var(token.text)
        if token.kind == "op" and token.text == "(":
            inner = self.expression()
            self.expect(")")
            return inner
        raise JustSyntax(f"unexpected {token.text!r} on line {self._line(token)}")


def fragments(text: str, line: int) -> tuple[str | Expr, ...]:
    """A recipe body's or a format string's text and `{{expression}}`s; `{{{{` is a literal `{{`.
    `line` is the text's first line (an expression's backticks are numbered from it)."""
    parts: list[str | Expr] = []
    lexer, at, literal = Lexer(text), 0, ""
    while True:
        start = text.find("{{", at)
        if start < 0:
            literal += text[at:]
            break
        if text.startswith("{{{{", start):
            literal += text[at:start] + "{{"
            at = start + 4
            continue
        literal += text[at:start]
        tokens, at = lexer.logical(start + 2, stop="}}")
        parser = Parser(tokens, lexer, line + text.count("\n", 0, start))
        if literal:
            parts.append(literal)
        literal = ""
        parts.append(parser.expression())
        if parser.peek() is not None:
            raise JustSyntax(f"unexpected text in an interpolation on line {line}")
    if literal:
        parts.append(literal)
    return tuple(parts)
