"""The arguments of a call, found in the tokens after its name, and what each folds to: a string
(literal parts, joined with the language's concatenation), a list of strings, the home directory, or a
value built at run time.

Calls come in three shapes: `name(a, b)` (and Lua's `name "s"`), a Lisp form `(name a b)`, and
juxtaposition, `name a b` (Haskell, OCaml) or `name a, b` (Elixir, Groovy).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rein.steering.bash.launch._folding import HOME_VALUE, MAX_ITEMS, RUNTIME_VALUE, Mark, Value, literal
from rein.steering.bash.launch.lexical._apis import Language
from rein.steering.bash.launch.lexical._lex import Token

Tokens = Sequence[Token]
Folded = Value | tuple[Value, ...]
"""A string, or a list of strings."""
_PAIRS = {"(": ")", "[": "]", "{": "}"}


@dataclass(frozen=True, slots=True)
class Args:
    """A call's arguments as token runs: positional in order, and keyword ones by name."""

    positional: tuple[Tokens, ...] = ()
    keywords: tuple[tuple[str, Tokens], ...] = ()

    def keyword(self, name: str) -> Tokens | None:
        return next((tokens for key, tokens in self.keywords if key == name), None)


def matching(tokens: Tokens, index: int) -> int:
    """The index of the bracket closing the one at `index` (the end when it is never closed)."""
    depth = 0
    for position in range(index, len(tokens)):
        kind = tokens[position].kind
        if kind == "open":
            depth += 1
        elif kind == "close":
            depth -= 1
            if depth == 0:
                return position
    return len(tokens)


def call_args(tokens: Tokens, index: int, language: Language) -> Args | None:
    """The arguments of the call whose name is `tokens[index]`; None when the name is not called
    there (it is passed on as a value, or referred to)."""
    if language.lisp:
        if index == 0 or tokens[index - 1].text != "(" or tokens[index - 1].kind != "open":
            return None
        return _lisp_args(tokens[index + 1 : matching(tokens, index - 1)])
    after = tokens[index + 1] if index + 1 < len(tokens) else None
    if after is not None and after.kind == "open" and after.text == "(":
        return _split(tokens[index + 2 : matching(tokens, index + 1)], language)
    lua = language.name == "lua" and after is not None
    if lua and after is not None and (after.kind in ("string", "command") or after.text == "{"):
        end = matching(tokens, index + 1) + 1 if after.text == "{" else index + 2
        return Args((tokens[index + 1 : end],))  # `os.execute "cmd"`, `io.popen[[cmd]]`, `f{...}`
    if language.juxtapose or language.bare:
        end = index + 1
        depth = 0
        while end < len(tokens):
            token = tokens[end]
            depth += (token.kind == "open") - (token.kind == "close")
            if depth < 0 or (depth == 0 and (token.kind == "end" or token.text in (";", "|>", "in"))):
                break
            end += 1
        run = tokens[index + 1 : end]
        if run and (
            language.bare or run[0].kind in ("string", "open", "name", "number") or run[0].text == "$"
        ):
            return _split(run, language) if language.bare else Args(tuple(_atoms(run)))
    return None


def _split(tokens: Tokens, language: Language) -> Args:
    """Arguments separated by commas (and `;`) at the top level; `name=value` and `name: value` are
    keyword arguments."""
    positional: list[Tokens] = []
    keywords: list[tuple[str, Tokens]] = []
    start, depth = 0, 0
    for position, token in enumerate([*tokens, Token("sep", ",", 0)]):
        depth += (token.kind == "open") - (token.kind == "close")
        if depth or token.kind != "sep":
            continue
        arg = [t for t in tokens[start:position] if t.kind != "end"]
        start = position + 1
        if len(arg) > 1 and arg[0].kind == "name" and arg[1].text in ("=", ":") and arg[1].kind == "op":
            keywords.append((arg[0].text, arg[2:]))
        elif arg:
            positional.append(arg)
    return Args(tuple(positional), tuple(keywords))


def _lisp_args(tokens: Tokens) -> Args:
    atoms = _atoms(tokens)
    positional: list[Tokens] = []
    keywords: list[tuple[str, Tokens]] = []
    index = 0
    while index < len(atoms):
        atom = atoms[index]
        if (
            len(atom) == 1
            and atom[0].kind == "name"
            and atom[0].text.startswith(":")
            and len(atom[0].text) > 1
        ):
            keywords.append((atom[0].text[1:], atoms[index + 1] if index + 1 < len(atoms) else ()))
            index += 2
            continue
        if not (atom and atom[0].kind == "open" and atom[0].text == "{"):  # a map of options
            positional.append(atom)
        index += 1
    return Args(tuple(positional), tuple(keywords))


