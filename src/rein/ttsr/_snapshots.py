"""What a growing snapshot would add at its end: the snapshot path's stand-in for closing the stream.

`TtsrManager.check_snapshot` reads every snapshot as a finished block, yet keeps one stream open across
the snapshots of a stream that only grows, feeding each new suffix once. Closing that stream would end it,
so what the close would report is found another way (`TailPlan.peek`):

- the open `regex` checks are searched as if the text ended here (`StreamMatcher.peek`);
- hyperscan reports a match that ends on an assertion (`$`, `\\b`, `\\Z`, a lookahead) at the very end of
  the text only when the stream closes. A short-lived stream scans a tail of the text as long as the
  longest such match (`line` extent and unbounded: the last line; `accumulated` and unbounded: `WINDOW`
  bytes) and closes; each rule it reports is confirmed on the kept text with `regex` (a tail that starts
  past the text's start could see `^` or `\\b` where the whole text has none).

So a snapshot costs its new suffix plus a bounded tail, not its whole length.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable, Container, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Generic, Protocol, TypeVar, cast

from rein.ttsr._fallback import WINDOW
from rein.ttsr._hyperscan import HyperscanFailure
from rein.ttsr._matcher import Hit, IssueHandler, StreamMatcher
from rein.ttsr._plan import SourcePlan
from rein.ttsr._values import MatchContext
from rein.ttsr._window import longest_match

KEPT_SCANS = 16
"""Snapshot scans a manager keeps at once (the least recently used is dropped; its next snapshot starts
over)."""
PIECE = 1024
"""Characters fed to a kept scan at a time: its chunks stay small, so its bounded reads stay bounded."""
KEEP = WINDOW + 1024
"""Bytes of a kept scan's text kept at hand for the tail scan (the longest tail is `WINDOW` bytes)."""

_Item = tuple[object, object]
_S = TypeVar("_S")
_Issues = tuple[set[int], IssueHandler]
"""The manager's switched-off condition keys and its issue handler, shared by the tail scans."""


class _Parsed(Protocol):
    data: list[_Item]


class _Parser(Protocol):
    def parse(self, pattern: str, flags: int = 0) -> _Parsed: ...


# The stdlib's regex parser gives the pattern's tree; it has no public name (typeshed omits it).
_SRE: _Parser = cast(_Parser, importlib.import_module("re._parser"))
_ASSERTIONS = frozenset({"AT", "ASSERT", "ASSERT_NOT"})
_CONSUMING = frozenset({"LITERAL", "NOT_LITERAL", "IN", "ANY", "RANGE", "CATEGORY"})
_REPEATS = frozenset({"MAX_REPEAT", "MIN_REPEAT", "POSSESSIVE_REPEAT"})


@functools.lru_cache(maxsize=8192)
def ends_on_assertion(pattern: str) -> bool:
    """Whether a match of `pattern` can end on a zero-width assertion (`$`, `\\b`, `\\Z`, a lookahead):
    then whether it matches at the text's end depends on what follows. True when the pattern does not
    parse as Python syntax (the safe answer)."""
    try:
        tail = _tail(_SRE.parse(pattern).data)
    except Exception:  # syntax only the `regex` module reads (`\\p{L}`, `\\K`), or a tree not foreseen
        return True
    return tail is None or tail


def _tail(items: Iterable[_Item]) -> bool | None:
    """True: can end on an assertion. False: always ends on a consumed character. None: may be empty."""
    for op, arg in reversed(list(items)):
        name = str(op)
        if name in _ASSERTIONS:
            return True
        if name in _CONSUMING:
            return False
        result: bool | None
        if name == "SUBPATTERN":
            result = _tail(cast(_Parsed, cast(tuple[object, ...], arg)[-1]).data)
        elif name == "ATOMIC_GROUP":
            result = _tail(cast(_Parsed, arg).data)
        elif name in _REPEATS:
            low, _high, body = cast(tuple[int, int, _Parsed], arg)
            result = _tail(body.data)
            if result is False and low == 0:
                result = None
        elif name == "BRANCH":
            results = [_tail(branch.data) for branch in cast(tuple[object, list[_Parsed]], arg)[1]]
            result = True if True in results else (None if None in results else False)
        else:  # a back reference, a conditional: unknown, so assume the worst
            return True
        if result is not None:
            return result
    return None


