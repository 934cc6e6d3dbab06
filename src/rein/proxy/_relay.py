"""Hold back, check and release one response's stream.

The relay receives the codec's `Out`s in order, feeds their text to the rules (one eager manager per
lane), and releases a queue of them strictly in order: a piece of content only as far as its stream's
window allows (`HoldWindow.held` characters stay behind the stream's end until the stream ends), a tool
call only once it is complete, a structural event once all before it are out. A piece that is partly
safe is released in two parts. What the caller does on a match (cut and retry, end, pass) is its own;
the relay says whether the match reached text already released (`late`). With `calls`, it also hands
over each tool call once complete and before its release (`take_calls`), for steering to check.

Pure: no I/O; the clock is injected (for the added-latency figures).
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from rein.proxy._codec import Out
from rein.ttsr import HoldWindow, MatchContext, RuleMatch, Source, TtsrManager

ManagerFactory = Callable[[], TtsrManager]


@dataclass(frozen=True, slots=True)
class Fired:
    """An interrupting match, and the lane (reply) it fired in."""

    match: RuleMatch
    lane: int = 0


@dataclass(frozen=True, slots=True)
class Call:
    """A tool call complete and not yet released: its context (name, id), arguments and lane."""

    context: MatchContext
    arguments: str
    lane: int = 0


@dataclass(slots=True)
class _Stream:
    context: MatchContext | None
    window: HoldWindow | None
    lane: int
    length: int = 0
    line_start: int = 0
    released: int = 0
    final: bool = False
    parts: list[str] | None = None
    """A tool call's arguments so far, when the relay collects calls (`calls`)."""

    @property
    def source(self) -> Source | None:
        return self.context.source if self.context is not None else None

    def safe(self) -> int:
        """How much of the stream may be released now."""
        if self.final or self.source is None:
            return self.length
        if self.source == "tool":
            return 0
        if self.window is None:
            return self.length
        return self.length - self.window.held(self.length, self.line_start)


@dataclass(slots=True)
class _Pending:
    out: Out
    text: str
    start: int
    at: float


