"""Run leases: a run belongs to the cluster, not to the process that streams it.

A process that starts a run claims it in the store with a lease (`holder#attempt`, ending
`lease_seconds` from now) and renews it every third of that while the run goes on, storing the reply
so far each time. If the process dies, nobody renews it: once the lease has ended, any process's
sweep (`_maintenance`) marks the run `interrupted`, keeping what was streamed, so a client polling
the run learns it ended and a new request with the same run id is accepted (a lapsed lease is
taken over). At a clean shutdown the process hands its runs over at once (`hand_over`).

    leases = RunLeases(store, "host-1", lease_ms=10_000, metrics=metrics)
    run = await leases.claim(owner, sid, run_id, partial=lambda: json_text_or_none)   # None: busy
    await leases.renew()                         # the maintenance loop, every `renew_ms`
    await leases.finish(run, "completed", message=text)
"""

from __future__ import annotations

import dataclasses
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass

from rein.server._metrics import Metrics
from rein.server.store import RunRow, RunStatus, Store, StoreError

Partial = Callable[[], str | None]
"""The run's reply so far as the journal keeps it (pi JSON text), or None when nothing streamed."""
Key = tuple[str, str, str]
WEB_RUN = "rein:web"
"""The run id of a session's page run in the run journal (one at a time per session)."""


@dataclass(slots=True)
class _Held:
    run: RunRow
    partial: Partial


def now_ms() -> int:
    return int(time.time() * 1000)


def _key(run: RunRow) -> Key:
    return run.owner, run.session_id, run.run_id


class RunLeases:
    """The runs this process holds (`app.state.leases`)."""

    def __init__(self, store: Store, holder: str, lease_ms: int, metrics: Metrics) -> None:
        self.store = store
        self.holder = holder
        self.lease_ms = lease_ms
        self.renew_ms = max(1, lease_ms // 3)
        self.metrics = metrics
        self._held: dict[Key, _Held] = {}

    def _count(self) -> None:
        self.metrics.run_leases.set(len(self._held))

    async def claim(
        self, owner: str, session_id: str, run_id: str, partial: Partial = lambda: None
    ) -> RunRow | None:
        """Start the run under a fresh attempt of this process; None when a live run has its id."""
        now = now_ms()
        run = RunRow(
            owner=owner,
            session_id=session_id,
            run_id=run_id,
            status="running",
            created_ms=now,
            updated_ms=now,
            holder=f"{self.holder}#{secrets.token_hex(6)}",
            lease_until_ms=now + self.lease_ms,
        )
        if not await self.store.claim_run(run, now):
            return None
        self._held[_key(run)] = _Held(run, partial)
        self._count()
        return run

    def held(self, run: RunRow) -> bool:
        kept = self._held.get(_key(run))
        return kept is not None and kept.run.holder == run.holder

    async def renew(self) -> None:
        """Extend every held lease (a store failure is retried at the next renewal; a run the store
        no longer gives this attempt, swept while the process stalled, is let go)."""
        for key, kept in list(self._held.items()):
            now = now_ms()
            renewed = dataclasses.replace(
                kept.run, lease_until_ms=now + self.lease_ms, updated_ms=now, message=kept.partial()
            )
            try:
                mine = await self.store.renew_run(renewed)
            except StoreError:
                continue
            if not mine and self._held.get(key) is kept:
                del self._held[key]
        self._count()

    async def finish(
        self, run: RunRow, status: RunStatus, message: str | None = None, error: str | None = None
    ) -> bool:
        """Record the run's end; False when another attempt has taken the run over meanwhile."""
        kept = self._held.get(_key(run))
        if kept is not None and kept.run.holder == run.holder:
            del self._held[_key(run)]
            self._count()
        done = dataclasses.replace(
            run, status=status, message=message, error_message=error, updated_ms=now_ms(), lease_until_ms=0
        )
        self.metrics.runs.labels(status).inc()
        return await self.store.finish_run(done)

    async def hand_over(self, error: str) -> list[RunRow]:
        """At shutdown: every held run becomes `interrupted` now (with its reply so far), instead of
        when its lease would lapse."""
        handed: list[RunRow] = []
        for kept in list(self._held.values()):
            try:
                if await self.finish(kept.run, "interrupted", message=kept.partial(), error=error):
                    handed.append(kept.run)
            except StoreError:
                continue  # the lease lapses and another process's sweep interrupts it
        return handed
