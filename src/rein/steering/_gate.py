"""One search instead of many: the pattern rules that apply to every command are joined into a single
alternation, and when it finds nothing in a command line none of them is tested one by one.

Only patterns whose meaning cannot change inside an alternation are joined: no backreferences (their
group numbers would shift) and no inline global flags. The others are always tested on their own. The
joined pattern is searched with the same time limit as its members (`SafePattern`) when any of them
came from config; a search that runs out of time tests every member on its own.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from rein.steering._pattern import Pattern, SafePattern
from rein.steering._rule import Rule

_UNSAFE = re.compile(r"\\[1-9]|\\g<|\(\?P=|\(\?[aiLmsux]+\)")


def pattern_gate(rules: Sequence[Rule]) -> tuple[Pattern | None, frozenset[int]]:
    """The joined pattern and the ids of the rules it stands for (None when joining gains nothing)."""
    joinable = [
        rule
        for rule in rules
        if (pattern := rule.matcher.pattern) is not None
        and not rule.matcher.command
        and (
            isinstance(pattern, SafePattern)
            or (isinstance(pattern, re.Pattern) and pattern.flags == re.UNICODE)
        )
        and not _UNSAFE.search(pattern.pattern)
    ]
    if len(joinable) < 2:
        return None, frozenset()
    patterns = [rule.matcher.pattern for rule in joinable if rule.matcher.pattern is not None]
    source = "|".join(f"(?:{pattern.pattern})" for pattern in patterns)
    try:
        joined: Pattern = (
            SafePattern(source) if any(isinstance(p, SafePattern) for p in patterns) else re.compile(source)
        )
    except Exception:  # re.error or regex's own: joining gains nothing then
        return None, frozenset()
    return joined, frozenset(id(rule) for rule in joinable)
