"""`--db` to a store: a SQLite path or URL, or a PostgreSQL URL."""

from __future__ import annotations

from pathlib import Path

from rein.server.store._base import Store, StoreError
from rein.server.store._common import mask_url
from rein.server.store._postgres import PostgresStore
from rein.server.store._sqlite import SqliteStore

SQLITE_PREFIX = "sqlite://"
POSTGRES_SCHEMES = ("postgresql://", "postgres://")


def default_sqlite_path(home: Path) -> Path:
    """Where `rein serve` keeps its sessions when no `--db` is given."""
    return home / ".rein" / "server" / "sessions.db"


async def open_store(url: str) -> Store:
    """Open the store `url` names: `sqlite:///abs/path.db`, a plain file path (SQLite), or
    `postgresql://user@host:port/db` (also `postgres://`). A bad URL or an unreachable database raises
    StoreError naming the URL, its password masked."""
    text = url.strip()
    if not text:
        raise StoreError("empty database URL: give a file path, sqlite:///abs/path.db or postgresql://...")
    if text.startswith(POSTGRES_SCHEMES):
        return await PostgresStore.open(text)
    if text.startswith(SQLITE_PREFIX):
        path = text.removeprefix(SQLITE_PREFIX)
        if not path.startswith("/") or path.endswith("/"):
            raise StoreError(
                f"{mask_url(text)}: a SQLite URL needs an absolute file path (sqlite:///abs/path.db)"
            )
        return await SqliteStore.open(Path(path))
    if "://" in text:
        scheme = text.partition("://")[0]
        raise StoreError(
            f"{mask_url(text)}: unknown database scheme {scheme!r} (use sqlite:// or postgresql://)"
        )
    file = Path(text).expanduser()
    if file.is_dir():
        raise StoreError(f"{text}: is a directory, not a database file")
    return await SqliteStore.open(file.absolute())
