"""Budget counts in one SQLite file (WAL) that every worker process shares and a restart keeps.

A row per scope and id: a session's id as the client sent it, or an API key's salted SHA-256 (the salt
is made once per file, at random; the key itself is never written). Nothing is cached in memory but
the salt, so any number of processes can count into one file. Admitting a request is one read and
at most one write in one `BEGIN IMMEDIATE` transaction (the check and the count cannot interleave
with another worker's); settling its usage is one write of increments. Calls block: the caller runs
them off the event loop, on the one thread that owns the connection.
"""

from __future__ import annotations

import hashlib
import secrets
import sqlite3
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from rein.proxy._budget_config import Scope

SCHEMA = """
CREATE TABLE IF NOT EXISTS salt (id INTEGER PRIMARY KEY CHECK (id = 1), value BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS budget (
    scope TEXT NOT NULL,
    ident TEXT NOT NULL,
    requests INTEGER NOT NULL DEFAULT 0,
    tokens INTEGER NOT NULL DEFAULT 0,
    spend_usd REAL NOT NULL DEFAULT 0,
    started REAL NOT NULL,
    nudged INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (scope, ident)
) WITHOUT ROWID;
"""
COLUMNS = "scope, ident, requests, tokens, spend_usd, started, nudged"

Ident = tuple[Scope, str]


@dataclass(frozen=True, slots=True, kw_only=True)
class Used:
    """What one scope's id used so far (`started` None: no request yet)."""

    scope: Scope
    ident: str
    requests: int = 0
    tokens: int = 0
    spend_usd: float = 0.0
    started: float | None = None
    nudged: bool = False


@dataclass(frozen=True, slots=True, kw_only=True)
class Verdict:
    """What admission decided: refused (nothing is counted), or admitted, the ids in `nudge` now marked
    as reminded."""

    refused: bool
    nudge: frozenset[Ident] = frozenset()


class BudgetStore:
    """One connection to the file; use it from one thread."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._db = sqlite3.connect(path, timeout=30.0, isolation_level=None, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.executescript(SCHEMA)
        self._db.execute("INSERT OR IGNORE INTO salt (id, value) VALUES (1, ?)", (secrets.token_bytes(16),))
        self._salt: bytes = self._db.execute("SELECT value FROM salt WHERE id = 1").fetchone()[0]

    def key_id(self, key: str) -> str:
        return hashlib.sha256(self._salt + key.encode()).hexdigest()

    def admit(
        self, idents: Sequence[Ident], now: float, decide: Callable[[Mapping[Ident, Used]], Verdict]
    ) -> Verdict:
        """Read the ids' counts, let `decide` judge them, and unless it refuses, count one request for
        each (starting the clock of a new one) and mark its `nudge` ids."""
        db = self._db
        db.execute("BEGIN IMMEDIATE")
        try:
            where = " OR ".join("(scope = ? AND ident = ?)" for _ in idents)
            rows = db.execute(f"SELECT {COLUMNS} FROM budget WHERE {where}", [v for i in idents for v in i])
            found = {(row[0], row[1]): _used(row) for row in rows}
            used = {ident: found.get(ident) or Used(scope=ident[0], ident=ident[1]) for ident in idents}
            verdict = decide(used)
            if not verdict.refused:
                db.executemany(
                    "INSERT INTO budget (scope, ident, requests, started, nudged) VALUES (?, ?, 1, ?, ?) "
                    "ON CONFLICT (scope, ident) DO UPDATE SET requests = requests + 1, "
                    "nudged = max(nudged, excluded.nudged)",
                    [(*ident, now, int(ident in verdict.nudge)) for ident in idents],
                )
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")
        return verdict

    def settle(self, idents: Sequence[Ident], tokens: int, spend_usd: float) -> None:
        """Add a reply's usage to each id."""
        self._db.executemany(
            "UPDATE budget SET tokens = tokens + ?, spend_usd = spend_usd + ? WHERE scope = ? AND ident = ?",
            [(tokens, spend_usd, *ident) for ident in idents],
        )

    def close(self) -> None:
        self._db.close()


def _used(row: tuple[object, ...]) -> Used:
    scope, ident, requests, tokens, spend, started, nudged = row
    assert scope in ("session", "key") and isinstance(ident, str)
    assert isinstance(requests, int) and isinstance(tokens, int) and isinstance(spend, float | int)
    assert isinstance(started, float | int) and isinstance(nudged, int)
    return Used(
        scope=scope, ident=ident, requests=requests, tokens=tokens, spend_usd=float(spend),
        started=float(started), nudged=bool(nudged),
    )  # fmt: skip


def read_all(path: Path) -> list[Used]:
    """Every row of the file, read-only (for metrics: any process, any thread); [] when there is no file."""
    if not path.exists():
        return []
    db = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=5.0)
    try:
        return [_used(row) for row in db.execute(f"SELECT {COLUMNS} FROM budget ORDER BY scope, ident")]
    finally:
        db.close()
