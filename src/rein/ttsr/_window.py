"""How much of a stream must be held back before it can be shown: the hold-back window of a rule set.

A proxy that streams a reply on while rules watch it may release text only once no rule can still match
across it. With an eager matcher (every candidate confirmed on the delta that completes it), a match is
reported once `margin` characters follow its end, so text more than (longest match + margin) characters
behind the stream's end is final. The longest match comes from the pattern (Python's own parser measures
it); a `line` rule never reaches past its line, so it holds at most the unfinished line; a `chunk` rule
matches within one delta, which is checked whole before any of it is released. A pattern whose longest
match is unbounded or unknown (`\\s+`, `\\p{L}`) holds `cap` characters (a `line` one: its line, up to
`cap`), and may then match text already released: `HoldWindow.bounded` says whether that can happen.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol, cast

from rein.ttsr._plan import PlannedCondition, RulePlan
from rein.ttsr._rule import Source


class _Parsed(Protocol):
    def getwidth(self) -> tuple[int, int]: ...


class _Parser(Protocol):
    def parse(self, pattern: str, flags: int = 0) -> _Parsed: ...


# The stdlib's regex parser measures a pattern's width; it has no public name (typeshed omits it).
_SRE: _Parser = cast(_Parser, importlib.import_module("re._parser"))
_UNBOUNDED = 1 << 31


@dataclass(frozen=True, slots=True)
class HoldWindow:
    """Characters to hold behind a stream's end: `span` always, and up to `line` of the unfinished line."""

    span: int = 0
    line: int = 0
    bounded: bool = True
    """False when a rule may match more than the window holds (a late match is then possible)."""
    unbounded_rules: tuple[str, ...] = ()
    """The rules whose longest match is over the cap or unknown."""

    def held(self, length: int, line_start: int) -> int:
        """Characters to hold of a stream `length` long whose unfinished line starts at `line_start`."""
        return min(length, max(self.span, min(self.line, length - line_start)))


@functools.lru_cache(maxsize=4096)
def longest_match(pattern: str) -> int | None:
    """The most characters one match of `pattern` can span, or None when unbounded or not measurable."""
    try:
        width = _SRE.parse(pattern).getwidth()[1]
    except Exception:  # any pattern Python's parser does not read (`\\p{L}`, `\\K`) is unknown
        return None
    return width if width < _UNBOUNDED else None


def condition_window(condition: PlannedCondition, cap: int) -> int | None:
    """Characters one condition needs held (longest match + margin), or None past `cap` or unknown."""
    width = longest_match(condition.condition.pattern)
    if width is None or width + condition.margin > cap:
        return None
    return width + condition.margin


def hold_windows(plan: RulePlan, cap: int) -> Mapping[Source, HoldWindow]:
    """The window of each source the plan watches, no side over `cap` characters."""
    out: dict[Source, HoldWindow] = {}
    for source in plan.sources:
        span = line = 0
        unbounded: list[str] = []
        for condition in plan.conditions:
            rule = plan.rules[condition.rule_index]
            if condition.extent == "chunk" or not rule.scope.watches(source):
                continue
            need = condition_window(condition, cap)
            if need is None and rule.name not in unbounded:
                unbounded.append(rule.name)
            if condition.extent == "line":
                line = max(line, cap if need is None else need)
            else:
                span = max(span, cap if need is None else need)
        out[source] = HoldWindow(span, line, not unbounded, tuple(unbounded))
    return out
