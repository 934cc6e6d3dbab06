"""The service's answer to contention, in process over a real SQLite store whose `commit_as` is made to
lose the race a given number of times (as it does when another server commits first): it reloads and
retries after jittered, growing pauses until its deadline, counting retries and refusals."""

from __future__ import annotations

import asyncio
import itertools
import time
from pathlib import Path

from rein.server._metrics import Metrics
from rein.server._service import SessionService
from rein.server.store import Change, RevisionConflict, SessionRow, SqliteStore, WriterFenced
from tests.server.test_faults import entry


class Losing:
    """A SqliteStore whose next `losses` commits fail as a commit that lost to another writer does
    (alternately RevisionConflict and WriterFenced), recording when each commit was tried."""

    def __init__(self, store: SqliteStore, losses: int) -> None:
        self.store = store
        self.losses = losses
        self.tries: list[float] = []

    def __getattr__(self, name: str) -> object:
        return getattr(self.store, name)

    async def commit_as(
        self,
        owner: str,
        session_id: str,
        change: Change,
        *,
        base: SessionRow,
        holder: str,
        create: bool = False,
    ) -> SessionRow:
        self.tries.append(time.monotonic())
        if len(self.tries) <= self.losses:
            raise (RevisionConflict if len(self.tries) % 2 else WriterFenced)(
                "another writer got there first"
            )
        return await self.store.commit_as(owner, session_id, change, base=base, holder=holder, create=create)


def run(tmp_path: Path, losses: int, deadline: float) -> tuple[Losing, Metrics, BaseException | None]:
    metrics = Metrics()

    async def main() -> tuple[Losing, BaseException | None]:
        store = Losing(await SqliteStore.open(tmp_path / "sessions.db"), losses)
        service = SessionService(store, "server-a", deadline=deadline, metrics=metrics)  # type: ignore[arg-type]
        try:
            await service.init("", "s1", None)
            await service.append("", "s1", [entry("e0", None)], "e0")
        except (RevisionConflict, WriterFenced) as err:
            return store, err
        finally:
            await store.store.close()
        return store, None

    store, error = asyncio.run(main())
    return store, metrics, error


def counted(metrics: Metrics, name: str) -> float:
    value = metrics.registry.get_sample_value(f"rein_{name}_total")
    assert value is not None
    return value


def test_a_write_that_loses_a_few_races_goes_through(tmp_path: Path) -> None:
    store, metrics, error = run(tmp_path, losses=6, deadline=10.0)
    assert error is None
    assert len(store.tries) == 7
    assert (counted(metrics, "fenced_retries"), counted(metrics, "fenced_refusals")) == (6, 0)


def test_a_write_that_keeps_losing_is_refused_at_its_deadline(tmp_path: Path) -> None:
    started = time.monotonic()
    store, metrics, error = run(tmp_path, losses=10_000, deadline=1.0)
    took = time.monotonic() - started
    assert isinstance(error, RevisionConflict | WriterFenced)
    assert 1.0 <= took < 3.0, "refused when the deadline passed, not before, not long after"
    assert counted(metrics, "fenced_refusals") == 1
    retries = counted(metrics, "fenced_retries")
    assert retries == len(store.tries) - 1 and 5 <= retries < 200
    pauses = [later - earlier for earlier, later in itertools.pairwise(store.tries)]
    assert max(pauses[:3]) < 0.05, "the first pauses are a few milliseconds"
    assert max(pauses) > 0.05, "the pauses grow"
    assert len({round(p, 4) for p in pauses}) > len(pauses) // 2, "the pauses are jittered, not fixed"


def test_no_deadline_means_no_retry(tmp_path: Path) -> None:
    store, metrics, error = run(tmp_path, losses=1, deadline=0.0)
    assert isinstance(error, RevisionConflict) and len(store.tries) == 1
    assert counted(metrics, "fenced_retries") == 0 and counted(metrics, "fenced_refusals") == 1
