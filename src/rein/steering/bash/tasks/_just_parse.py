"""A justfile's items (https://just.systems/man/en/): settings, assignments (`export`ed or not),
aliases, `import`s, `mod`ules, attributes and recipes with their parameters, dependencies (before
and after `&&`, with arguments) and indented bodies."""

from __future__ import annotations

from dataclasses import dataclass, field

from rein.steering.bash.tasks._just_expr import Expr, Lit, Parser
from rein.steering.bash.tasks._just_lex import JustSyntax, Lexer

Setting = bool | str | tuple[str, ...]
Attribute = tuple[str, tuple[str, ...]]


@dataclass(frozen=True, slots=True)
class Param:
    name: str
    default: Expr | None
    variadic: str
    """`*` (zero or more), `+` (one or more) or empty."""
    export: bool


@dataclass(frozen=True, slots=True)
class Dep:
    name: str
    args: tuple[Expr, ...]


@dataclass(frozen=True, slots=True)
class Recipe:
    name: str
    params: tuple[Param, ...]
    deps: tuple[Dep, ...]
    after: tuple[Dep, ...]
    """The dependencies after `&&`, run when the recipe is done."""
    body: tuple[tuple[int, str], ...]
    """The body lines and their line numbers, the recipe's indentation removed."""
    attributes: tuple[Attribute, ...]
    line: int

    def attribute(self, name: str) -> tuple[str, ...] | None:
        return next((args for key, args in self.attributes if key == name), None)


@dataclass(frozen=True, slots=True)
class Assignment:
    name: str
    value: Expr
    line: int
    export: bool


@dataclass(slots=True)
class Justfile:
    recipes: list[Recipe] = field(default_factory=list)
    assignments: dict[str, Assignment] = field(default_factory=dict)
    settings: dict[str, Setting] = field(default_factory=dict)
    aliases: dict[str, str] = field(default_factory=dict)
    imports: list[tuple[str, bool]] = field(default_factory=list)
    """(path as written, optional)."""
    mods: dict[str, tuple[str | None, bool]] = field(default_factory=dict)
    """Module name: (path as written or None, optional)."""


_KEYWORDS = frozenset({"set", "alias", "export", "unexport", "import", "mod"})


def parse(text: str) -> Justfile:
    """Raises `JustSyntax` where just would reject the text."""
    lexer, file, at = Lexer(text), Justfile(), 0
    attributes: list[Attribute] = []
    while at < len(text):
        end = text.find("\n", at)
        line = text[at : len(text) if end < 0 else end]
        if not line.strip() or line.lstrip().startswith("#"):
            at = len(text) if end < 0 else end + 1
            continue
        if line[0] in " \t":
            raise JustSyntax(f"unexpected indentation on line {lexer.line(at)}")
        tokens, at = lexer.logical(at)
        parser = Parser(tokens, lexer)
        first = parser.peek()
        if first is not None and first.kind == "op" and first.text == "[":
            attributes.extend(_attributes(parser))
            continue
        if any(token.kind == "op" and token.text == ":" for token in tokens):  # only a recipe has one
            recipe, at = _recipe(parser, lexer, text, at, tuple(attributes))
            file.recipes.append(recipe)
        elif first is not None and first.kind == "name" and first.text in _KEYWORDS:
            _item(parser, file, lexer.line(first.at))
        elif first is not None and first.kind == "name" and parser.is_op(":=", 1):
            parser.at = 2
            file.assignments[first.text] = Assignment(first.text, _whole(parser), lexer.line(first.at), False)
        else:
            raise JustSyntax(f"unexpected text on line {lexer.line(at)}")
        attributes = []
    return file


def _item(parser: Parser, file: Justfile, line: int) -> None:
    keyword = parser.name()
    if keyword == "set":
        name = parser.name()
        value: Setting = True
        if parser.is_op(":="):
            parser.take()
            value = _setting(parser)
        file.settings[name] = value
    elif keyword == "alias":
        name = parser.name()
        parser.expect(":=")
        file.aliases[name] = "::".join(_path(parser))
    elif keyword == "export":
        name = parser.name()
        parser.expect(":=")
        file.assignments[name] = Assignment(name, _whole(parser), line, True)
    elif keyword == "unexport":
        parser.name()
    elif keyword == "import":
        optional = _optional(parser)
        file.imports.append((_string(parser), optional))
    else:
        optional = _optional(parser)
        name = parser.name()
        file.mods[name] = (_string(parser) if parser.peek() is not None else None, optional)
    if parser.peek() is not None:
        raise JustSyntax(f"unexpected text after {keyword} on line {line}")


