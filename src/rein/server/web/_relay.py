"""Run events on every process: the sessions' event buses, relayed through the store.

Before `start(store)` (and in unit tests) a bus numbers its own events. Once started, `publish` only
queues: a flusher writes the queue to the store's event log every `FLUSH_SECONDS` (one transaction
per session, which numbers the events and, on PostgreSQL, NOTIFYs every process), then hands the
numbered events to this process's subscribers. Another process hears the notification and reads
the events it has not seen from the log, so a page on any process streams a run going on in any
other, and a page that reconnects elsewhere with `?after=<seq>` resumes where it was. A `control`
event (steer, abort, answer) is how a process reaches the run of another: the holder runs it.

    buses.publish(owner, sid, {"type": "run", "state": "running"})   # never blocks, never raises
    queue, kept = await buses.attach(owner, sid, after)               # for an SSE response
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
from collections.abc import Callable, Mapping

from rein.ai import JsonValue
from rein.protocol import js_json
from rein.server._leases import now_ms
from rein.server._metrics import Metrics
from rein.server.store import Store, StoreError
from rein.server.web._bus import CLOSED, CONTROL, KEEP, Event, EventBus

FLUSH_SECONDS = 0.02
RETRY_SECONDS = 0.5
MAX_PENDING = 10_000
"""Events queued while the store is down; beyond it the oldest (live deltas, mostly) are dropped."""
Key = tuple[str, str]
OnControl = Callable[[str, str, Event], None]


class Buses:
    """Every session's bus in this process (`app.state.buses`)."""

    def __init__(self) -> None:
        self._buses: dict[Key, EventBus] = {}
        self.closed = False
        self.on_control: OnControl | None = None
        self._store: Store | None = None
        self._metrics: Metrics | None = None
        self._pending: list[tuple[Key, Event]] = []
        self._wake: asyncio.Event | None = None
        self._flusher: asyncio.Task[None] | None = None
        self._catching: dict[Key, asyncio.Task[None]] = {}
        self._behind: set[Key] = set()
        self._followed: set[Key] = set()

    def of(self, owner: str, session_id: str) -> EventBus:
        return self._buses.setdefault((owner, session_id), EventBus())

    def start(self, store: Store, metrics: Metrics) -> None:
        """Relay through `store` from now on (called in the serving loop)."""
        self._store = store
        self._metrics = metrics
        self._wake = asyncio.Event()
        self._flusher = asyncio.ensure_future(self._flush_loop())

    async def stop(self) -> None:
        """Write what is queued (best effort) and stop relaying."""
        if self._flusher is not None:
            self._flusher.cancel()
            await asyncio.gather(self._flusher, return_exceptions=True)
            self._flusher = None
        for task in list(self._catching.values()):
            task.cancel()
        if self._store is not None and self._pending:
            with contextlib.suppress(StoreError):
                await self._flush()
        self._store = None

    def close(self) -> None:
        """End every event stream (the server is stopping: it waits for open responses to end)."""
        self.closed = True
        for bus in self._buses.values():
            bus.close()

    def publish(self, owner: str, session_id: str, event: Mapping[str, JsonValue]) -> None:
        if self._store is None or self._wake is None:
            self.of(owner, session_id).publish(dict(event))
            return
        if len(self._pending) >= MAX_PENDING:
            del self._pending[0]
        self._pending.append(((owner, session_id), dict(event)))
        self._wake.set()
        if self._metrics is not None:
            self._metrics.events.inc()

    async def seq(self, owner: str, session_id: str) -> int:
        """The newest event number of the session (0 before any): where a page's first stream starts."""
        bus = self._buses.get((owner, session_id))
        mine = bus.seq if bus is not None else 0
        if self._store is None:
            return mine
        return max(mine, await self._store.last_event(owner, session_id))

    async def attach(
        self, owner: str, session_id: str, after: int
    ) -> tuple[asyncio.Queue[tuple[int, Event]], list[tuple[int, Event]]]:
        """A queue of the session's events from now on and the kept ones after `after` (from the
        store's log once started: events of every process). `detach` the queue from `of(...)`."""
        bus = self.of(owner, session_id)
        store = self._store
        if store is None:
            return bus.attach(after)
        heard = bus.watched or (owner, session_id) in self._followed
        queue, _ = bus.attach(after)  # registered first: nothing delivered meanwhile is lost
        last = await store.last_event(owner, session_id)
        if after > last:  # counted against an event log that was since expired: all is new
            after = 0
        kept = _parsed(await store.events_after(owner, session_id, after, KEEP))
        if not heard:  # the bus was deaf until now: the log up to `last` is in `kept`
            bus.seq = max(bus.seq, kept[-1][0] if kept else last)
        if bus.seq < last:
            self._catch_up((owner, session_id))
        return queue, kept

    async def recent(self, owner: str, session_id: str, count: int = 200) -> list[Event]:
        """The session's newest events, oldest first (the open question of a run elsewhere)."""
        store = self._store
        if store is None:
            return [event for _, event in self.of(owner, session_id).replay(0)][-count:]
        last = await store.last_event(owner, session_id)
        return [
            event for _, event in _parsed(await store.events_after(owner, session_id, last - count, count))
        ]

    async def follow(self, owner: str, session_id: str) -> None:
        """Hear every event of the session from now on, watched or not (a run here takes control
        events from other processes); older ones are not read again."""
        key = (owner, session_id)
        bus = self.of(owner, session_id)
        if self._store is not None and key not in self._followed and not bus.watched:
            bus.seq = max(bus.seq, await self._store.last_event(owner, session_id))
        self._followed.add(key)

    def unfollow(self, owner: str, session_id: str) -> None:
        self._followed.discard((owner, session_id))

    def notified(self, owner: str, session_id: str, seq: int) -> None:
        """The store's listener: the session's log grew to `seq` (on some process)."""
        key = (owner, session_id)
        bus = self._buses.get(key)
        if bus is not None and seq > bus.seq and (bus.watched or key in self._followed):
            self._catch_up(key)

    async def resync(self) -> None:
        """Catch up every watched session (after the store's listener was lost and regained)."""
        for key, bus in list(self._buses.items()):
            if bus.watched or key in self._followed:
                self._catch_up(key)

    def _catch_up(self, key: Key) -> None:
        if key in self._catching:
            self._behind.add(key)  # the running catch-up reads again when it is done
            return
        task = asyncio.ensure_future(self._read(key))
        self._catching[key] = task
        task.add_done_callback(lambda _task: self._catching.pop(key, None))

    async def _read(self, key: Key) -> None:
        store, bus = self._store, self.of(*key)
        while store is not None:
            self._behind.discard(key)
            try:
                rows = await store.events_after(key[0], key[1], bus.seq, KEEP)
            except StoreError:
                return  # the next notification or resync reads them
            for seq, event in _parsed(rows):
                self._deliver(key, seq, event)
            if len(rows) < KEEP and key not in self._behind:
                return

    def _deliver(self, key: Key, seq: int, event: Event) -> None:
        if self.of(*key).deliver(seq, event) and event.get("type") == CONTROL and self.on_control is not None:
            self.on_control(key[0], key[1], event)

    async def _flush_loop(self) -> None:
        wake = self._wake
        assert wake is not None
        while True:
            await wake.wait()
            wake.clear()
            await asyncio.sleep(FLUSH_SECONDS)  # a batch: one transaction for a burst of deltas
            try:
                await self._flush()
            except StoreError as error:
                print(f"rein serve: run events not stored yet: {error}", file=sys.stderr, flush=True)
                await asyncio.sleep(RETRY_SECONDS)
                wake.set()
            except Exception as error:  # a bug must not end the relay of every later event
                print(f"rein serve: run events dropped: {error!r}", file=sys.stderr, flush=True)

    async def _flush(self) -> None:
        store = self._store
        assert store is not None
        batch, self._pending = self._pending, []
        groups: dict[Key, list[Event]] = {}
        for key, event in batch:
            groups.setdefault(key, []).append(event)
        for done, (key, events) in enumerate(groups.items()):
            try:
                texts = [js_json(event) for event in events]
                last = await store.put_events(key[0], key[1], texts, now_ms())
            except StoreError:
                rest = [(k, e) for k, group in list(groups.items())[done:] for e in group]
                self._pending = rest + self._pending
                raise
            bus = self.of(*key)
            first = last - len(events) + 1
            if first > bus.seq + 1 and (bus.watched or key in self._followed):
                self._catch_up(key)  # another process's events came first: read them all in order
                continue
            for offset, event in enumerate(events):
                self._deliver(key, first + offset, event)


def _parsed(rows: list[tuple[int, str]]) -> list[tuple[int, Event]]:
    parsed: list[tuple[int, Event]] = []
    for seq, text in rows:
        event = json.loads(text)
        if isinstance(event, dict):
            parsed.append((seq, event))
    return parsed


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


__all__ = ["CLOSED", "Buses", "mirror"]