class Relay:
    """One response's hold-back queue. Not thread-safe; one per request."""

    def __init__(
        self,
        managers: ManagerFactory,
        windows: Mapping[Source, HoldWindow],
        *,
        clock: Callable[[], float] = time.perf_counter,
        calls: bool = False,
    ) -> None:
        self._factory = managers
        self._managers: dict[int, TtsrManager] = {}
        self._windows = windows
        self._clock = clock
        self._queue: deque[_Pending] = deque()
        self._streams: dict[str, _Stream] = {}
        self._by_match: dict[tuple[int, str], str] = {}
        self._shown: list[str] = []
        self.reminders: list[RuleMatch] = []
        """Matches that do not interrupt (`interruptMode`): recorded, never acted on by the proxy."""
        self.first_content_at: float | None = None
        self.first_release_at: float | None = None
        self.delays: list[float] = []
        """Seconds each released piece of checked content waited in the queue."""
        self.held_peak = 0
        """The most characters held after a release (what the client was kept from, at worst)."""
        self._held = 0
        self._collect = calls
        self.calls: list[Call] = []
        """With `calls`: the tool calls completed since the caller last took them (`take_calls`), in
        order; none of them is released yet (tool calls are released only whole, at the next release)."""

    def manager(self, lane: int = 0) -> TtsrManager:
        found = self._managers.get(lane)
        if found is None:
            found = self._managers[lane] = self._factory()
        return found

    def push(self, outs: Iterable[Out]) -> list[Fired]:
        """Queue and check the next pieces; returns the interrupting matches they caused (empty: go on)."""
        fired: list[Fired] = []
        now = self._clock()
        for out in outs:
            start = 0
            if out.stream is not None:
                stream = self._stream(out)
                start = stream.length
                stream.length += len(out.text)
                newline = out.text.rfind("\n")
                if newline >= 0:
                    stream.line_start = start + newline + 1
                if stream.parts is not None:
                    stream.parts.append(out.text)
                    if out.final and not stream.final:
                        self._completed(stream)
                stream.final = stream.final or out.final
                if out.context is not None and (out.text or out.final):
                    if self.first_content_at is None and out.text:
                        self.first_content_at = now
                    self._check(out.text, out.context, out.lane, out.final, fired)
            self._queue.append(_Pending(out, out.text, start, now))
            self._held += len(out.text)
        return fired

    def finish(self) -> list[Fired]:
        """The upstream stream ended: run the end-of-block check of every stream still open."""
        fired: list[Fired] = []
        for stream in self._streams.values():
            if not stream.final and stream.context is not None:
                self._check("", stream.context, stream.lane, True, fired)
            if not stream.final and stream.parts is not None:
                self._completed(stream)
            stream.final = True
        return fired

    def release(self) -> bytes:
        """Render every piece that is safe now, in order."""
        parts: list[bytes] = []
        now = self._clock()
        while self._queue:
            pending = self._queue[0]
            out = pending.out
            if out.stream is None:
                parts.append(out.render(""))
                self._queue.popleft()
                continue
            stream = self._streams[out.stream]
            safe = stream.safe()
            end = pending.start + len(pending.text)
            if (stream.source == "tool" and not stream.final) or (end > safe and pending.start >= safe):
                break
            take = len(pending.text) if end <= safe else safe - pending.start
            part = pending.text[:take]
            parts.append(out.render(part))
            stream.released = pending.start + take
            self._held -= take
            if part and out.context is not None:
                self.delays.append(now - pending.at)
                if self.first_release_at is None:
                    self.first_release_at = now
                if stream.source == "text":
                    self._shown.append(part)
            if take < len(pending.text):
                pending.text, pending.start = pending.text[take:], pending.start + take
                break
            self._queue.popleft()
        self.held_peak = max(self.held_peak, self._held)
        return b"".join(parts)

    def late(self, fired: Fired) -> bool:
        """Whether the match starts in text the client already received."""
        match = fired.match
        key = self._by_match.get((fired.lane, _match_key(match.source, match.tool_call_id, match.tool_name)))
        stream = self._streams.get(key) if key is not None else None
        return stream is not None and match.offset < stream.released

    def cut(self) -> None:
        """Drop everything not yet released and start the next attempt's streams from nothing. Every
        rule may fire again on the next attempt (the repeat policy spans requests, not attempts)."""
        for manager in self._managers.values():
            manager.reset()
        self._queue.clear()
        self._held = 0
        self._streams.clear()
        self._by_match.clear()
        self.calls.clear()

    def take_calls(self) -> list[Call]:
        """The tool calls completed since the last take (see `calls`)."""
        taken, self.calls = self.calls, []
        return taken

    def shown(self) -> str:
        """The prose the client has received, over every attempt."""
        return "".join(self._shown)

    def held(self) -> int:
        """Characters of content received and not yet released."""
        return self._held

    def _stream(self, out: Out) -> _Stream:
        key = out.stream or ""
        stream = self._streams.get(key)
        if stream is None:
            window = self._windows.get(out.context.source) if out.context is not None else None
            stream = self._streams[key] = _Stream(out.context, window, out.lane)
            if self._collect and stream.source == "tool":
                stream.parts = []
        if out.context is not None:
            found = _match_key(out.context.source, out.context.tool_call_id, out.context.tool_name)
            self._by_match[(out.lane, found)] = key
        return stream

    def _completed(self, stream: _Stream) -> None:
        if stream.context is not None and stream.parts is not None:
            self.calls.append(Call(stream.context, "".join(stream.parts), stream.lane))

    def _check(self, text: str, context: MatchContext, lane: int, final: bool, fired: list[Fired]) -> None:
        for match in self.manager(lane).check_delta(text, context, final=final):
            if match.interrupt:
                fired.append(Fired(match, lane))
            else:
                self.reminders.append(match)


def _match_key(source: Source, tool_call_id: str | None, tool_name: str | None) -> str:
    return source if source != "tool" else f"tool:{tool_call_id or tool_name or ''}"
