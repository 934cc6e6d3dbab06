"""What a program in a language read by its tokens launches: every call of one of its process APIs,
with the command folded from literal arguments; a call with an argument built at run time, an API
passed on as a value (`local f = os.execute`), or a string naming one (`do.call("system", ...)`) is
an unknown launch. Code that mentions no process API launches nothing: its strings are data.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from rein.steering.bash.launch._folding import (
    MAX_DEPTH,
    RUNTIME_VALUE,
    Value,
    argv_launch,
    at_line,
    globbed,
    literal,
    removal,
    shell_launch,
    too_deep,
    unknown_launch,
)
from rein.steering.bash.launch._launch import Launch
from rein.steering.bash.launch.lexical._apis import Api, Language, mentions
from rein.steering.bash.launch.lexical._calls import (
    Args,
    Folded,
    Tokens,
    call_args,
    fold,
    is_opaque,
    matching,
)
from rein.steering.bash.launch.lexical._lex import MAX_TOKENS, Token, tokenize
from rein.steering.bash.launch.lexical._words import command_words, split_words

MAX_TEXT = 1 << 16
"""A program longer than this that mentions a process API is unknown as a whole (reading one takes
about a millisecond per kilobyte)."""


def read(language: Language, text: str, env: Mapping[str, str], depth: int = 0) -> tuple[Launch, ...]:
    if not mentions(language).search(text):
        return ()
    if len(text) > MAX_TEXT:
        return (unknown_launch(language.name, f"the {language.name} program is too long to read", 1),)
    tokens = tokenize(text, language.syntax)
    if len(tokens) >= MAX_TOKENS:
        return (unknown_launch(language.name, f"the {language.name} program is too long to read", 1),)
    reader = _Reader(language, tokens, dict(env), depth)
    reader.scan()
    return tuple(dict.fromkeys(reader.found))


class _Reader:
    __slots__ = ("depth", "env", "found", "language", "tokens")

    def __init__(self, language: Language, tokens: list[Token], env: dict[str, str], depth: int) -> None:
        self.language = language
        self.tokens = tokens
        self.env = env
        self.depth = depth
        self.found: list[Launch] = []

    def scan(self) -> None:
        language = self.language
        for index, token in enumerate(self.tokens):
            if token.kind == "string" and token.text in language.indirect:
                why = f"the string '{token.text}' names a process API, which the program may call"
                self.found.append(unknown_launch(token.text, why, token.line))
                continue
            if token.kind == "command":
                self.found.append(_command(token, language.words))
                continue
            if token.kind != "name":
                if token.kind == "op" and token.text == "." and index + 1 < len(self.tokens):
                    self._method(index)
                continue
            name, api = self._api(token.text)
            if api is None:
                continue
            if api.shape == "unknown":
                self._launch(name, api, Args(), None, token.line)
                continue
            args = call_args(self.tokens, index, language)
            if args is None and language.lisp and _imported(self.tokens, index):
                continue
            if args is None:
                why = f"{name} is referred to as a value, so rein cannot tell what calls it"
                self.found.append(unknown_launch(name, why, token.line))
                continue
            self._launch(name, api, args, None, token.line)

    def _api(self, name: str) -> tuple[str, Api | None]:
        language = self.language
        api = language.apis.get(name)
        if api is None and language.strip:
            short = re.sub(language.strip, "", name)
            api = language.apis.get(short)
            name = short if api is not None else name
        if api is None and "." in name and not language.lisp:
            method = name.rpartition(".")[2]
            api = language.methods.get(method)
        return name, api

    def _method(self, index: int) -> None:
        """`receiver.method(args)`, where the receiver is the token (or bracketed list) before the dot."""
        following = self.tokens[index + 1]
        if following.kind not in ("name", "op"):
            return
        api = self.language.methods.get(following.text)
        if api is None:
            return
        receiver = self._receiver(index)
        if receiver is _REPORTED:
            return
        args = call_args(self.tokens, index + 1, self.language) or Args()
        self._launch(following.text, api, args, receiver, following.line)

    def _receiver(self, dot: int) -> Folded | None:
        before = self.tokens[dot - 1] if dot else None
        if before is None:
            return None
        if before.kind == "string":
            return fold([before], self.language, self.env)
        if before.kind == "close":
            start = next((i for i in range(dot - 1, -1, -1) if matching(self.tokens, i) == dot - 1), None)
            if start is None:
                return None
            if start and self.tokens[start - 1].kind == "name" and self.tokens[start].text == "(":
                start -= 1
                if self._api(self.tokens[start].text)[1] is not None:
                    return _REPORTED  # `Process("cmd").!`: the call itself is the launch
            return fold(self.tokens[start:dot], self.language, self.env)
        return None

    def _launch(self, name: str, api: Api, args: Args, receiver: Folded | None, line: int) -> None:
        found = self.found
        if api.shape == "unknown":
            found.append(unknown_launch(name, f"rein does not read how {name} starts a process", line))
            return
        tokens = self._arg(api, args)
        if api.at < 0:
            value: Folded | None = receiver
        else:
            value = fold(tokens, self.language, self.env) if tokens is not None else None
        if value is None:
            found.append(unknown_launch(name, f"{name} is called with a value built at run time", line))
        elif api.shape == "remove":
            self._remove(name, api, args, value, line)
        elif api.shape == "eval":
            self._eval(name, value, line)
        elif api.shape == "shell":
            found.append(_shell(name, value, line))
        elif api.shape == "split":
            after = args.positional[api.at + 1 :] if api.at >= 0 else ()
            found.append(_split(name, value, [fold(arg, self.language, self.env) for arg in after], line))
        else:
            self._argv(name, api, args, value, line)

    def _argv(self, name: str, api: Api, args: Args, value: Folded, line: int) -> None:
        chosen = list(args.positional[api.rest :]) if api.rest >= 0 else []
        if api.count >= 0:
            chosen = chosen[: api.count]
        keyword = args.keyword(api.rest_key) if api.rest_key else None
        chosen += [keyword] if keyword is not None else []
        rest = [fold(arg, self.language, self.env) for arg in chosen]
        items = [*_items(value), *(item for each in rest for item in _items(each))]
        if api.shape == "joined" or (api.shell_key and args.keyword(api.shell_key) is not None and not rest):
            joined = Value()
            for position, item in enumerate(items):
                joined = joined + (literal(" ") if position else Value()) + item
            self.found.append(_shell(name, joined, line))
        else:
            self.found.append(argv_launch(name, items, line))

    def _arg(self, api: Api, args: Args) -> Tokens | None:
        if api.key:
            keyword = args.keyword(api.key)
            if keyword is not None:
                return keyword
        return args.positional[api.at] if 0 <= api.at < len(args.positional) else None

    def _remove(self, name: str, api: Api, args: Args, value: Folded, line: int) -> None:
        if api.when:
            flag = args.keyword(api.when) if not api.when.isdigit() else None
            if api.when.isdigit() and int(api.when) < len(args.positional):
                flag = args.positional[int(api.when)]
            if not flag or flag[0].text not in ("TRUE", "T", "true", "t", "#t"):
                return
        paths = list(value) if isinstance(value, tuple) else [value]
        if api.home:
            paths = [globbed(path) if path.text is not None else path for path in paths]
        launch = removal(name, ("rm", "-rf"), paths, line)
        if launch is not None:
            self.found.append(launch)

    def _eval(self, name: str, value: Folded, line: int) -> None:
        code = value.text if isinstance(value, Value) else None
        if code is None:
            self.found.append(unknown_launch(name, f"{name} runs code built at run time", line))
        elif self.depth >= MAX_DEPTH:
            self.found.append(too_deep(self.language.name, line))
        else:
            self.found.extend(at_line(read(self.language, code, self.env, self.depth + 1), line))


_REPORTED = Value(("reported",))
"""A receiver that is itself a process API's call, whose launch is read already."""
_IMPORTS = frozenset({":refer", ":only", ":as", ":exclude", ":rename"})


