"""What kinds of destructive statement the SQL a command runs holds: `sql_kinds(ref.code)`, read by
the `sql = [...]` field of a rule.

The kinds:

- `drop`: a `DROP` statement of any object (database, schema, keyspace, table, view, materialized
  view, index, sequence, function, user, ...), `IF EXISTS` or not, and `ALTER TABLE ... DROP
  [COLUMN] c`, `DROP PARTITION` and `DROP INDEX` (a column's or a partition's data, an index, as a
  `DROP INDEX` statement removes). Not a drop: `DROP TEMPORARY TABLE` (MySQL's session table), `DROP
  PREPARE`, and `ALTER TABLE ... DROP CONSTRAINT|DEFAULT|NOT NULL|PRIMARY KEY|FOREIGN KEY|...`, which
  remove no data.
- `truncate`: `TRUNCATE [TABLE] t` (also CQL and ClickHouse), `ALTER TABLE ... TRUNCATE PARTITION`.
- `delete-all`: `DELETE` with no `WHERE` at its own level, or a `WHERE` of literals only (`WHERE
  1=1`, `WHERE true`); also ClickHouse's `ALTER TABLE t DELETE WHERE 1`.
- `update-all`: `UPDATE ... SET` the same way.

Statements are found wherever they run: several per text, after a CTE (`WITH a AS (...) DELETE FROM
t`, and a data-changing CTE itself), under `EXPLAIN ANALYZE` (which runs it), in `PREPARE ... AS` /
`PREPARE ... FROM '...'` / `EXECUTE IMMEDIATE '...'`, in a `DO` block's body and in the strings it
builds (`EXECUTE 'DROP TABLE ' || t`), in the rows `\\gexec` runs, and after a statement that runs
on without a `;` (`BEGIN TRAN DELETE FROM t COMMIT`). What is not run now is not counted: a
`CREATE FUNCTION|TRIGGER|PROCEDURE|RULE` body, a string literal (`SELECT 'DROP TABLE x'`), a comment.
Case, comments, quoting and dollar quoting are read by sqlparse's lexer, imported only when a text
holds a word that could make one of the kinds.

Code in another language (`python -c`, `node -e`, `ruby -e`, ...) is read for its string literals:
each literal (a concatenation or an f-string / template joined, with the parts only known at run time
as a placeholder) that starts like SQL is read as SQL, when the program also names something that
talks to a database (`execute`, `cursor`, `query`, `connect`, `db`, `sql`, ...), so a one-liner that
prints `'DELETE FROM t'` is not a delete.

A part only known at run time (`PLACEHOLDER` in the text: `psql -c "$SQL"`) makes the answer UNKNOWN
where it could decide it: a whole statement, or where a `WHERE` clause could stand in a `DELETE` or
`UPDATE` without one. `DELETE FROM $T` is still `delete-all`. The answer is UNKNOWN only when nothing
definite was found: a definite kind is the answer even beside an unknown statement.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from functools import lru_cache

from rein.steering._sql_statements import Found, read_sql
from rein.steering.bash import UNKNOWN, Code, Unknown
from rein.steering.bash.commands import PLACEHOLDER

KINDS = frozenset({"drop", "truncate", "delete-all", "update-all"})
_SQL_LANGUAGES = frozenset({"sql", "cql"})
_NOT_CODE = frozenset({"redis", "mongo", "shell"})
_HINT = re.compile(rf"(?i)drop|truncate|delete|update|{PLACEHOLDER}")
"""A text without one of these words holds none of the kinds (nor an unknown statement)."""
_LITERAL_HINT = re.compile(r"(?i)drop|truncate|delete|update")
_STARTS_SQL = re.compile(
    r"(?is)\A(?:\s|--[^\n]*\n|/\*.*?\*/|\()*(drop|truncate|delete|update|alter|with|explain|prepare|execute"
    r"|do|begin|start|set|use|select|insert|replace|create|pragma|attach|\\c|\\connect)\b"
)
"""A literal that starts like a SQL statement (or a script of them)."""
_DATABASE_WORDS = re.compile(
    r"(?i)sql|exec|query|cursor|conn|\bdb|database|engine|session|client|prepare|\braw\b|duckdb|psycopg"
    r"|\bpg\b|postgres|mysql|maria|cassandra|clickhouse|knex|prisma|sequelize|pool|transaction|statement"
    r"|\brun\b|spawn|system|popen|check_output|\bcall\b"
)
"""Names in a program that talk to a database, or run a client that does."""
_C_STRINGS = re.compile(
    r"""//[^\n]*|/\*.*?\*/|'(?:\\.|[^'\\\n])*'|"(?:\\.|[^"\\\n])*"|`(?:\\.|[^`\\])*`""", re.DOTALL
)
_HASH_STRINGS = re.compile(
    r"""\#[^\n{]*(?=\n|$)|'(?:\\.|[^'\\\n])*'|"(?:\\.|[^"\\\n])*"|`(?:\\.|[^`\\])*`""", re.DOTALL
)
_INTERPOLATION = re.compile(r"\$\{[^}]*\}|#\{[^}]*\}")
_HASH_LANGUAGES = frozenset({"ruby", "perl", "php", "r", "tcl", "elixir", "crystal", "julia"})
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r"}
_CONCAT = re.compile(r"\s*(\+|\.(?!\w)|\.\.|<>|~)\s*")


