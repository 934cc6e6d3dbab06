"""Per-session event fan-out for the web page: every event gets the session's next sequence number;
the newest `KEEP` are kept so a page that reconnects with `?after=<seq>` misses nothing.

    bus = buses.of(owner, session_id)
    bus.publish({"type": "run", "state": "running"})       # never blocks, never raises
    return sse_response(bus, after)                        # text/event-stream, `id:` per event

A subscriber is an unbounded queue: publishing happens on the run's hot path and must not wait for a
slow browser; a page that falls behind by more than `KEEP` events refetches the conversation anyway.
"""

from __future__ import annotations

import asyncio
import json
from collections import deque
from collections.abc import AsyncIterator, Mapping

from starlette.responses import StreamingResponse

from rein.ai import JsonValue

KEEP = 1000
"""Events kept per session for `?after=` replay."""
KEEP_ALIVE_SECONDS = 15.0
KEEP_ALIVE = ": keep-alive\n\n"
Event = dict[str, JsonValue]
CLOSED: tuple[int, Event] = (-1, {})
"""Put in a subscriber's queue when the server stops: its stream ends."""


class EventBus:
    """One session's events; every method is synchronous."""

    def __init__(self, keep: int = KEEP) -> None:
        self.seq = 0
        self._kept: deque[tuple[int, Event]] = deque(maxlen=keep)
        self._queues: set[asyncio.Queue[tuple[int, Event]]] = set()

    def publish(self, event: Event) -> int:
        """Number `event`, keep it and hand it to every subscriber; returns its sequence number."""
        self.seq += 1
        item = (self.seq, event)
        self._kept.append(item)
        for queue in self._queues:
            queue.put_nowait(item)
        return self.seq

    def replay(self, after: int) -> list[tuple[int, Event]]:
        """The kept events numbered above `after`, oldest first. An `after` beyond the newest number
        was counted by an earlier server process (numbers restart with it): every kept event is new."""
        if after > self.seq:
            after = 0
        return [item for item in self._kept if item[0] > after]

    def attach(self, after: int) -> tuple[asyncio.Queue[tuple[int, Event]], list[tuple[int, Event]]]:
        """A queue of every event published from now on, and the kept events after `after` (the
        queue is registered first: nothing published in between is lost). `detach` it when done."""
        queue: asyncio.Queue[tuple[int, Event]] = asyncio.Queue()
        self._queues.add(queue)
        return queue, self.replay(after)

    def detach(self, queue: asyncio.Queue[tuple[int, Event]]) -> None:
        self._queues.discard(queue)

    def close(self) -> None:
        """End the streams reading this bus (`CLOSED` in each queue)."""
        for queue in self._queues:
            queue.put_nowait(CLOSED)


class Buses:
    """The buses of every session this process has published for, by (owner, session id)."""

    def __init__(self) -> None:
        self._buses: dict[tuple[str, str], EventBus] = {}
        self.closed = False

    def of(self, owner: str, session_id: str) -> EventBus:
        return self._buses.setdefault((owner, session_id), EventBus())

    def close(self) -> None:
        """End every event stream (the server is stopping: it waits for open responses to end)."""
        self.closed = True
        for bus in self._buses.values():
            bus.close()

    def publish(self, owner: str, session_id: str, event: Mapping[str, JsonValue]) -> None:
        self.of(owner, session_id).publish(dict(event))

    def seq(self, owner: str, session_id: str) -> int:
        """The newest event number of the session (0 before any): where a page's first stream starts."""
        bus = self._buses.get((owner, session_id))
        return bus.seq if bus is not None else 0


def frame(seq: int, event: Event) -> str:
    return f"id: {seq}\ndata: {json.dumps(event, ensure_ascii=False)}\n\n"


async def _stream(bus: EventBus, after: int, keep_alive: float) -> AsyncIterator[str]:
    queue, kept = bus.attach(after)
    try:
        yield KEEP_ALIVE
        last = after
        for seq, event in kept:
            last = seq
            yield frame(seq, event)
        while True:
            try:
                seq, event = await asyncio.wait_for(queue.get(), keep_alive)
            except TimeoutError:
                yield KEEP_ALIVE
                continue
            if seq == CLOSED[0]:
                return
            if seq > last:  # already replayed from `kept` otherwise
                last = seq
                yield frame(seq, event)
    finally:
        bus.detach(queue)


def sse_response(bus: EventBus, after: int, keep_alive: float = KEEP_ALIVE_SECONDS) -> StreamingResponse:
    """The session's events after `after` as `text/event-stream`, a keep-alive comment first and
    every `keep_alive` seconds of quiet."""
    return StreamingResponse(
        _stream(bus, after, keep_alive),
        media_type="text/event-stream",
        headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
    )


_PROXY_SOURCES = {"text_delta": "text", "thinking_delta": "thinking", "toolcall_delta": "tool"}


def mirror(buses: Buses | None, owner: str, session_id: str, event: Mapping[str, JsonValue] | None) -> None:
    """Publish a `/api/stream` run's proxy event on the session's bus, as a `delta` (its text, thinking
    and tool-call deltas; the rest the page learns by refetching)."""
    if buses is None or event is None:
        return
    source = _PROXY_SOURCES.get(str(event.get("type")))
    delta = event.get("delta")
    if source is not None and isinstance(delta, str) and delta:
        buses.publish(owner, session_id, {"type": "delta", "source": source, "text": delta})
