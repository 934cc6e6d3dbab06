"""The PostgreSQL backend's run journal (runs under leases) and run event log: a table for replay,
`NOTIFY` (delivered at commit) for every listening process, on a connection of its own. A mixin of
`PostgresStore`, which gives it the pool (`_tx`, `_fetch`)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from contextlib import AbstractAsyncContextManager
from typing import Any

import asyncpg  # type: ignore[import-untyped]

from rein.server.store._base import Notify, RunRow, StoreError
from rein.server.store._pg import DRIVER_ERRORS, Connection, Q
from rein.server.store._rows import finish_values, renew_values, run_row, run_values

CHANNEL = "rein_events"
EVENT_ATTEMPTS = 20


class PostgresRuns:
    url: str
    _dsn: str
    _listeners: list[Notify]
    _listener: Connection | None

    def _tx(self) -> AbstractAsyncContextManager[Connection]:
        raise NotImplementedError

    async def _fetch(self, statement: str, *args: object) -> list[Any]:
        raise NotImplementedError

    # the run journal
    async def put_run(self, run: RunRow) -> None:
        await self._fetch("PUT_RUN", *run_values(run))

    async def run(self, owner: str, session_id: str, run_id: str) -> RunRow | None:
        rows = await self._fetch("RUN", owner, session_id, run_id)
        return run_row(rows[0]) if rows else None

    async def expire_runs(self, before_ms: int) -> int:
        return len(await self._fetch("EXPIRE_RUNS", before_ms))

    async def claim_run(self, run: RunRow, now_ms: int) -> bool:
        return bool(await self._fetch("CLAIM_RUN", *run_values(run), now_ms))

    async def renew_run(self, run: RunRow) -> bool:
        return bool(await self._fetch("RENEW_RUN", *renew_values(run)))

    async def finish_run(self, run: RunRow) -> bool:
        return bool(await self._fetch("FINISH_RUN", *finish_values(run)))

    async def interrupt_lapsed(self, now_ms: int, error: str) -> list[RunRow]:
        return [run_row(row) for row in await self._fetch("INTERRUPT_LAPSED", error, now_ms, now_ms)]

    async def live_runs(self, owner: str, now_ms: int) -> list[RunRow]:
        return [run_row(row) for row in await self._fetch("LIVE_RUNS", owner, now_ms)]

    async def secret(self, name: str, candidate: str) -> str:
        async with self._tx() as db:
            await db.execute(Q["PUT_SECRET"], name, candidate)
            return str(await db.fetchval(Q["SECRET"], name))

    # run events: a table for replay, NOTIFY (delivered at commit) for every listening process
    async def put_events(self, owner: str, session_id: str, events: Sequence[str], now_ms: int) -> int:
        for attempt in range(EVENT_ATTEMPTS):
            try:
                async with self._tx() as db:
                    last = int(await db.fetchval(Q["LAST_EVENT"], owner, session_id))
                    rows = [(owner, session_id, last + i, text, now_ms) for i, text in enumerate(events, 1)]
                    await db.executemany(Q["PUT_EVENT"], rows)
                    seq = last + len(rows)
                    await db.execute(
                        "SELECT pg_notify($1, $2)", CHANNEL, json.dumps([owner, session_id, seq])
                    )
                    return seq
            except StoreError as error:  # another process numbered the same events first: number again
                if (
                    not isinstance(error.__cause__, asyncpg.UniqueViolationError)
                    or attempt == EVENT_ATTEMPTS - 1
                ):
                    raise
        raise AssertionError("unreachable")

    async def events_after(
        self, owner: str, session_id: str, after: int, limit: int
    ) -> list[tuple[int, str]]:
        rows = await self._fetch("EVENTS_AFTER", owner, session_id, after, limit)
        return [(int(seq), str(text)) for seq, text in rows]

    async def last_event(self, owner: str, session_id: str) -> int:
        return int((await self._fetch("LAST_EVENT", owner, session_id))[0][0])

    async def expire_events(self, before_ms: int) -> None:
        async with self._tx() as db:
            await db.execute(Q["EXPIRE_EVENTS"], before_ms)

    async def listen(self, notify: Notify) -> bool:
        if notify not in self._listeners:
            self._listeners.append(notify)
        if self._listener is not None and not self._listener.is_closed():
            return False
        try:
            self._listener = await asyncpg.connect(self._dsn, timeout=10)
            await self._listener.add_listener(CHANNEL, self._notified)
        except DRIVER_ERRORS as exc:
            self._listener = None
            raise StoreError(f"{self.url}: cannot listen for events: {exc}") from exc
        return True

    def _notified(self, _connection: Connection, _pid: int, _channel: str, payload: str) -> None:
        try:
            owner, session_id, seq = json.loads(payload)
        except (ValueError, TypeError):
            return
        for notify in self._listeners:
            notify(str(owner), str(session_id), int(seq))
