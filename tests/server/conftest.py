"""Fixtures of the server tests: a PostgreSQL server per test session, and each store test run on both
backends.

    def test_x(store: StoreCase) -> None:      # parametrized: sqlite, postgres
        row = store.run(lambda s: s.session("", "a"))
    def test_y(store_url: str) -> None: ...    # the same two backends, as a `--db` URL
    def test_z(pg_url: str) -> None: ...       # the shared server's DSN (mark the test `postgres`)
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

import pytest

from rein.server.store import Store, open_store
from tests.server.pg import new_database, start_postgres

T = TypeVar("T")
BACKENDS = [
    pytest.param("sqlite", id="sqlite"),
    pytest.param("postgres", id="postgres", marks=[pytest.mark.postgres, pytest.mark.slow]),
]


@dataclass(frozen=True, slots=True)
class StoreCase:
    """One backend's empty database; `run` opens it, awaits `body(store)` and closes it again."""

    backend: str
    url: str

    def run(self, body: Callable[[Store], Awaitable[T]]) -> T:
        async def main() -> T:
            store = await open_store(self.url)
            try:
                return await body(store)
            finally:
                await store.close()

        return asyncio.run(main())


@pytest.fixture(scope="session")
def pg_url() -> Iterator[str]:
    """A PostgreSQL server started once per test session (per xdist worker); use `new_database` on
    it, or fresh owner names, to keep tests apart."""
    with start_postgres() as dsn:
        yield dsn


@pytest.fixture(params=BACKENDS)
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """An empty database on each backend: a SQLite file in tmp_path, a new PostgreSQL database."""
    if request.param == "sqlite":
        return f"sqlite://{tmp_path / 'sessions.db'}"
    return new_database(request.getfixturevalue("pg_url"))


@pytest.fixture
def store(store_url: str) -> StoreCase:
    return StoreCase(backend=store_url.partition(":")[0], url=store_url)
