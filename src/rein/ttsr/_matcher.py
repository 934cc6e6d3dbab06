"""Match one stream (a text block, a thinking block, or one tool call's decoded arguments) incrementally.

Each delta is encoded once and scanned once by the source's hyperscan streaming database, so a match that
spans two deltas is found and the cost per delta does not grow with the reply or (much) with the rule
count. `finish` closes the stream, which delivers end-of-data matches (`$`, a trailing `\\b`), and gives
every open check its last chance.

A condition that needs `regex` (a prefilter or gate hit, a newline-crossing `line` hit, a regex-only
condition) gets a check: its line, or a window of at most `WINDOW` bytes before the current end, is
searched until it matches or can no longer match there. The first `FREE_TRIES` searches follow every new
candidate at once; after that, a check that keeps failing waits for a completed line or for `MIN_STEP` to
`MAX_STEP` more bytes (doubling), so a condition whose candidates are everywhere costs one bounded search
per few hundred bytes, not one per delta. An `eager` matcher (the proxy's, which must know at once
whether held text may be released) searches every open check on every delta instead.

A matcher reports each rule at most once. It never raises: a condition whose `regex` times out is added
to the shared `disabled` set and reported through `on_issue`.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import ParamSpec, TypeVar

from rein.ttsr._fallback import WINDOW, RegexTimeout, StreamText, byte_offset, check_lines, settled
from rein.ttsr._hyperscan import HyperscanFailure, Stream
from rein.ttsr._plan import PlannedCondition, SourcePlan

IssueHandler = Callable[[PlannedCondition | None, str], None]
_P = ParamSpec("_P")
_T = TypeVar("_T")

MIN_STEP = 32
MAX_STEP = 256
"""Bytes between two searches of a check that keeps failing on unfinished text (it doubles up to this)."""
FREE_TRIES = 4
"""Searches a check may make before backing off: until then, every new candidate is searched at once."""


@dataclass(frozen=True, slots=True)
class Hit:
    """A confirmed match of one condition: byte offsets in the stream (`start` None when unknown)."""

    condition: PlannedCondition
    end: int
    start: int | None = None
    chunk_start: int = 0


class _Check:
    """An open `regex` check of one condition in this stream."""

    __slots__ = ("anchor", "checked", "condition", "due", "idle", "last", "permanent", "step", "tries")

    def __init__(self, condition: PlannedCondition, anchor: int, *, permanent: bool = False) -> None:
        self.condition = condition
        self.anchor = anchor
        """`line`: a byte of the first line not yet known clean. Else: the earliest unsettled end."""
        self.last = anchor
        """The latest candidate end (transient checks of `accumulated` conditions end after it)."""
        self.permanent = permanent
        """A regex-only condition without a gate: checked for the whole stream."""
        self.idle = False
        """A transient check with nothing left to search; kept so its backoff outlives it."""
        self.due = 0
        self.step = 0
        self.checked = -1
        self.tries = 0


class StreamMatcher:
    __slots__ = (
        "_block_hits",
        "_block_on_match",
        "_block_scratch",
        "_checks",
        "_disabled",
        "_done",
        "_eager",
        "_last_newline",
        "_on_issue",
        "_plan",
        "_raw",
        "_stream",
        "_stream_on_match",
        "text",
    )

    def __init__(
        self, plan: SourcePlan, disabled: set[int], on_issue: IssueHandler, *, eager: bool = False
    ) -> None:
        self._plan = plan
        self._eager = eager
        self._disabled = disabled
        self._on_issue = on_issue
        self.text = StreamText()
        self._done: set[int] = set()
        self._checks = {c.key: _Check(c, 0, permanent=True) for c in plan.stream_fallbacks}
        self._last_newline = -1
        raw: list[tuple[int, int]] = []
        block_hits: list[tuple[int, int]] = []
        self._raw = raw
        self._block_hits = block_hits

        def on_stream_match(ident: int, _start: int, end: int, _flags: int, _context: object) -> None:
            raw.append((ident, end))

        def on_block_match(ident: int, _start: int, end: int, _flags: int, _context: object) -> None:
            block_hits.append((ident, end))

        # The binding borrows its callback: these attributes keep them alive as long as the streams.
        self._stream_on_match = on_stream_match
        self._block_on_match = on_block_match
        self._stream: Stream | None = None
        if plan.stream_db is not None:
            self._stream = plan.stream_db.open_stream(on_stream_match)
        self._block_scratch = plan.block_db.new_scratch() if plan.block_db is not None else None

    def feed(self, delta: str) -> list[Hit]:
        """Scan the next piece of the stream; returns the conditions it confirmed, one per rule."""
        data = delta.encode("utf-8", "replace")
        if not data:
            return []
        start = self.text.size
        self.text.append(data)
        if self._stream is not None:
            try:
                self._stream.scan(data)
            except HyperscanFailure as error:
                self._stream = None
                self._on_issue(None, f"hyperscan stopped scanning this stream: {error}")
        found: list[Hit] = []
        if self._raw:
            self._take_stream_hits(found)
        if self._block_scratch is not None:
            self._scan_block(data, delta, start, found)
        if self._checks:
            newline = data.rfind(b"\n")
            if newline >= 0:
                self._last_newline = start + newline
            self._run_checks(found, complete=False)
        if self._plan.chunk_fallbacks:
            self._chunk_fallbacks(delta, start, found)
        return found

    def finish(self) -> list[Hit]:
        """End of the block: close the stream (end-of-data matches), settle every open check."""
        found: list[Hit] = []
        if self._stream is not None:
            try:
                self._stream.close()
            except HyperscanFailure as error:
                self._on_issue(None, f"hyperscan failed closing a stream: {error}")
            self._stream = None
            self._take_stream_hits(found)
        if self._checks:
            self._run_checks(found, complete=True)
        return found

    def close(self) -> None:
        """Drop the stream without reporting (an aborted or reset turn). Safe to call twice."""
        if self._stream is not None:
            stream, self._stream = self._stream, None
            with contextlib.suppress(HyperscanFailure):
                stream.close(report=False)

    def _confirmed(
        self, condition: PlannedCondition, end: int, start: int | None = None, chunk: int = 0
    ) -> Hit:
        self._done.add(condition.rule_index)
        self._checks.pop(condition.key, None)
        return Hit(condition, end, start, chunk)

    def _live(self, condition: PlannedCondition) -> bool:
        return condition.rule_index not in self._done and condition.key not in self._disabled

    def _take_stream_hits(self, found: list[Hit]) -> None:
        hits = self._raw[:]
        self._raw.clear()
        ids = self._plan.stream_ids
        for ident, end in hits:
            condition = ids[ident]
            if not self._live(condition):
                continue
            if not condition.confirm:
                found.append(self._confirmed(condition, end))
                continue
            check = self._checks.get(condition.key)
            if check is None:
                self._checks[condition.key] = _Check(condition, end - 1)
            else:
                if check.idle:
                    check.idle, check.anchor = False, end - 1
                check.last = max(check.last, end)
                if check.tries < FREE_TRIES:
                    check.due = 0

    def _scan_block(self, data: bytes, delta: str, start: int, found: list[Hit]) -> None:
        assert self._plan.block_db is not None and self._block_scratch is not None
        self._block_hits.clear()
        try:
            self._plan.block_db.scan_block(data, self._block_on_match, self._block_scratch)
        except HyperscanFailure as error:  # pragma: no cover - needs a binding failure mid-scan
            self._on_issue(None, f"hyperscan failed scanning a chunk: {error}")
            return
        for ident, end in self._block_hits:
            condition = self._plan.block_ids[ident]
            if not self._live(condition):
                continue
            if not condition.confirm:
                found.append(self._confirmed(condition, start + end, chunk=start))
                continue
            self._chunk_check(condition, delta, start, found)

    def _chunk_fallbacks(self, delta: str, start: int, found: list[Hit]) -> None:
        for condition in self._plan.chunk_fallbacks:
            if self._live(condition):
                self._chunk_check(condition, delta, start, found)

    def _chunk_check(self, condition: PlannedCondition, delta: str, start: int, found: list[Hit]) -> None:
        span = self._guarded(condition, settled, condition.regex, delta, complete=True, margin=1)
        if span is not None:
            hit_start = start + byte_offset(delta, span[0])
            found.append(self._confirmed(condition, start + byte_offset(delta, span[1]), hit_start, start))

    def _run_checks(self, found: list[Hit], *, complete: bool) -> None:
        size = self.text.size
        for key, check in list(self._checks.items()):
            condition = check.condition
            if not self._live(condition):
                del self._checks[key]
                continue
            if check.idle:
                continue
            by_line = condition.extent == "line" or check.permanent
            line_done = by_line and self._last_newline >= check.checked
            if not (complete or self._eager or size >= check.due or line_done):
                continue
            hit = self._search(check, complete)
            if hit is not None:
                found.append(hit)
                continue
            check.checked = size
            check.tries += 1
            check.step = min(MAX_STEP, max(MIN_STEP, check.step * 2))
            check.due = size + check.step
            if condition.extent != "line":
                settled_end = size - 4 * condition.margin
                check.anchor = max(check.anchor, settled_end)
                if not check.permanent and (complete or settled_end >= check.last):
                    check.idle = True
            elif check.anchor < 0 or complete:
                if check.permanent and not complete:
                    check.anchor = size
                else:
                    check.idle = True

    def peek(self) -> list[Hit]:
        """What `finish` would confirm from the open checks now, as if the text ended here, without closing
        the stream or changing any check (a growing snapshot reads each of its states as finished)."""
        found: list[Hit] = []
        for check in self._checks.values():
            if check.idle or not self._live(check.condition):
                continue
            span, _ = self._find(check, complete=True)
            if span is not None:
                found.append(Hit(check.condition, span[1], span[0]))
        return found

    def confirm_at(self, condition: PlannedCondition, end: int) -> Hit | None:
        """Confirm a candidate of `condition` ending at byte `end` with `regex`, as if the text ended here
        (its line, or the window before it). Changes nothing."""
        span, _ = self._find(_Check(condition, max(0, end - 1)), complete=True)
        return None if span is None else Hit(condition, span[1], span[0])

    def _search(self, check: _Check, complete: bool) -> Hit | None:
        """Search the check's line(s) or window once; on failure, moves a `line` check's anchor."""
        span, anchor = self._find(check, complete)
        if span is None:
            if anchor is not None:
                check.anchor = anchor
            return None
        return self._confirmed(check.condition, span[1], span[0])

    def _find(self, check: _Check, complete: bool) -> tuple[tuple[int, int] | None, int | None]:
        """The byte span of the check's first match that counts, else None and the `line` check's new
        anchor (None: unchanged)."""
        condition, size = check.condition, self.text.size
        if condition.extent == "line":
            begin = max(self.text.line_start(check.anchor), self.text.floor(size - WINDOW))
            text = self.text.decode(begin)
            result = self._guarded(
                condition, check_lines, condition.regex, text, complete=complete, margin=condition.margin
            )
            if result is None:
                return None, -1
            span, unfinished = result
            if span is not None:
                return (begin + byte_offset(text, span[0]), begin + byte_offset(text, span[1])), None
            return None, -1 if unfinished is None else begin + byte_offset(text, unfinished)
        begin = self.text.floor(max(0, check.anchor - WINDOW))
        text = self.text.decode(begin)
        # Past the stream start, skip the window's first character so `^`/`\A` cannot match there.
        pos = 1 if begin else 0
        span = self._guarded(
            condition, settled, condition.regex, text, pos=pos, complete=complete, margin=condition.margin
        )
        if span is None:
            return None, None
        return (begin + byte_offset(text, span[0]), begin + byte_offset(text, span[1])), None

    def _guarded(
        self, condition: PlannedCondition, check: Callable[_P, _T], *args: _P.args, **kwargs: _P.kwargs
    ) -> _T | None:
        try:
            return check(*args, **kwargs)
        except RegexTimeout:
            self._disabled.add(condition.key)
            message = (
                f"regex search ran past the time limit; condition {condition.condition.written!r} is off"
            )
            self._on_issue(condition, message)
            return None

    def locate(self, hit: Hit, text: str) -> tuple[int, int]:
        """Character offsets (start, end) of `hit` in `text` (this stream's whole decoded text)."""
        data = text.encode("utf-8", "replace")
        end = len(data[: hit.end].decode("utf-8", "replace"))
        if hit.start is not None:
            return len(data[: hit.start].decode("utf-8", "replace")), end
        condition = hit.condition
        if condition.extent == "line":
            begin = text.rfind("\n", 0, max(0, end - 1)) + 1
        elif condition.extent == "chunk":
            begin = len(data[: hit.chunk_start].decode("utf-8", "replace"))
        else:
            begin = max(0, end - WINDOW)
        best: int | None = None
        try:
            for found in condition.regex.finditer(text, begin, end, timeout=0.05):
                best = found.start()
                if found.end() == end:
                    break
        except TimeoutError:
            best = None
        return (best if best is not None else end), end
