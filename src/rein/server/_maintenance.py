"""The server's housekeeping, on a schedule in every process (`app.state.maintenance`):

- renew the leases of the runs this process holds (every third of the lease);
- sweep: mark every run whose lease lapsed `interrupted` (its process died), and tell the pages of
  its session (a page run's question is gone, the run is idle); every process sweeps, the store's
  single UPDATE makes each run interrupted once;
- keep the store's event listener up (PostgreSQL's LISTEN connection is lost with the server) and
  catch the watched sessions up after it was lost;
- expire finished runs, old run events and idle chunked uploads.

A failing step is logged once per failure streak and tried again at the next tick; it never stops
the loop.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Awaitable, Callable, Sequence

from starlette.applications import Starlette

from rein.server._leases import WEB_RUN, RunLeases, now_ms
from rein.server._metrics import Metrics
from rein.server._run_journal import INTERRUPTED
from rein.server.store import RunRow, Store
from rein.server.web._relay import Buses

RUN_TTL_MS = 7 * 24 * 3600 * 1000
"""A finished run's record is kept a week (a client recovers it within seconds)."""
EVENT_TTL_MS = 24 * 3600 * 1000
EXPIRE_EVERY_MS = 60_000
CHUNKS_EVERY_MS = 5_000


class Maintenance:
    def __init__(self, app: Starlette) -> None:
        self.app = app
        self.leases: RunLeases = app.state.leases
        self.tick = min(1.0, self.leases.lease_ms / 4000)
        self._failing: set[str] = set()
        self._next: dict[str, int] = {}

    @property
    def store(self) -> Store:
        store: Store = self.app.state.store
        return store

    async def run(self) -> None:
        while True:
            await self.step()
            await asyncio.sleep(self.tick)

    async def step(self) -> None:
        await self._every("renew", self.leases.renew_ms, self.leases.renew)
        await self._every("listen", 0, self._listen)
        await self._every("sweep", 0, self.sweep)
        await self._every("expire", EXPIRE_EVERY_MS, self._expire)
        await self._every("chunks", CHUNKS_EVERY_MS, self.app.state.chunks.expire)

    async def _every(self, name: str, period_ms: int, work: Callable[[], Awaitable[object]]) -> None:
        now = now_ms()
        if now < self._next.get(name, 0):
            return
        try:
            await work()
        except Exception as error:  # the next tick tries again; one line per failure streak
            if name not in self._failing:
                print(f"rein serve: {name} failed: {error}", file=sys.stderr, flush=True)
            self._failing.add(name)
            return
        self._failing.discard(name)
        self._next[name] = now + period_ms

    async def _listen(self) -> None:
        buses: Buses = self.app.state.buses
        if await self.store.listen(buses.notified):  # (re)gained: what was said meanwhile is in the log
            await buses.resync()

    async def sweep(self) -> None:
        runs = await self.store.interrupt_lapsed(now_ms(), INTERRUPTED)
        metrics: Metrics = self.app.state.metrics
        for _ in runs:
            metrics.runs_interrupted.inc()
            metrics.runs.labels("interrupted").inc()
        announce(self.app.state.buses, runs)

    async def _expire(self) -> None:
        now = now_ms()
        await self.store.expire_runs(now - RUN_TTL_MS)
        await self.store.expire_events(now - EVENT_TTL_MS)


def announce(buses: Buses, runs: Sequence[RunRow]) -> None:
    """Tell the pages of each interrupted page run's session, on every process, that it ended."""
    for run in runs:
        if run.run_id == WEB_RUN:
            message = f"the run was interrupted: {INTERRUPTED}"
            buses.publish(run.owner, run.session_id, {"type": "error", "message": message})
            buses.publish(run.owner, run.session_id, {"type": "run", "state": "idle"})
