"""The `write` kind of `sql = [...]`: a statement that may change the database, which is any statement
but a read.

Reads: `SELECT`, `SHOW`, `DESCRIBE`, `EXPLAIN`, `VALUES`, `TABLE` and `WITH ... SELECT`, and the
transaction and session statements (`BEGIN`, `COMMIT`, `ROLLBACK`, `SET`, `USE`), which change no
data. Everything else writes (`INSERT`, `UPDATE`, `DELETE`, `MERGE`, `COPY`, `CREATE`, `ALTER`, `GRANT`,
a `CALL` or `EXECUTE` of a body rein does not read, a statement it does not know), and so does a read
that names a data-changing word as a keyword anywhere: a CTE's `DELETE`, `SELECT ... INTO`, `EXPLAIN
ANALYZE UPDATE`, `SELECT ... FOR UPDATE`. What a function a `SELECT` calls does is not known: `SELECT
f()` counts as a read.
"""

from __future__ import annotations

from functools import lru_cache

from rein.steering._rule import Tri
from rein.steering._sql import sql_kinds
from rein.steering._sql_split import pieces, statements
from rein.steering.bash import Code, Unknown

WRITE = "write"
_READS = frozenset({
    "SELECT", "SHOW", "DESCRIBE", "DESC", "EXPLAIN", "VALUES", "TABLE", "WITH", "BEGIN", "START",
    "COMMIT", "ROLLBACK", "END", "SET", "USE",
})  # fmt: skip
_WRITE_WORDS = frozenset({
    "INSERT", "UPDATE", "DELETE", "MERGE", "INTO", "DROP", "TRUNCATE", "ALTER", "CREATE", "GRANT",
    "REVOKE", "COPY", "UPSERT", "CALL", "EXECUTE", "EXEC", "RENAME", "ATTACH", "DETACH", "VACUUM",
})  # fmt: skip
_SQL = frozenset({"sql", "cql"})


@lru_cache(maxsize=256)
def writes(text: str) -> bool:
    """Whether some statement of `text` may change the database."""
    for piece in pieces(text, whole=True):
        for toks, sends in statements(piece):
            words = [tok for tok in toks if tok[1] != "("]
            if not words:
                continue
            if sends or words[0][2] not in _READS:
                return True
            if any(kind == "keyword" and upper in _WRITE_WORDS for kind, _, upper in words):
                return True
    return False


def sql_match(code: Code, kinds: frozenset[str]) -> Tri:
    """Whether the SQL of `code` holds a statement of one of `kinds` (`write` among them)."""
    if WRITE in kinds and code.language in _SQL and writes(code.text):
        return True
    found = sql_kinds(code)
    return found if isinstance(found, Unknown) else bool(found & kinds)