@lru_cache(maxsize=256)
def sql_kinds(code: Code) -> frozenset[str] | Unknown:
    """The kinds of destructive statement in `code` (a subset of `KINDS`), or UNKNOWN when none is
    definite and a part only known at run time could be one."""
    language = code.language
    if language in _NOT_CODE or not _HINT.search(code.text):
        return frozenset()
    found = Found()
    if language in _SQL_LANGUAGES:
        read_sql(code.text, found)
    else:
        literals = _literals(code.text, language)
        if literals is not None:
            for text in literals:
                if _LITERAL_HINT.search(text) and _STARTS_SQL.match(text):
                    read_sql(text, found)
    if found.kinds:
        return frozenset(found.kinds)
    return UNKNOWN if found.unknown else frozenset()


def _literals(text: str, language: str) -> list[str] | None:
    """The string literals of a program, each joined with what it is concatenated with; None when
    the program names nothing that talks to a database."""
    if language == "python":
        found = _python_literals(text)
        if found is not None:
            strings, names = found
            return strings if _DATABASE_WORDS.search(" ".join(names)) else None
    pattern = _HASH_STRINGS if language in _HASH_LANGUAGES else _C_STRINGS
    if not _DATABASE_WORDS.search(pattern.sub(" ", text)):
        return None
    return list(_joined(text, pattern))


def _python_literals(text: str) -> tuple[list[str], list[str]] | None:
    """Python's string literals (concatenations and f-strings joined) and the names it uses; None
    when it does not parse."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return None
    strings: list[str] = []
    names: list[str] = []
    inside: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            names.append(node.id)
        elif isinstance(node, ast.Attribute):
            names.append(node.attr)
        elif isinstance(node, ast.alias):
            names.append(node.name)
        elif id(node) in inside:
            continue
        elif isinstance(node, ast.BinOp | ast.JoinedStr) or (
            isinstance(node, ast.Constant) and isinstance(node.value, str)
        ):
            joined = _python_text(node, inside)
            if joined is not None:
                strings.append(joined)
    return strings, names


def _python_text(node: ast.expr, inside: set[int]) -> str | None:
    """The text of a string expression: constants as they are, `a + b` and f-strings joined, a part
    only known at run time as the placeholder; None for an expression that is not a string."""
    if isinstance(node, ast.Constant):
        return node.value if isinstance(node.value, str) else None
    if isinstance(node, ast.JoinedStr):
        parts = []
        for value in node.values:
            inside.add(id(value))
            parts.append(value.value if isinstance(value, ast.Constant) else f" {PLACEHOLDER} ")
        return "".join(str(part) for part in parts)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add | ast.Mod):
        left = _python_text(node.left, inside)
        if left is None:
            return None
        inside.update((id(node.left), id(node.right)))
        if isinstance(node.op, ast.Mod):
            return left
        right = _python_text(node.right, inside)
        return left + (right if right is not None else f" {PLACEHOLDER} ")
    return None


def _joined(text: str, pattern: re.Pattern[str]) -> Iterator[str]:
    """Each string literal of a C-like (or `#`-commented) program with the literals and names it is
    concatenated with (`"DELETE FROM " + t + " WHERE id = 1"`), the names as the placeholder."""
    matches = [match for match in pattern.finditer(text) if match[0][:1] in "'\"`"]
    index = 0
    while index < len(matches):
        match = matches[index]
        parts = [_unquoted(match[0])]
        end = match.end()
        index += 1
        while True:
            glue = _CONCAT.match(text, end)
            if glue is None:
                break
            following = glue.end()
            if index < len(matches) and matches[index].start() == following:
                parts.append(_unquoted(matches[index][0]))
                end = matches[index].end()
                index += 1
                continue
            name = re.compile(r"[\w$@.]+(?:\([^()]*\))?").match(text, following)
            if name is None or not name[0]:
                break
            parts.append(f" {PLACEHOLDER} ")
            end = name.end()
        yield "".join(parts)


def _unquoted(literal: str) -> str:
    body = literal[1:-1]
    if literal[0] == "'" and "\\" not in body:
        return body
    body = _INTERPOLATION.sub(f" {PLACEHOLDER} ", body) if literal[0] in '`"' else body
    return re.sub(r"\\(.)", lambda match: _ESCAPES.get(match[1], match[1]), body)