def _imported(tokens: list[Token], index: int) -> bool:
    """A Clojure name in a `:require` clause (`:refer [sh]`, `:as sh`), not a use of it."""
    before = tokens[index - 1] if index else None
    if before is not None and before.text in _IMPORTS:
        return True
    depth = 0
    for position in range(index - 1, 0, -1):
        kind = tokens[position].kind
        depth += (kind == "close") - (kind == "open")
        if depth < 0:
            return tokens[position].text == "[" and tokens[position - 1].text in _IMPORTS
    return False


def _items(value: Folded) -> tuple[Value, ...]:
    if isinstance(value, tuple):
        return value
    if is_opaque(value):
        return (Value(value.parts, spread=True),)
    return (value,)


def _shell(name: str, value: Folded, line: int) -> Launch:
    if isinstance(value, tuple):
        return argv_launch(name, value, line)
    return shell_launch(name, value, line)


def _split(name: str, value: Folded, rest: list[Folded], line: int) -> Launch:
    """A string the API splits into words itself, without a shell (babashka's `(shell "git push" "-f")`,
    Groovy's `"cmd".execute()`), with any further arguments after them."""
    more = [item for each in rest for item in _items(each)]
    if isinstance(value, tuple):
        return argv_launch(name, [*value, *more], line)
    text = value.text
    if text is None:
        return unknown_launch(name, f"{name} is called with a value built at run time", line)
    return argv_launch(name, [*split_words(text), *more], line)


def _command(token: Token, words: bool) -> Launch:
    """A command literal: Julia's `` `cmd` `` is an argv no shell reads, gnuplot's a shell line."""
    if words:
        return command_words("`...`", token.text, token.line)
    value = _runtime(token.text) if token.dynamic else literal(token.text)
    return shell_launch("`...`", value, token.line)


def _runtime(text: str) -> Value:
    value = Value()
    for index, piece in enumerate(text.split("\0")):
        value = value + (RUNTIME_VALUE if index else Value()) + literal(piece)
    return value