def _optional(parser: Parser) -> bool:
    if parser.is_op("?"):
        parser.take()
        return True
    return False


def _string(parser: Parser) -> str:
    token = parser.take()
    if token.kind != "string" or token.prefix:
        raise JustSyntax(f"expected a string, found {token.text!r}")
    return token.text


def _path(parser: Parser) -> list[str]:
    names = [parser.name()]
    while parser.is_op("::"):
        parser.take()
        names.append(parser.name())
    return names


def _whole(parser: Parser) -> Expr:
    value = parser.expression()
    if parser.peek() is not None:
        raise JustSyntax(f"unexpected {parser.take().text!r} after an expression")
    return value


def _setting(parser: Parser) -> Setting:
    token = parser.peek()
    if token is not None and token.kind == "name" and token.text in ("true", "false"):
        parser.take()
        return token.text == "true"
    if parser.is_op("["):
        parser.take()
        items: list[str] = []
        while not parser.is_op("]"):
            items.append(_literal(parser.expression()))
            if not parser.is_op("]"):
                parser.expect(",")
        parser.take()
        return tuple(items)
    return _literal(_whole(parser))


def _literal(value: Expr) -> str:
    return value.text if isinstance(value, Lit) and not value.shell else "\0"  # "\0": not static


def _attributes(parser: Parser) -> list[Attribute]:
    found: list[Attribute] = []
    parser.expect("[")
    while not parser.is_op("]"):
        name = parser.name()
        args: list[str] = []
        if parser.is_op("("):
            parser.take()
            while not parser.is_op(")"):
                args.append(_string(parser))
                if not parser.is_op(")"):
                    parser.expect(",")
            parser.take()
        elif parser.is_op(":"):
            parser.take()
            args.append(_string(parser))
        found.append((name, tuple(args)))
        if not parser.is_op("]"):
            parser.expect(",")
    parser.take()
    if parser.peek() is not None:
        raise JustSyntax("unexpected text after an attribute")
    return found


def _recipe(
    parser: Parser, lexer: Lexer, text: str, at: int, attributes: tuple[Attribute, ...]
) -> tuple[Recipe, int]:
    start = parser.peek()
    assert start is not None
    line = lexer.line(start.at)
    if parser.is_op("@"):
        parser.take()
    name = parser.name()
    params: list[Param] = []
    while not parser.is_op(":"):
        variadic = parser.take().text if parser.is_op("*") or parser.is_op("+") else ""
        export = parser.is_op("$")
        if export:
            parser.take()
        param = parser.name()
        default = None
        if parser.is_op("="):
            parser.take()
            default = parser.value()
        params.append(Param(param, default, variadic, export))
    parser.take()
    deps = _deps(parser)
    after: list[Dep] = []
    if parser.is_op("&&"):
        parser.take()
        after = _deps(parser)
    if parser.peek() is not None:
        raise JustSyntax(f"unexpected {parser.take().text!r} in recipe {name} on line {line}")
    body, at = _body(lexer, text, at)
    return Recipe(name, tuple(params), tuple(deps), tuple(after), body, attributes, line), at


def _deps(parser: Parser) -> list[Dep]:
    deps: list[Dep] = []
    while (token := parser.peek()) is not None and not parser.is_op("&&"):
        if token.kind == "name":
            deps.append(Dep("::".join(_path(parser)), ()))
            continue
        parser.expect("(")
        name = "::".join(_path(parser))
        args: list[Expr] = []
        while not parser.is_op(")"):
            args.append(parser.expression())
            if parser.is_op(","):
                parser.take()
        parser.take()
        deps.append(Dep(name, tuple(args)))
    return deps


def _body(lexer: Lexer, text: str, at: int) -> tuple[tuple[tuple[int, str], ...], int]:
    """The indented lines from `at`; blank lines inside are kept, those at the end dropped."""
    lines: list[tuple[int, str]] = []
    while at < len(text):
        end = text.find("\n", at)
        end = len(text) if end < 0 else end
        line = text[at:end].removesuffix("\r")
        if line.strip() and line[0] not in " \t":
            break
        lines.append((lexer.line(at), line))
        at = end + 1
    while lines and not lines[-1][1].strip():
        lines.pop()
    first = next((line for _, line in lines if line.strip()), "")
    indent = first[: len(first) - len(first.lstrip(" \t"))]
    return tuple(
        (number, line[len(indent) :] if line.startswith(indent) else line.lstrip(" \t"))
        for number, line in lines
    ), min(at, len(text))