def _atoms(tokens: Tokens) -> list[Tokens]:
    """Each operand in juxtaposition: a bracketed group with any quote before it, a string, or a name;
    after Haskell's `$` the rest is one operand."""
    atoms: list[Tokens] = []
    index = 0
    tokens = [token for token in tokens if token.kind != "end"]
    while index < len(tokens):
        token = tokens[index]
        start = index
        if token.kind == "op" and token.text == "$":
            atoms.append(tokens[index + 1 :])
            break
        while (
            index < len(tokens)
            and tokens[index].kind == "op"
            and tokens[index].text in ("'", "`", "#", "#'", "@")
        ):
            index += 1
        if index < len(tokens) and tokens[index].kind == "open":
            index = matching(tokens, index)
        index += 1
        atoms.append(tokens[start:index])
    return atoms


def fold(tokens: Tokens, language: Language, env: dict[str, str]) -> Folded:
    """What an argument's tokens amount to."""
    tokens = [token for token in tokens if token.kind != "end"]
    while tokens and tokens[0].kind == "op" and tokens[0].text in ("'", "`", "#'", "@", "*"):
        tokens = tokens[1:]  # a quoted list is a list; `*args`, `@args` are the list spread
    if not tokens:
        return RUNTIME_VALUE
    head = tokens[0]
    whole = head.kind == "open" and matching(tokens, 0) == len(tokens) - 1
    if whole and language.lisp and head.text == "(" and len(tokens) > 2 and tokens[1].kind == "name":
        return _call(tokens[1].text, tokens[2:-1], language, env)
    if whole:
        inner = tokens[1:-1]
        if head.text == "(" and not language.lisp:
            return fold(inner, language, env)
        return _list(inner, language, env)
    called = (
        head.kind == "name" and len(tokens) > 1 and tokens[1].text in ("(", "[") and tokens[1].kind == "open"
    )
    if called and matching(tokens, 1) == len(tokens) - 1:
        return _call(head.text, tokens[2:-1], language, env)
    return _joined(tokens, language, env)


def _joined(tokens: Tokens, language: Language, env: dict[str, str]) -> Value:
    """Operands joined with the language's concatenation operators, each a string or a call that
    folds to one; any other operand or operator is built at run time."""
    operands: list[list[Token]] = [[]]
    depth = 0
    for token in tokens:
        depth += (token.kind == "open") - (token.kind == "close")
        if depth == 0 and token.kind == "op" and token.text in language.concat:
            operands.append([])
        else:
            operands[-1].append(token)
    if len(operands) == 1:
        return _string(tokens[0]) if len(tokens) == 1 and tokens[0].kind == "string" else RUNTIME_VALUE
    value = Value()
    for operand in operands:
        folded = fold(operand, language, env) if operand else RUNTIME_VALUE
        value = value + (folded if isinstance(folded, Value) else RUNTIME_VALUE)
    return value


def _string(token: Token) -> Value:
    if not token.dynamic:
        return literal(token.text)
    value = Value()
    for index, piece in enumerate(token.text.split("\0")):
        value = value + (RUNTIME_VALUE if index else Value()) + literal(piece)
    return value


def _call(name: str, inner: Tokens, language: Language, env: dict[str, str]) -> Folded:
    args = _lisp_args(inner) if language.lisp else _split(inner, language)
    values = [fold(arg, language, env) for arg in args.positional]
    if name in language.lists:
        return _flat(values)
    if name in language.joins:
        joined = Value()
        for index, item in enumerate(values):
            joined = joined + (literal(language.joins[name]) if index else Value())
            joined = joined + (item if isinstance(item, Value) else RUNTIME_VALUE)
        return joined
    if name in language.homes:
        return HOME_VALUE
    if name in language.getenv and values and isinstance(values[0], Value):
        variable = values[0].text
        if variable == "HOME":
            return HOME_VALUE
        if variable is not None and variable in env:
            return literal(env[variable])
    return RUNTIME_VALUE


def _list(inner: Tokens, language: Language, env: dict[str, str]) -> tuple[Value, ...]:
    if len(inner) > 1 and inner[0].text == inner[-1].text == "|":  # OCaml's `[| ... |]`
        inner = inner[1:-1]
    items = _lisp_args(inner).positional if language.lisp else _split(inner, language).positional
    return _flat([fold(item, language, env) for item in items])


def _flat(values: Sequence[Folded]) -> tuple[Value, ...]:
    flat: list[Value] = []
    for item in values:
        flat.extend(item if isinstance(item, tuple) else (item,))
    return tuple(flat[:MAX_ITEMS])


def is_opaque(value: Folded) -> bool:
    return isinstance(value, Value) and value.parts == (Mark.RUNTIME,)
