"""What a `find` action may get for a start point: the start point itself and everything below it,
unless the tests before the action say otherwise.

find tests the start point too (`find /tmp -name 'tmp*' -delete` removes `/tmp`), so a test the start
point cannot pass, or `-mindepth 1`, leaves only what is below it: `find /tmp -name 'tmp.*'` never gets
`/tmp` (its name is `tmp`), nor does `find ~ -type f` get the home directory. A `-name` test bounds what
is below too: only entries of that name (`find ~ -name '*.pyc' -delete` removes no root, `find ~
-type f -delete` empties home). Only the tests every path the action gets has passed count: those in
the action's own chain of `-a`, before it, not negated and not in parentheses.

The answer is a path pattern as `no-rm-root` reads targets (`*` also matches `/`, as find's `-path`
does): the start point's path, or `path/*NAME` for the entries below it with a name matching NAME.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Sequence
from fnmatch import fnmatchcase

from rein.steering.bash.commands._feeder_tables import FIND_PRIMARIES
from rein.steering.bash.model import Word

_NAMES = frozenset({"-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename", "-regex", "-iregex"})
_CHAIN_ENDS = frozenset({"-o", "-or", ","})
_NOT = frozenset({"!", "-not"})
_EMACS = re.compile(r"\\(.)|[(){}|]")
"""In find's default (emacs) regexes `\\(`, `\\|`, `\\{` group and `(`, `|`, `{` are literal."""


def reach(given: str, path: str, expression: Sequence[Word], action: int, *, follows: bool = False) -> str:
    """The path pattern an action at `expression[action]` may get for the start point written `given`
    (`path` when absolute). `follows` (`find -L`): a link below it may lead anywhere, so the start
    point bounds nothing."""
    tests = _tests(expression[:action])
    if follows or any(word.value == "-follow" for word in expression):
        return path
    if _mindepth(expression) < 1 and not _excludes(given, tests):
        return path
    name = next((bound for bound in (_bound(test, value) for test, value in tests) if bound), "")
    return posixpath.join(path, "*" + name)


def _tests(words: Sequence[Word]) -> list[tuple[str, str]]:
    """The tests every path reaching the end of `words` passed: (primary, its value). A word rein
    cannot read may be `-o` or `(`: then no test is certain."""
    found: list[tuple[str, str]] = []
    depth = 0
    negated = False
    index = 0
    while index < len(words):
        word = words[index]
        value = word.value
        index += 1
        if word.dynamic:
            return []
        takes = max(FIND_PRIMARIES.get(value, 0), 0)
        if value == "(":
            depth += 1
        elif value == ")":
            depth = max(depth - 1, 0)
        elif not depth and value in _CHAIN_ENDS:
            found = [test for test in found if test[0] == "-regextype"]
        elif not depth and value in _NOT:
            negated = True
            continue
        elif takes and index < len(words) and not depth and not negated and not words[index].dynamic:
            found.append((value, words[index].value))
        index += takes
        negated = False
    return found


def _mindepth(words: Sequence[Word]) -> int:
    """`-mindepth N`, a global option wherever it is written; 0 when none or unreadable."""
    for index, word in enumerate(words[:-1]):
        following = words[index + 1]
        if word.value == "-mindepth" and not following.dynamic and following.value.isdigit():
            return int(following.value)
    return 0


def _excludes(given: str, tests: list[tuple[str, str]]) -> bool:
    """Whether a test the start point must pass cannot match it (as written, `/tmp`, `.`, `~/x/`)."""
    if any(test == "-regextype" for test, _ in tests):
        return False
    trimmed = given.rstrip("/") or given[:1]
    base = posixpath.basename(trimmed) or trimmed
    for test, value in tests:
        if test == "-type" and "d" not in value.split(","):
            return True  # a root is a directory; removing a file of that name is no root's removal
        if test in _NAMES and _fails(test, value, base if test.endswith("name") else given):
            return True
    return False


def _fails(test: str, pattern: str, text: str) -> bool:
    """Whether `text` certainly does not match the test's pattern (False where rein cannot tell)."""
    if test.startswith("-i"):
        pattern, text = pattern.casefold(), text.casefold()
    if test.endswith("regex"):
        regex = _regex(pattern)
        return regex is not None and regex.fullmatch(text) is None
    if "\\" in pattern or "[^" in pattern:
        return False  # escapes and `[^...]` are read unlike Python's fnmatch
    return not fnmatchcase(text, pattern)


def _regex(pattern: str) -> re.Pattern[str] | None:
    """An emacs regex (find's default) as a Python one; None for what rein does not translate."""

    def swap(match: re.Match[str]) -> str:
        escaped = match[1]
        if escaped is None:
            return "\\" + match[0]
        if escaped in "(){}|":
            return escaped
        if escaped in "`'<>bBwWsS_=":
            raise ValueError(escaped)
        return re.escape(escaped)

    try:
        return re.compile(_EMACS.sub(swap, pattern), re.DOTALL)
    except (ValueError, re.error):
        return None


def _bound(test: str, pattern: str) -> str:
    """A `-name` pattern that bounds what a path below the start point is named, as fnmatch reads
    it (`-iname`'s letters in both cases): "" for one that matches every entry or every hidden one
    (`*`, `.*`), or that fnmatch would read otherwise than find."""
    if test not in ("-name", "-iname") or set(pattern) <= set(".*?") or any(c in pattern for c in "\\[/"):
        return ""
    if test == "-iname":
        return "".join(f"[{char.lower()}{char.upper()}]" if char.isalpha() else char for char in pattern)
    return pattern
