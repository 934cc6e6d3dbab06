"""The one wrapper around the hyperscan binding (hyperscan==0.9.1, Vectorscan 5.4). Nothing else imports it.

The binding crashes the process, rather than raising, on several paths; this module is where they are kept
out of reach, and `tests/ttsr/test_hyperscan.py` exercises each one:

- A stream holds only borrowed references to its match callback, its context object and its database.
  `Stream` keeps all three alive for its whole life.
- `hyperscan.Stream(...)` built directly segfaults on its first match (its context pointer is never set);
  only `Database.stream()` gives a working stream. That path leaks one reference, so every stream object
  (~100 bytes) lives until the process ends: acceptable at one stream per text block or tool call.
- Scanning or closing a closed stream is a use-after-free. `Stream` tracks its state; scan and close on a
  closed stream do nothing.
- `Stream.size()` (and `len()`, `bool()` on a stream) segfaults: never called, and `Stream` never tests
  the binding's stream for truth.
- `Stream.close(scratch=...)` swaps the arguments of its type check and crashes: close always uses the
  database's own scratch, under a lock, while scans use a scratch per stream so that streams of one
  cached database can be scanned from several threads.
- A callback that raises or returns a true value stops the scan and the stream for good. The matcher's
  callback only appends to a list and returns None.
- A multi-pattern compile stops at the first bad pattern and names it by id only, so every expression is
  validated alone first (`compile_error`, cached).
"""

from __future__ import annotations

import contextlib
import functools
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final, Literal

import hyperscan

CASELESS: Final = hyperscan.HS_FLAG_CASELESS
MULTILINE: Final = hyperscan.HS_FLAG_MULTILINE
DOTALL: Final = hyperscan.HS_FLAG_DOTALL
UTF8: Final = hyperscan.HS_FLAG_UTF8
SINGLEMATCH: Final = hyperscan.HS_FLAG_SINGLEMATCH
PREFILTER: Final = hyperscan.HS_FLAG_PREFILTER

Mode = Literal["stream", "block"]
MatchHandler = Callable[[int, int, int, int, object], None]
"""Called with (expression id, start offset (always 0: no SOM), end offset in bytes, flags, context)."""

_MODES: Final = {"stream": hyperscan.HS_MODE_STREAM, "block": hyperscan.HS_MODE_BLOCK}
_CLOSE_LOCK = threading.Lock()


class HyperscanFailure(Exception):
    """hyperscan refused an operation; the message is hyperscan's."""


@dataclass(frozen=True, slots=True)
class Expression:
    """One pattern to compile, with its hyperscan flags. Its id is its index in the database."""

    pattern: str
    flags: int


def flags_for(rule_flags: str) -> int:
    """hyperscan flags for a rule's `i`/`m`/`s` letters, plus UTF-8 (free, and offsets stay exact)."""
    value = UTF8
    if "i" in rule_flags:
        value |= CASELESS
    if "m" in rule_flags:
        value |= MULTILINE
    if "s" in rule_flags:
        value |= DOTALL
    return value


@functools.lru_cache(maxsize=8192)
def compile_error(pattern: str, flags: int) -> str | None:
    """Compile one expression alone in streaming mode: None if it compiles, else hyperscan's message."""
    database = hyperscan.Database(mode=hyperscan.HS_MODE_STREAM)
    try:
        database.compile(expressions=[pattern.encode("utf-8")], ids=[0], flags=[flags])
    except hyperscan.error as error:
        return str(error) or type(error).__name__
    return None


class Database:
    """A compiled, immutable set of expressions. Build it with `compile_database` (cached)."""

    __slots__ = ("_db", "mode")

    def __init__(self, expressions: Sequence[Expression], mode: Mode) -> None:
        if not expressions:
            raise HyperscanFailure("a database needs at least one expression")
        self.mode: Mode = mode
        self._db = hyperscan.Database(mode=_MODES[mode])
        try:
            self._db.compile(
                expressions=[e.pattern.encode("utf-8") for e in expressions],
                ids=list(range(len(expressions))),
                flags=[e.flags for e in expressions],
            )
        except hyperscan.error as error:
            raise HyperscanFailure(str(error) or type(error).__name__) from None

    def new_scratch(self) -> hyperscan.Scratch:
        return self._db.scratch.clone()

    def open_stream(self, on_match: MatchHandler) -> Stream:
        """A new open stream (streaming databases only)."""
        if self.mode != "stream":
            raise HyperscanFailure("open_stream needs a streaming database")
        return Stream(self, on_match)

    def scan_block(self, data: bytes, on_match: MatchHandler, scratch: hyperscan.Scratch) -> None:
        """Scan one whole block (block databases only). `on_match` must not raise."""
        try:
            self._db.scan(data, match_event_handler=on_match, context=None, scratch=scratch)
        except hyperscan.error as error:
            raise HyperscanFailure(str(error) or type(error).__name__) from None

    def _binding_stream(self, on_match: MatchHandler) -> hyperscan.Stream:
        stream = self._db.stream(match_event_handler=on_match, context=None)
        stream.__enter__()
        return stream


class Stream:
    """One open hyperscan stream. Keeps its callback and database alive; safe to close twice."""

    __slots__ = ("_database", "_on_match", "_scratch", "_stream")

    def __init__(self, database: Database, on_match: MatchHandler) -> None:
        self._database = database
        self._on_match = on_match
        self._scratch = database.new_scratch()
        self._stream: hyperscan.Stream | None = database._binding_stream(on_match)

    @property
    def closed(self) -> bool:
        return self._stream is None

    def scan(self, data: bytes) -> None:
        """Scan the next bytes of the stream; matches go to the callback. No-op once closed."""
        stream = self._stream
        if stream is None:
            return
        try:
            stream.scan(data, 0, self._scratch)
        except hyperscan.error as error:
            with contextlib.suppress(HyperscanFailure):
                self.close(report=False)
            raise HyperscanFailure(str(error) or type(error).__name__) from None

    def close(self, *, report: bool = True) -> None:
        """Close the stream; with `report`, end-of-data matches (`$`, a trailing `\\b`) reach the callback
        first. Closing twice does nothing."""
        stream = self._stream
        if stream is None:
            return
        self._stream = None
        with _CLOSE_LOCK:
            try:
                if report:
                    stream.close()
                else:
                    stream.close(match_event_handler=_ignore)
            except hyperscan.error as error:
                raise HyperscanFailure(str(error) or type(error).__name__) from None


def _ignore(_id: int, _start: int, _end: int, _flags: int, _context: object) -> None:
    return None


@functools.lru_cache(maxsize=32)
def compile_database(expressions: tuple[Expression, ...], mode: Mode) -> Database:
    """Compile once per distinct expression set and mode; later calls with an equal set reuse it."""
    return Database(expressions, mode)
