"""The SQL reader behind `sql_kinds`: each statement (cut by `_sql_split`) classified by the words
that lead it, and by the statements that run inside it (a CTE, `EXPLAIN ANALYZE`, `PREPARE`, `DO`,
`\\gexec`, statements run on without a `;`).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from rein.steering._sql_split import OPERANDS, Tok, pieces, statements
from rein.steering.bash.commands import PLACEHOLDER

_NOT_DATA_DROPS = frozenset({
    "CONSTRAINT", "PRIMARY", "PRIMARY KEY", "FOREIGN", "CHECK", "DEFAULT", "NOT", "NOT NULL",
    "IDENTITY", "EXPRESSION", "TRIGGER", "STATISTICS", "PROJECTION", "ROW", "SYSTEM", "PERIOD", "FULLTEXT",
    "SPATIAL", "UNIQUE", "TTL", "SETTING", "SETTINGS", "COMMENT", "OWNED",
})  # fmt: skip
"""What `ALTER TABLE ... DROP` may remove without removing stored data or an index (anything else is a
column, a partition or an index)."""
_VERBS = frozenset(
    {"SELECT", "INSERT", "UPDATE", "DELETE", "WITH", "MERGE", "VALUES", "EXECUTE", "CREATE", "TABLE"}
)
_CONSTANT_WORDS = frozenset({"TRUE", "FALSE", "NULL", "NOT", "AND", "OR", "IS"})
_WHERE_ENDS = frozenset({"RETURNING", "ORDER BY", "LIMIT", "GROUP BY", "OFFSET"})
_NOT_RUN_ON = frozenset(
    {"ALTER", "GRANT", "REVOKE", "EXPLAIN", "PREPARE", "COMMENT", "DO", "WITH", "DROP", "TRUNCATE"}
)
"""Statements whose inner `DROP`, `DELETE` or `UPDATE` words are read by their own rule (or not run)."""
_DROP_OBJECTS = frozenset({
    "TABLE", "DATABASE", "SCHEMA", "VIEW", "INDEX", "MATERIALIZED", "KEYSPACE", "SEQUENCE", "FUNCTION",
    "PROCEDURE", "TRIGGER", "TYPE", "USER", "ROLE", "TABLESPACE", "COLUMNFAMILY", "DICTIONARY", "OWNED",
})  # fmt: skip
_DYNAMIC_STARTS = frozenset({"BEGIN", "THEN", "ELSE", "LOOP", "DECLARE"})
"""PL/pgSQL words after which a statement of a `DO` body starts."""


@dataclass(slots=True)
class Found:
    """What the statements read so far are: their kinds, and whether a part rein cannot know could
    make one of them a destructive kind."""

    kinds: set[str] = field(default_factory=set)
    unknown: bool = False


def read_sql(text: str, found: Found, dynamic: bool = False, depth: int = 0) -> None:
    """Classify every statement of `text` into `found`. `dynamic`: the text is a PL/pgSQL body (a
    `DO` block), where the strings it builds are statements too."""
    if depth > 4:
        found.unknown = True
        return
    for piece in pieces(text, whole=dynamic):
        for statement, sends in statements(piece):
            _classify(statement, found, dynamic=dynamic or sends, depth=depth)


def _classify(toks: list[Tok], found: Found, *, dynamic: bool, depth: int) -> None:
    if dynamic:
        for text in _built_strings(toks):
            read_sql(text, found, depth=depth + 1)
        starts = [i for i in range(1, len(toks)) if toks[i - 1][2] in _DYNAMIC_STARTS]
        for start in starts:
            _classify(toks[start:], found, dynamic=False, depth=depth)
    head = toks[0]
    if PLACEHOLDER in head[1] or (head[0] == "placeholder" and head[1].startswith(":")):
        found.unknown = True  # the statement itself is only known at run time: `psql -c "$SQL"`
        return
    verb = head[2]
    nxt = toks[1][2] if len(toks) > 1 else ""
    if verb == "DROP":
        if nxt and nxt not in ("TEMPORARY", "TEMP", "PREPARE"):
            found.kinds.add("drop")
    elif verb == "TRUNCATE":
        if nxt:
            found.kinds.add("truncate")
    elif verb in ("DELETE", "UPDATE"):
        _unfiltered(toks, 0, found)
    elif verb == "WITH":
        _with(toks, found)
    elif verb == "EXPLAIN":
        _explain(toks, found, depth)
    elif verb == "PREPARE":
        _prepare(toks, found, depth)
    elif verb == "EXECUTE" and nxt == "IMMEDIATE" and len(toks) > 2:
        immediate = _literal(toks[2])
        if immediate is not None:
            read_sql(immediate, found, depth=depth + 1)
    elif verb == "DO":
        for tok in toks[1:]:
            body = _literal(tok)
            if body is not None:
                read_sql(body, found, dynamic=True, depth=depth + 1)
    elif verb == "ALTER" and nxt == "TABLE":
        _alter(toks, found)
    if not verb.startswith("CREATE") and verb not in _NOT_RUN_ON:
        _run_on(toks, found, depth)


def _run_on(toks: list[Tok], found: Found, depth: int) -> None:
    """Statements run on without a `;` (T-SQL allows it: `BEGIN TRAN DELETE FROM t COMMIT`): a
    `DROP TABLE`, `TRUNCATE t`, `DELETE FROM` or `UPDATE t SET` inside a statement, at its own level."""
    level = 0
    for index in range(1, len(toks)):
        value, upper = toks[index][1], toks[index][2]
        level += (value == "(") - (value == ")")
        if level or upper not in ("DROP", "TRUNCATE", "DELETE", "UPDATE"):
            continue
        after = [tok[2] for tok in toks[index + 1 : index + 3]]
        if (
            (upper == "DROP" and after[:1] and after[0] in _DROP_OBJECTS)
            or (upper == "TRUNCATE" and after[:1] and after[0] not in ("ON", ",", "TO", ";"))
            or (upper == "DELETE" and after[:1] == ["FROM"])
            or (upper == "UPDATE" and len(after) == 2 and after[1] == "SET" and toks[index - 1][2] != "DO")
        ):
            _classify(toks[index:], found, dynamic=False, depth=depth)
            return


def _unfiltered(toks: list[Tok], start: int, found: Found) -> None:
    """`DELETE` or `UPDATE ... SET` at `start` with no `WHERE` (or a constant one) at its own level:
    every row. A part only known at run time where a `WHERE` clause could stand makes it unknown."""
    verb = toks[start][2]
    if len(toks) <= start + 1:
        return
    level = 0
    where = -1
    sets = verb == "DELETE"
    clause_hole = False
    end = len(toks)
    for index in range(start + 1, len(toks)):
        _, value, upper = toks[index]
        if value == "(":
            level += 1
        elif value == ")":
            level -= 1
            if level < 0:
                end = index
                break
        elif level == 0 and upper == "WHERE" and where < 0:
            where = index
        elif level == 0 and upper == "SET":
            sets = True
        elif level == 0 and PLACEHOLDER in value and where < 0 and _after_operand(toks[index - 1]):
            clause_hole = True
    if not sets:
        return
    if where >= 0 and not _constant(toks[where + 1 : end]):
        return
    if clause_hole and where < 0:
        found.unknown = True
        return
    found.kinds.add("delete-all" if verb == "DELETE" else "update-all")


def _after_operand(tok: Tok) -> bool:
    """A token after which a new clause may start (a name, a value, a closing parenthesis)."""
    kind, value, _ = tok
    return value == ")" or kind in OPERANDS or PLACEHOLDER in value


def _constant(toks: Sequence[Tok]) -> bool:
    """A `WHERE` condition of literals only (`1=1`, `TRUE`): it holds for every row or for none."""
    for kind, value, upper in toks:
        if upper in _WHERE_ENDS:
            break
        if PLACEHOLDER in value:
            return False
        if kind in ("number", "string", "operator") or value in ("(", ")"):
            continue
        if kind == "keyword" and upper in _CONSTANT_WORDS:
            continue
        return False
    return True


def _with(toks: list[Tok], found: Found) -> None:
    """`WITH a AS (DELETE ...) ... UPDATE ...`: every data-changing statement in it runs."""
    for index in range(1, len(toks)):
        if toks[index][2] in ("DELETE", "UPDATE") and toks[index - 1][1] in ("(", ")"):
            _unfiltered(toks, index, found)


def _explain(toks: list[Tok], found: Found, depth: int) -> None:
    """`EXPLAIN ANALYZE` runs the statement it explains; plain `EXPLAIN` does not."""
    for index in range(1, len(toks)):
        if toks[index][2] in _VERBS:
            if any(tok[2] in ("ANALYZE", "ANALYSE") for tok in toks[1:index]):
                _classify(toks[index:], found, dynamic=False, depth=depth)
            return


def _prepare(toks: list[Tok], found: Found, depth: int) -> None:
    """`PREPARE p AS DELETE ...` (PostgreSQL) and `PREPARE p FROM 'DELETE ...'` (MySQL): what is
    prepared to run."""
    for index in range(2, len(toks) - 1):
        if toks[index][2] == "AS":
            _classify(toks[index + 1 :], found, dynamic=False, depth=depth)
            return
        if toks[index][2] == "FROM":
            text = _literal(toks[index + 1])
            if text is not None:
                read_sql(text, found, depth=depth + 1)
            elif PLACEHOLDER in toks[index + 1][1] or toks[index + 1][1].startswith("@"):
                found.unknown = True
            return


def _alter(toks: list[Tok], found: Found) -> None:
    """`ALTER TABLE t DROP [COLUMN] c` and `DROP PARTITION` remove stored data, `TRUNCATE PARTITION`
    empties it; ClickHouse's `ALTER TABLE t DELETE WHERE 1` and `UPDATE ... WHERE 1` touch every row.
    Dropping a constraint, an index or a default does not."""
    level = 0
    for index in range(2, len(toks)):
        value, upper = toks[index][1], toks[index][2]
        level += value == "("
        level -= value == ")"
        if level:
            continue
        following = [tok[2] for tok in toks[index + 1 : index + 3] if tok[2] != "IF EXISTS"]
        if upper == "DROP" and following and following[0] not in _NOT_DATA_DROPS:
            found.kinds.add("drop")
        elif upper == "TRUNCATE" and following[:1] == ["PARTITION"]:
            found.kinds.add("truncate")
        elif upper in ("DELETE", "UPDATE") and toks[index - 1][1] not in ("ON",):
            where = next((i for i in range(index, len(toks)) if toks[i][2] == "WHERE"), -1)
            if where >= 0 and _constant(toks[where + 1 :]):
                found.kinds.add("delete-all" if upper == "DELETE" else "update-all")


def _literal(tok: Tok) -> str | None:
    """The text of a string literal token (`'...'`, `$$...$$`, `$tag$...$tag$`); None for others."""
    kind, value, _ = tok
    if kind == "string" and len(value) >= 2:
        return value[1:-1].replace("''", "'")
    if kind == "dollar":
        tag = value[: value.index("$", 1) + 1]
        return value[len(tag) : -len(tag)]
    return None


def _built_strings(toks: list[Tok]) -> Iterator[str]:
    """The strings a dynamic statement builds from literals: `'DROP TABLE ' || quote_ident(t)` is
    `DROP TABLE <unknown>`, `format('TRUNCATE %I', t)` is `TRUNCATE %I`."""
    index = 0
    while index < len(toks):
        text = _literal(toks[index])
        index += 1
        if text is None:
            continue
        while index + 1 < len(toks) and toks[index][1] == "||":
            part = _literal(toks[index + 1])
            text += part if part is not None else f" {PLACEHOLDER} "
            index += 2
            if part is None and index < len(toks) and toks[index][1] == "(":  # a call's arguments
                level = 0
                while index < len(toks):
                    level += (toks[index][1] == "(") - (toks[index][1] == ")")
                    index += 1
                    if not level:
                        break
        yield text
