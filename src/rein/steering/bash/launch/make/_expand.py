"""GNU make's expansion of `$` references, as far as rein can know it: variables (recursive and
simple, with every value a conditional may have given them), automatic variables, substitution
references, and the functions `shell` (a launch), `call`, `foreach`, `if`, `eval`, `value`, `info`,
`warning`, `error`. Other functions are not computed: their value is `RUNTIME`, with a reason, but
their arguments are still expanded, so a `$(shell ...)` inside them is found.

An expansion is a list of alternatives (`Alt`), one per combination of the values variables may
have, bounded; a part rein cannot know is `RUNTIME` in the text, and `unknown` says why when it is
not just a file name make picks (an automatic variable)."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace

from rein.steering.bash.launch._launch import RUNTIME, Launch
from rein.steering.bash.launch.make._text import find, reference_end, split_arguments

MAX_ALTERNATIVES = 16
_MAX_DEPTH = 40
_MAX_WORDS = 32
_BUDGET = 20_000
"""Variable and function expansions per makefile: `X2 = $(X1)$(X1)` chains would take exponential
time (make itself would too)."""
_AUTOMATIC = "@<^+*?%|"
_FUNCTIONS = frozenset({
    "subst", "patsubst", "strip", "findstring", "filter", "filter-out", "sort", "word", "wordlist",
    "words", "firstword", "lastword", "dir", "notdir", "suffix", "basename", "addsuffix", "addprefix",
    "join", "wildcard", "realpath", "abspath", "error", "warning", "info", "shell", "origin", "flavor",
    "foreach", "if", "or", "and", "call", "eval", "file", "value", "let", "intcmp", "guile",
})  # fmt: skip
_FUNCTION = re.compile(r"([a-z-]+)[ \t]")
_TOO_MANY = "a make variable has too many possible values"


@dataclass(frozen=True, slots=True)
class Value:
    """One value a make variable may hold."""

    text: str
    recursive: bool
    """Expanded where it is used (`=`), or already expanded (`:=`)."""
    unknown: str = ""


Values = tuple[Value | None, ...]
"""The values a variable may hold; None: it may not be set at all."""


@dataclass(frozen=True, slots=True)
class Alt:
    """One possible expansion."""

    text: str
    unknown: str = ""


@dataclass(frozen=True, slots=True)
class Scope:
    line: int
    automatic: Mapping[str, str] | None = None
    """The automatic variables of the recipe being expanded; a missing one is `RUNTIME`."""
    bound: Mapping[str, tuple[Alt, ...]] | None = None
    """`$(1)`.. of a `$(call)`, the variable of a `$(foreach)`."""
    active: frozenset[str] = frozenset()
    depth: int = 0


def dedupe(alts: Iterable[Alt]) -> list[Alt]:
    out = list(dict.fromkeys(alts))
    return out if len(out) <= MAX_ALTERNATIVES else [Alt(RUNTIME, _TOO_MANY)]


def _product(left: list[Alt], right: list[Alt]) -> list[Alt]:
    if not right:
        return left
    if len(left) * len(right) > MAX_ALTERNATIVES:
        right = [Alt(RUNTIME, _TOO_MANY)]
    return dedupe(Alt(a.text + b.text, a.unknown or b.unknown) for a in left for b in right)


def _known(alt: Alt) -> bool:
    return not alt.unknown and RUNTIME not in alt.text


def _runtime(why: str) -> list[Alt]:
    return [Alt(RUNTIME, why)]


class Expander:
    def __init__(
        self,
        table: dict[str, Values],
        launches: list[Launch],
        evaluate: Callable[[str, int, str], None],
    ) -> None:
        self.table = table
        """The variables: the reader changes this dict in place."""
        self.launches = launches
        self.evaluate = evaluate
        """Reads the text of a `$(eval)` as makefile text (text, line, why it is not known)."""
        self.budget = _BUDGET
        self.scanning = False
        """Expanding a deferred value only for the `$(shell)`s in it: an `$(eval)` there is read
        where the value is used, with the values it has there."""

    def expand(self, text: str, scope: Scope) -> list[Alt]:
        if "$" not in text:
            return [Alt(text)]
        alts = [Alt("")]
        at = 0
        while at < len(text):
            dollar = text.find("$", at)
            if dollar < 0:
                dollar = len(text)
            if dollar > at:
                alts = [Alt(alt.text + text[at:dollar], alt.unknown) for alt in alts]
            if dollar == len(text):
                break
            end = reference_end(text, dollar)
            alts = _product(alts, self._reference(text[dollar:end], scope))
            at = end
        return alts

    def _reference(self, ref: str, scope: Scope) -> list[Alt]:
        if len(ref) < 2:
            return [Alt("")]
        opener = ref[1]
        if opener == "$":
            return [Alt("$")]
        self.budget -= 1
        if self.budget < 0:
            return _runtime("the makefile is too large to expand")
        if opener not in "({":
            return self.variable(opener, scope)
        if ref[-1] != {"(": ")", "{": "}"}[opener]:
            return _runtime("an unterminated make variable reference")
        body = ref[2:-1]
        function = _FUNCTION.match(body)
        if function is not None and function.group(1) in _FUNCTIONS:
            return self._function(function.group(1), body[function.end() :], scope)
        colon = find(body, ":")
        if colon >= 0 and "=" in body[colon:]:
            return self._substitution(body, colon, scope)
        alts: list[Alt] = []
        for name in self.expand(body, scope):
            alts.extend(
                self.variable(name.text, scope) if _known(name) else _runtime("a computed variable name")
            )
        return dedupe(alts)

    def variable(self, name: str, scope: Scope) -> list[Alt]:
        if scope.depth > _MAX_DEPTH:
            return _runtime("make variables nest too deeply to read")
        if scope.bound is not None and name in scope.bound:
            return list(scope.bound[name])
        if name and name[0] in _AUTOMATIC and (len(name) == 1 or (len(name) == 2 and name[1] in "DF")):
            return [Alt(_automatic(name, scope.automatic))]
        if name in scope.active:
            return _runtime(f"the make variable {name} refers to itself")
        values = self.table.get(name)
        if values is None:
            return _runtime(f"make variable {name} is not set in the makefile (the command line may set it)")
        inner = replace(scope, active=scope.active | {name}, depth=scope.depth + 1)
        alts: list[Alt] = []
        for value in values:
            if value is None:
                alts.append(Alt(RUNTIME, f"make variable {name} may not be set in the makefile"))
            elif value.recursive:
                alts.extend(self.expand(value.text, inner))
            else:
                alts.append(Alt(value.text, value.unknown))
        return dedupe(alts)

    def _substitution(self, body: str, colon: int, scope: Scope) -> list[Alt]:
        """`$(VAR:a=b)`, `$(VAR:%.c=%.o)`: each word's suffix or pattern replaced."""
        pattern, _, result = body[colon + 1 :].partition("=")
        if "%" not in pattern:
            pattern, result = "%" + pattern, "%" + result
        alts: list[Alt] = []
        for name in self.expand(body[:colon], scope):
            for alt in (
                self.variable(name.text, scope) if _known(name) else _runtime("a computed variable name")
            ):
                words = [_patsubst(word, pattern, result) for word in alt.text.split()]
                alts.append(Alt(" ".join(words), alt.unknown))
        return dedupe(alts)

    def _function(self, name: str, rest: str, scope: Scope) -> list[Alt]:
        if name == "shell":
            for alt in self.expand(rest, scope):
                if alt.text.strip() or alt.unknown:
                    launch = Launch(api="$(shell)", shell=alt.text, unknown=alt.unknown, line=scope.line)
                    self.launches.append(launch)
            return _runtime("the output of $(shell ...) is known only at run time")
        if name in ("info", "warning", "error"):
            self.expand(rest, scope)
            return [Alt("")]
        if name == "eval":
            for alt in self.expand(rest, scope):
                if not self.scanning:
                    self.evaluate(alt.text, scope.line, alt.unknown)
            return [Alt("")]
        if name == "if":
            return self._if(split_arguments(rest, 3), scope)
        if name == "call":
            return self._call(split_arguments(rest, 0), scope)
        if name == "foreach":
            return self._foreach(split_arguments(rest, 3), scope)
        if name == "value":
            values = self.table.get(rest.strip())
            if values is None or None in values:
                return _runtime(f"make variable {rest.strip()} is not set in the makefile")
            return dedupe(Alt(value.text, value.unknown) for value in values if value is not None)
        for argument in split_arguments(rest, 0):
            self.expand(argument, scope)
        if name == "guile":
            self.launches.append(Launch(api="$(guile)", unknown="make runs Guile code", line=scope.line))
        return _runtime(f"rein does not compute make's $({name} ...)")

    def _if(self, arguments: list[str], scope: Scope) -> list[Alt]:
        """Both branches, unless the condition is known."""
        conditions = self.expand(arguments[0], scope)
        then = self.expand(arguments[1], scope) if len(arguments) > 1 else [Alt("")]
        otherwise = self.expand(arguments[2], scope) if len(arguments) > 2 else [Alt("")]
        alts: list[Alt] = []
        for condition in conditions:
            if not _known(condition):
                alts.extend([*then, *otherwise])
            else:
                alts.extend(then if condition.text.strip() else otherwise)
        return dedupe(alts)

    def _call(self, arguments: list[str], scope: Scope) -> list[Alt]:
        """`$(call var,a,b)`: `var` expanded with `$(1)`, `$(2)` bound; a built-in function's name
        calls the function (`$(call shell,cmd)` runs `cmd`)."""
        alts: list[Alt] = []
        params = [tuple(self.expand(argument, scope)) for argument in arguments[1:]]
        for name in self.expand(arguments[0], scope):
            function = name.text.strip()
            if not _known(name):
                alts.extend(_runtime("$(call) of a function whose name is built at run time"))
            elif function in _FUNCTIONS:
                alts.extend(self.expand(f"$({function} {','.join(arguments[1:])})", scope))
            else:
                bound = {
                    str(index): params[index - 1] if index <= len(params) else (Alt(""),)
                    for index in range(1, 10)
                }
                bound["0"] = (Alt(function),)
                alts.extend(self.variable(function, replace(scope, bound={**(scope.bound or {}), **bound})))
        return dedupe(alts)

    def _foreach(self, arguments: list[str], scope: Scope) -> list[Alt]:
        if len(arguments) < 3:
            return [Alt("")]
        names = self.expand(arguments[0], scope)
        if len(names) != 1 or not _known(names[0]):
            return _runtime("$(foreach) over a variable whose name is built at run time")
        name, alts = names[0].text.strip(), []
        for listed in self.expand(arguments[1], scope):
            words = listed.text.split()
            if not _known(listed) or len(words) > _MAX_WORDS:
                words_alts = [(Alt(RUNTIME, listed.unknown or "a long $(foreach) list"),)]
            else:
                words_alts = [(Alt(word),) for word in words]
            joined = [Alt("", listed.unknown)]
            for index, word in enumerate(words_alts):
                body = self.expand(arguments[2], replace(scope, bound={**(scope.bound or {}), name: word}))
                joined = _product(
                    joined, [Alt(" " + alt.text if index else alt.text, alt.unknown) for alt in body]
                )
            alts.extend(joined)
        return dedupe(alts)


def _automatic(name: str, values: Mapping[str, str] | None) -> str:
    """`$@`, `$(@D)`, `$(<F)`...: the value the recipe's rule gives it, or `RUNTIME`."""
    value = (values or {}).get(name[0])
    if value is None:
        return RUNTIME
    if len(name) == 1:
        return value
    if name[1] == "D":
        return " ".join(posixpath.dirname(word) or "." for word in value.split())
    return " ".join(posixpath.basename(word) for word in value.split())


def _patsubst(word: str, pattern: str, result: str) -> str:
    prefix, _, suffix = pattern.partition("%")
    if len(word) < len(prefix) + len(suffix) or not (word.startswith(prefix) and word.endswith(suffix)):
        return word
    stem = word[len(prefix) : len(word) - len(suffix)]
    return result.replace("%", stem, 1)
