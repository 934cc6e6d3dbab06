"""Regexes from steering.toml, searched with a time limit.

Python's `re` backtracks without bound: a pattern like `(a+)+$` takes seconds on a short line, longer
than a host gives a hook, and a host that times a hook out lets the call through. Rules read from
config use the `regex` engine instead, whose searches take a timeout; a search that runs past it is a
match rein could not decide, so the rule treats it as unknown (and, by default, blocks). `regex` is
imported on first use, so a policy without pattern rules (the hook's usual case) does not pay for it.
"""

from __future__ import annotations

import importlib
from functools import cache
from types import ModuleType
from typing import Any, Protocol

from rein.steering.bash import Unknown

TIMEOUT = 0.05
"""Seconds one search may take."""
_ENGINE = "regex"


class Pattern(Protocol):
    """A regular expression a rule searches: `re.Pattern` (a plugin's) or `SafePattern` (config's)."""

    @property
    def pattern(self) -> str: ...

    def search(self, string: str) -> object | None: ...


class PatternTimeout(Exception):
    """A search ran past `TIMEOUT`."""


class _TimedOut(Unknown):
    """The answer of a search that ran out of time: unknown, and why."""

    def __new__(cls) -> _TimedOut:
        return object.__new__(cls)

    def __repr__(self) -> str:
        return "<timed out>"


TIMED_OUT: Unknown = _TimedOut()


@cache
def _engine() -> ModuleType:
    return importlib.import_module(_ENGINE)


class SafePattern:
    """A pattern compiled by the `regex` engine; `search` raises `PatternTimeout` past the limit.
    An invalid pattern raises ValueError with the engine's message. A `lazy` one (rein's own packs,
    whose patterns its tests compile) is compiled at its first search: a hook process pays only for
    the patterns of the rules its command meets."""

    __slots__ = ("_compiled", "pattern")

    def __init__(self, source: str, *, lazy: bool = False) -> None:
        self.pattern = source
        self._compiled: Any = None if lazy else self._compile()

    def _compile(self) -> Any:
        engine = _engine()
        try:
            return engine.compile(self.pattern)
        except engine.error as error:
            raise ValueError(str(error)) from None

    def search(self, string: str) -> object | None:
        if self._compiled is None:
            self._compiled = self._compile()
        try:
            found: object | None = self._compiled.search(string, timeout=TIMEOUT)
        except TimeoutError:
            raise PatternTimeout(self.pattern) from None
        return found

    def __repr__(self) -> str:
        return f"SafePattern({self.pattern!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SafePattern) and other.pattern == self.pattern

    def __hash__(self) -> int:
        return hash(self.pattern)


def found(pattern: Pattern, text: str) -> bool | Unknown:
    """Whether `pattern` occurs in `text`; UNKNOWN when the search ran out of time."""
    try:
        return pattern.search(text) is not None
    except PatternTimeout:
        return TIMED_OUT
