"""Read a server-sent-events byte stream into `SseEvent`s, incrementally (bytes arrive in any split)."""

from __future__ import annotations

from rein.proxy._codec import SseEvent


class SseParser:
    """Feed bytes, get the events completed by them. Comments and `id:`/`retry:` fields are dropped (no
    API the proxy serves uses them); an event with no `data:` line is dropped, as browsers do."""

    __slots__ = ("_buffer", "_data", "_event")

    def __init__(self) -> None:
        self._buffer = b""
        self._data: list[str] = []
        self._event: str | None = None

    def feed(self, chunk: bytes) -> list[SseEvent]:
        lines = (self._buffer + chunk).split(b"\n")
        self._buffer = lines.pop()
        out: list[SseEvent] = []
        for raw in lines:
            self._line(raw.removesuffix(b"\r").decode("utf-8", "replace"), out)
        return out

    def close(self) -> list[SseEvent]:
        """The end of the stream: a last event not followed by a blank line still counts."""
        out: list[SseEvent] = []
        if self._buffer:
            self._line(self._buffer.removesuffix(b"\r").decode("utf-8", "replace"), out)
            self._buffer = b""
        self._line("", out)
        return out

    def _line(self, line: str, out: list[SseEvent]) -> None:
        if not line:
            if self._data:
                out.append(SseEvent("\n".join(self._data), self._event))
            self._data, self._event = [], None
            return
        name, _, value = line.partition(":")
        value = value.removeprefix(" ")
        if name == "data":
            self._data.append(value)
        elif name == "event":
            self._event = value