@dataclass(frozen=True, slots=True)
class TailPlan:
    """How far back a source's end-of-text matches can start, and the plan of the stream that scans it."""

    plan: SourcePlan
    watched: frozenset[int]
    """Keys of the conditions that can end on an assertion: the only ones the tail stream reports."""
    span: int
    """Bytes of tail the bounded ones need (longest match, a character before and a final newline)."""
    line: bool
    """An unbounded `line` condition: the tail reaches back to the last line's start."""
    window: bool
    """An unbounded `accumulated` condition: the tail is `WINDOW` bytes."""
    rules: frozenset[int]
    """The rules of the `watched` conditions: once all are reported, no tail is scanned."""

    @classmethod
    def build(cls, plan: SourcePlan) -> TailPlan:
        watched: set[int] = set()
        span, line, window = 0, False, False
        for condition in plan.stream_ids:
            if not ends_on_assertion(condition.condition.pattern):
                continue
            watched.add(condition.key)
            longest = longest_match(condition.condition.pattern)
            if longest is None or 4 * (longest + 2) > WINDOW:
                line, window = line or condition.extent == "line", window or condition.extent != "line"
            else:
                span = max(span, 4 * (longest + 2))
        rules = frozenset(c.rule_index for c in plan.stream_ids if c.key in watched)
        return cls(plan, frozenset(watched), span, line, window, rules)

    def peek(self, kept: StreamMatcher, tail: bytes, skip: Container[int], issues: _Issues) -> list[Hit]:
        """The hits closing `kept` would add now, for rules not in `skip` (rule indexes). `tail` is the
        end of `kept`'s text, at least `KEEP` bytes of it (all of a shorter text)."""
        found = [hit for hit in kept.peek() if hit.condition.rule_index not in skip]
        database = self.plan.stream_db
        if database is None or all(i in skip for i in self.rules):
            return found
        size, base = kept.text.size, kept.text.size - len(tail)
        begin = size - WINDOW if self.window else size - self.span
        if self.line:
            newline = tail.rfind(b"\n", max(0, len(tail) - WINDOW))
            begin = min(begin, base + newline + 1 if newline >= 0 else size - WINDOW)
        data = tail[max(0, begin - base) :]
        # Start on a character: drop UTF-8 continuation bytes the cut left at the front.
        lead = next((i for i, byte in enumerate(data) if byte & 0xC0 != 0x80), len(data))
        begin, data = size - len(data) + lead, data[lead:]
        ends: dict[int, int] = {}

        def on_match(ident: int, _start: int, end: int, _flags: int, _context: object) -> None:
            ends.setdefault(ident, end)

        try:
            stream = database.open_stream(on_match)
            stream.scan(data)
            stream.close()
        except HyperscanFailure as error:  # pragma: no cover - needs a binding failure mid-scan
            issues[1](None, f"hyperscan failed scanning a snapshot's end: {error}")
        taken = {hit.condition.rule_index for hit in found}
        for ident, end in ends.items():
            condition = self.plan.stream_ids[ident]
            index = condition.rule_index
            if (
                condition.key not in self.watched
                or condition.key in issues[0]
                or index in taken
                or index in skip
            ):
                continue
            exact = begin == 0 and not condition.confirm
            confirmed = Hit(condition, end) if exact else kept.confirm_at(condition, begin + end)
            if confirmed is not None:
                taken.add(index)
                found.append(confirmed)
        return found


@dataclass(slots=True)
class Kept(Generic[_S]):
    """The kept scan of one stream's snapshots: the last text, its last `KEEP` bytes as scanned, and each
    rule's first hit so far. `stream` is the caller's stream around `matcher`."""

    stream: _S
    matcher: StreamMatcher
    context: MatchContext
    text: str = ""
    tail: bytes = b""
    seen: dict[int, Hit] = field(default_factory=dict)

    def continues(self, text: str, context: MatchContext) -> bool:
        """Whether `text` extends this scan's text in the same context."""
        return context == self.context and text.startswith(self.text)

    def extend(self, text: str, feed: Callable[[str], list[Hit]]) -> None:
        """Feed what `text` adds to the scanned text through `feed`, in pieces of at most `PIECE`."""
        scanned = self.matcher.text
        for piece in pieces(text[len(self.text) :], PIECE):
            size = scanned.size
            hits = feed(piece)
            if scanned.size > size:
                self.tail = (self.tail + scanned.chunks[-1])[-KEEP:]
            for hit in hits:
                self.seen.setdefault(hit.condition.rule_index, hit)
        self.text = text


class Skip:
    """The rules a snapshot need not look for: those it already has a hit for, and those reported."""

    __slots__ = ("_names", "_reported", "_seen")

    def __init__(self, seen: Container[int], names: Sequence[str], reported: Container[str]) -> None:
        self._seen, self._names, self._reported = seen, names, reported

    def __contains__(self, index: object) -> bool:
        return index in self._seen or (isinstance(index, int) and self._names[index] in self._reported)


def pieces(text: str, size: int) -> Iterable[str]:
    """`text` cut into pieces of at most `size` characters."""
    return (text[i : i + size] for i in range(0, len(text), size))
