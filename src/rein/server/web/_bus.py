"""One session's event fan-out in one process: every event has the session's next sequence number
(the store's, through `_relay.Buses`, or its own); the newest `KEEP` are kept so a page that
reconnects with `?after=<seq>` misses nothing.

    bus.publish({"type": "run", "state": "running"})       # never blocks, never raises
    bus.deliver(seq, event)                                # numbered by the store
    return sse_response(bus, bus.attach(after), after)     # text/event-stream, `id:` per event

A subscriber is an unbounded queue: publishing happens on the run's hot path and must not wait for a
slow browser; a page that falls behind by more than `KEEP` events refetches the conversation anyway.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import AsyncIterator

from starlette.responses import StreamingResponse

from rein.ai import JsonValue
from rein.protocol import js_json

KEEP = 1000
"""Events kept per session for `?after=` replay."""
KEEP_ALIVE_SECONDS = 15.0
KEEP_ALIVE = ": keep-alive\n\n"
Event = dict[str, JsonValue]
CONTROL = "control"
"""The type of an event that asks the process running a session's run to steer, abort or answer."""
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

    def deliver(self, seq: int, event: Event) -> bool:
        """Keep and hand out `event` numbered `seq` by the store (never one at or below the newest:
        a repeat is dropped); False when dropped."""
        if seq <= self.seq:
            return False
        self.seq = seq
        item = (seq, event)
        self._kept.append(item)
        for queue in self._queues:
            queue.put_nowait(item)
        return True

    @property
    def watched(self) -> bool:
        return bool(self._queues)

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


def frame(seq: int, event: Event) -> str:
    return f"id: {seq}\ndata: {js_json(event)}\n\n"


async def _stream(
    bus: EventBus,
    queue: asyncio.Queue[tuple[int, Event]],
    kept: list[tuple[int, Event]],
    after: int,
    keep_alive: float,
) -> AsyncIterator[str]:
    try:
        yield KEEP_ALIVE
        last = after
        for seq, event in kept:
            last = seq
            if event.get("type") != CONTROL:
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
                if event.get("type") != CONTROL:  # a steer for another process's run: not the page's
                    yield frame(seq, event)
    finally:
        bus.detach(queue)


def sse_response(
    bus: EventBus,
    attached: tuple[asyncio.Queue[tuple[int, Event]], list[tuple[int, Event]]],
    after: int,
    keep_alive: float = KEEP_ALIVE_SECONDS,
) -> StreamingResponse:
    """The session's events after `after` (`attached`: the queue and kept events of `bus.attach`
    or `Buses.attach`) as `text/event-stream`, a keep-alive comment first and every `keep_alive`
    seconds of quiet."""
    queue, kept = attached
    return StreamingResponse(
        _stream(bus, queue, kept, after, keep_alive),
        media_type="text/event-stream",
        headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
    )
