"""The SQL a command runs, read for its destructive statements (`sql_kinds`), and the queries each
database client runs (`ref.code`), through options, files, stdin and heredocs."""

from __future__ import annotations

import random
import subprocess
import sys
import time
from pathlib import Path

import pytest

from rein.diskio import HostFiles
from rein.steering import Context, MemoryEntries, Steering, ToolCall, build_policy
from rein.steering._sql import sql_kinds
from rein.steering.bash import UNKNOWN, Code, Unknown, analyze
from rein.steering.bash.commands import PLACEHOLDER

P = PLACEHOLDER


def kinds(text: str, language: str = "sql") -> frozenset[str] | Unknown:
    return sql_kinds(Code(language=language, text=text))


DROP, TRUNCATE, DELETE, UPDATE = (
    frozenset({"drop"}),
    frozenset({"truncate"}),
    frozenset({"delete-all"}),
    frozenset({"update-all"}),
)
NONE: frozenset[str] = frozenset()

SQL = [
    # the kinds, plainly
    ("DROP TABLE users", DROP),
    ("drop table if exists users cascade;", DROP),
    ("DROP DATABASE app", DROP),
    ("DROP SCHEMA public CASCADE", DROP),
    ("DROP VIEW v", DROP),
    ("DROP MATERIALIZED VIEW mv", DROP),
    ("DROP INDEX CONCURRENTLY idx", DROP),
    ("DROP KEYSPACE shop", DROP),
    ("DROP OWNED BY app", DROP),
    ("TRUNCATE TABLE t", TRUNCATE),
    ("truncate a, b restart identity", TRUNCATE),
    ("DELETE FROM t", DELETE),
    ("DELETE FROM t WHERE 1=1", DELETE),
    ("DELETE FROM t WHERE true", DELETE),
    ("DELETE FROM t WHERE 1", DELETE),
    ("DELETE FROM t USING u", DELETE),
    ("DELETE FROM t LIMIT 100", DELETE),
    ("UPDATE t SET a = 1", UPDATE),
    ("UPDATE t SET a = 1 WHERE 'x' = 'x'", UPDATE),
    ("UPDATE t SET a = 1 ORDER BY id LIMIT 5", UPDATE),
    # several statements, comments, strings
    ("SELECT 1; DROP TABLE x; SELECT 2", DROP),
    ("SELECT 1;\nDELETE FROM t;\nUPDATE u SET a = 1;", DELETE | UPDATE),
    ("/* tidy */ DROP TABLE t", DROP),
    ("-- tidy\nDROP TABLE t", DROP),
    ("DELETE FROM t -- WHERE id = 1", DELETE),
    ("DELETE FROM t /* WHERE id = 1 */", DELETE),
    ("SELECT 'DROP TABLE x'", NONE),
    ('SELECT "DROP TABLE x" FROM t', NONE),
    ("SELECT $$DROP TABLE x$$", NONE),
    ("SELECT $tag$ DELETE FROM t $tag$", NONE),
    ("-- DROP TABLE x\nSELECT 1", NONE),
    ("/* DROP TABLE x */ SELECT 1", NONE),
    ("# DROP TABLE x\nSELECT 1", NONE),
    ("COMMENT ON TABLE t IS 'never DROP TABLE t'", NONE),
    # WHERE present, or not run now
    ("DELETE FROM t WHERE id = 1", NONE),
    ("delete from t where id in (select id from u)", NONE),
    ("UPDATE t SET a = 1 WHERE id = 2", NONE),
    ("UPDATE t SET a = (SELECT max(b) FROM u WHERE u.c = 1) WHERE id = 3", NONE),
    ("DELETE FROM t WHERE CURRENT OF cur", NONE),
    ("INSERT INTO t VALUES (1) ON CONFLICT (id) DO UPDATE SET n = 1", NONE),
    ("INSERT INTO t VALUES (1) ON DUPLICATE KEY UPDATE n = 1", NONE),
    ("SELECT * FROM t FOR UPDATE", NONE),
    ("CREATE TABLE t (id int REFERENCES u ON DELETE CASCADE)", NONE),
    ("MERGE INTO t USING s ON t.id = s.id WHEN MATCHED THEN DELETE", NONE),
    ("GRANT DROP, TRUNCATE ON t TO u", NONE),
    ("EXPLAIN DELETE FROM t", NONE),
    ("DROP TEMPORARY TABLE tmp", NONE),
    ("DROP PREPARE stmt", NONE),
    ("CREATE FUNCTION f() RETURNS void AS $$ DELETE FROM t $$ LANGUAGE sql", NONE),
    ("CREATE TRIGGER tr AFTER INSERT ON a BEGIN DELETE FROM b; END;", NONE),
    ("CREATE TRIGGER tr AFTER INSERT ON a BEGIN DELETE FROM b; END;\nDROP TABLE c;", DROP),
    ("CREATE TABLE begin (a int); DROP TABLE c;", DROP),
    ("ALTER TABLE t DROP CONSTRAINT c", NONE),
    ("ALTER TABLE t ALTER COLUMN c DROP NOT NULL", NONE),
    ("ALTER TABLE t ALTER COLUMN c DROP DEFAULT", NONE),
    ("ALTER TABLE t ADD COLUMN c int", NONE),
    # statements that run inside others
    ("ALTER TABLE t DROP COLUMN c", DROP),
    ("ALTER TABLE t DROP c", DROP),
    ("ALTER TABLE t DROP COLUMN IF EXISTS c", DROP),
    ("ALTER TABLE t DROP PARTITION p0", DROP),
    ("ALTER TABLE t DROP INDEX i", DROP),
    ("ALTER TABLE t TRUNCATE PARTITION p0", TRUNCATE),
    ("ALTER TABLE events DELETE WHERE 1", DELETE),
    ("ALTER TABLE events DELETE WHERE ts < now()", NONE),
    ("WITH x AS (SELECT 1) DELETE FROM t", DELETE),
    ("WITH d AS (DELETE FROM t RETURNING *) SELECT count(*) FROM d", DELETE),
    ("WITH d AS (DELETE FROM t WHERE a = 1 RETURNING *) SELECT count(*) FROM d", NONE),
    ("WITH u AS (UPDATE t SET a = 1 RETURNING *) SELECT 1", UPDATE),
    ("EXPLAIN ANALYZE DELETE FROM t", DELETE),
    ("EXPLAIN (ANALYZE, BUFFERS) UPDATE t SET a = 1", UPDATE),
    ("PREPARE p AS DELETE FROM t; EXECUTE p;", DELETE),
    ("PREPARE s FROM 'DROP TABLE t'", DROP),
    ("EXECUTE IMMEDIATE 'TRUNCATE TABLE t'", TRUNCATE),
    ("DO $$ BEGIN EXECUTE 'DROP TABLE t'; END $$;", DROP),
    ("DO $$ BEGIN DELETE FROM t; END $$;", DELETE),
    ("DO $$ BEGIN IF x THEN TRUNCATE t; END IF; END $$;", TRUNCATE),
    ("DO $$ BEGIN RAISE NOTICE 'hello'; END $$;", NONE),
    ("SELECT 'DROP TABLE ' || tablename FROM pg_tables \\gexec", DROP),
    ("SELECT format('TRUNCATE %I', tablename) FROM pg_tables\n\\gexec", TRUNCATE),
    ("SELECT 'DELETE FROM ' || quote_ident(t) || ' WHERE id = 1' FROM x \\gexec", NONE),
    ("BEGIN TRAN DELETE FROM t COMMIT", DELETE),
    ("SELECT 1\nGO\nDROP TABLE x\nGO", DROP),
    # client commands before statements
    ("\\c app\nDROP TABLE x;", DROP),
    ("\\set ON_ERROR_STOP on\nTRUNCATE t;", TRUNCATE),
    ("\\echo DROP TABLE x", NONE),
    (".tables\nDROP TABLE x;", DROP),
    (".mode csv\nSELECT 1;", NONE),
    ("use shop\nDROP TABLE orders;", DROP),
    ("USE shop; DROP TABLE orders;", DROP),
    ("DELIMITER //\nDROP TABLE x //\nDELIMITER ;", DROP),
    ("DELIMITER //\nCREATE PROCEDURE p() BEGIN DELETE FROM t; END //\nDELIMITER ;\nSELECT 1;", NONE),
    ("SELECT 1 \\; DROP TABLE x", DROP),
    # readings where dialects disagree
    ("SELECT 1 # 2; DROP TABLE x", DROP),
    ("SELECT 'C:\\'; DROP TABLE x; -- '", DROP),
    ("SELECT 1 --1; DROP TABLE x", DROP),
    ("/*!50001 DROP VIEW v*/;", DROP),
    ("/*!40101 SET NAMES utf8 */;", NONE),
    # parts only known at run time
    (P, UNKNOWN),
    (f"SELECT 1; {P}", UNKNOWN),
    (f"{P} FROM t", UNKNOWN),
    (f"DELETE FROM {P}", DELETE),
    (f"DELETE FROM t {P}", UNKNOWN),
    (f"DELETE FROM t WHERE id = {P}", NONE),
    (f"UPDATE t SET a = {P}", UPDATE),
    (f"UPDATE t SET a = 1 {P}", UNKNOWN),
    (f"SELECT * FROM {P}", NONE),
    (f"SELECT '{P}'", NONE),
    (f"DROP TABLE {P}", DROP),
    (f"{P}; DROP TABLE x", DROP),
]


@pytest.mark.parametrize(("text", "expected"), SQL, ids=[text[:60] for text, _ in SQL])
def test_sql_statements(text: str, expected: frozenset[str] | Unknown) -> None:
    assert kinds(text) == expected


def test_cql_is_read_as_sql() -> None:
    assert kinds("DROP KEYSPACE shop;", "cql") == DROP
    assert kinds("TRUNCATE ks.users", "cql") == TRUNCATE
    assert kinds("DELETE FROM ks.users WHERE id = 1", "cql") == NONE
    assert kinds("BEGIN BATCH DELETE FROM t WHERE id = 1; APPLY BATCH;", "cql") == NONE


def test_redis_and_mongo_code_has_no_sql_kinds() -> None:
    assert kinds("FLUSHALL", "redis") == NONE
    assert kinds("db.users.drop()", "mongo") == NONE


# Generated: the same statements in every case, spacing and comment placement.

DESTRUCTIVE = [
    (["DROP", "TABLE", "users"], DROP),
    (["DROP", "DATABASE", "IF", "EXISTS", "app"], DROP),
    (["TRUNCATE", "TABLE", "orders"], TRUNCATE),
    (["TRUNCATE", "orders"], TRUNCATE),
    (["DELETE", "FROM", "sessions"], DELETE),
    (["DELETE", "FROM", "sessions", "WHERE", "1", "=", "1"], DELETE),
    (["UPDATE", "users", "SET", "admin", "=", "true"], UPDATE),
    (["WITH", "x", "AS", "(", "SELECT", "1", ")", "DELETE", "FROM", "t"], DELETE),
]
SAFE = [
    ["DELETE", "FROM", "sessions", "WHERE", "id", "=", "42"],
    ["UPDATE", "users", "SET", "admin", "=", "false", "WHERE", "id", "=", "7"],
    ["SELECT", "'DROP TABLE users'"],
    ["INSERT", "INTO", "t", "VALUES", "(", "'TRUNCATE t'", ")"],
    ["CREATE", "TABLE", "t", "(", "id", "int", ")"],
    ["SELECT", "*", "FROM", "t", "FOR", "UPDATE"],
]
SEPARATORS = [" ", "  ", "\t", "\n", " /* x */ ", "\n-- note\n", "/**/"]


def _case(word: str, rng: random.Random) -> str:
    if word.startswith("'"):
        return word
    style = rng.choice(("upper", "lower", "title", "mixed"))
    if style == "mixed":
        return "".join(char.upper() if rng.random() < 0.5 else char.lower() for char in word)
    return {"upper": word.upper(), "lower": word.lower(), "title": word.title()}[style]


def _spelled(words: list[str], rng: random.Random) -> str:
    text = _case(words[0], rng)
    for word in words[1:]:
        text += rng.choice(SEPARATORS) + _case(word, rng)
    return text


def _generated() -> list[tuple[str, frozenset[str]]]:
    rng = random.Random(32)
    cases: list[tuple[str, frozenset[str]]] = []
    for words, kind in DESTRUCTIVE:
        for _ in range(12):
            text = _spelled(words, rng)
            text = rng.choice(("", "SELECT 1; ", "-- before\n", "/* a */")) + text
            text += rng.choice(("", ";", "; SELECT 2", ";\n-- after"))
            cases.append((text, kind))
    for words in SAFE:
        for _ in range(12):
            text = _spelled(words, rng)
            text += rng.choice(("", ";", "; SELECT 2"))
            cases.append((text, NONE))
    for words, _ in DESTRUCTIVE:  # the same words commented out or quoted run nothing
        for _ in range(4):
            text = " ".join(_case(word, rng) for word in words)
            cases.append((rng.choice((f"-- {text}\nSELECT 1", f"/* {text} */ SELECT 1")), NONE))
            cases.append((f"SELECT '{text.replace(chr(39), chr(39) * 2)}'", NONE))
    return cases


GENERATED = _generated()


@pytest.mark.parametrize(("text", "expected"), GENERATED, ids=[repr(t)[:60] for t, _ in GENERATED])
def test_generated_spellings(text: str, expected: frozenset[str]) -> None:
    assert kinds(text) == expected


# Code in other languages: its string literals, when it talks to a database.

CODE = [
    ("python", 'import sqlite3; sqlite3.connect("x.db").execute("DROP TABLE t")', DROP),
    (
        "python",
        'import sqlite3; c = sqlite3.connect("x"); c.executescript("BEGIN; DELETE FROM t; COMMIT;")',
        DELETE,
    ),
    ("python", 'import sqlite3; c = sqlite3.connect("x"); c.execute(f"DELETE FROM {t}")', DELETE),
    (
        "python",
        'import sqlite3; c = sqlite3.connect("x"); c.execute("DELETE FROM " + t + " WHERE id=1")',
        NONE,
    ),
    (
        "python",
        'import sqlite3; c = sqlite3.connect("x"); c.execute("DELETE FROM %s WHERE id=%%s" % t, (1,))',
        NONE,
    ),
    ("python", 'import sqlite3; c = sqlite3.connect("x"); c.execute("SELECT * FROM t")', NONE),
    ("python", 'cur.execute("""\n  UPDATE users\n  SET admin = 1\n""")', UPDATE),
    ("python", 'print("DROP TABLE t")', NONE),
    ("python", 'import subprocess; subprocess.run(["psql", "-c", "TRUNCATE t"])', TRUNCATE),
    ("python", "x = ", NONE),
    ("javascript", 'db.query("DROP TABLE x")', DROP),
    ("javascript", "db.query(`DELETE FROM ${t} WHERE id = 1`)", NONE),
    ("javascript", "db.query(`DELETE FROM ${t}`)", DELETE),
    ("javascript", 'db.query("DELETE FROM " + t)', DELETE),
    ("javascript", 'db.query("DELETE FROM " + t + " WHERE id = " + id)', NONE),
    ("javascript", 'console.log("DROP TABLE x") // db', NONE),
    ("javascript", 'console.log("DROP TABLE x")', NONE),
    ("ruby", 'ActiveRecord::Base.connection.execute("TRUNCATE users")', TRUNCATE),
    ("ruby", 'puts "DROP TABLE users" # db', NONE),
    ("perl", '$dbh->do("DELETE FROM t")', DELETE),
    ("php", '$pdo->exec("DROP TABLE t");', DROP),
]


@pytest.mark.parametrize(("language", "text", "expected"), CODE, ids=[f"{c[0]}:{c[1][:50]}" for c in CODE])
def test_code_literals(language: str, text: str, expected: frozenset[str]) -> None:
    assert kinds(text, language) == expected


# What each client runs: `ref.code`.


def code_of(command: str, name: str) -> Code | None:
    analysis = analyze(command, cwd="/home/dev/project", home="/home/dev")
    found = [ref for ref in analysis.refs if ref.name == name]
    assert found, [ref.text for ref in analysis.refs]
    return found[-1].code


CLIENTS = [
    ("psql -c 'DROP TABLE t'", "psql", "sql", "DROP TABLE t"),
    ("psql -d app --command='SELECT 1'", "psql", "sql", "SELECT 1"),
    ("psql -c 'SELECT 1' -c 'DROP TABLE t'", "psql", "sql", "SELECT 1\n;\nDROP TABLE t"),
    ("echo 'DROP TABLE t' | psql", "psql", "sql", "DROP TABLE t\n"),
    ("psql <<'SQL'\nDROP TABLE t;\nSQL", "psql", "sql", "DROP TABLE t;\n"),
    ("psql <<SQL\nDROP TABLE $T;\nSQL", "psql", "sql", f"DROP TABLE {P};\n"),
    ("psql <<< 'TRUNCATE t'", "psql", "sql", "TRUNCATE t\n"),
    ("echo 'DROP TABLE t;' > d.sql && psql -f d.sql", "psql", "sql", "DROP TABLE t;\n"),
    ("echo 'DROP TABLE t;' > d.sql && psql -c '\\i d.sql'", "psql", "sql", "\\i d.sql\n;\nDROP TABLE t;\n"),
    ('psql -c "$SQL"', "psql", "sql", P),
    ("mysql -u root -e 'DROP DATABASE x'", "mysql", "sql", "DROP DATABASE x"),
    ('mysql -uroot -e"DROP TABLE t" shop', "mysql", "sql", "DROP TABLE t"),
    ("mysql --init-command='SET x=1' -e 'SELECT 1'", "mysql", "sql", "SET x=1\n;\nSELECT 1"),
    ("echo 'DELETE FROM t;' > d.sql && mysql shop < d.sql", "mysql", "sql", "DELETE FROM t;\n"),
    ("mariadb --execute='TRUNCATE t'", "mariadb", "sql", "TRUNCATE t"),
    ("sqlite3 app.db 'DELETE FROM t'", "sqlite3", "sql", "DELETE FROM t"),
    ("sqlite3 -cmd '.mode csv' app.db 'SELECT 1'", "sqlite3", "sql", ".mode csv\n;\nSELECT 1"),
    ("duckdb db.duckdb -c 'DROP TABLE t'", "duckdb", "sql", "DROP TABLE t"),
    ("duckdb db.duckdb 'SELECT 1'", "duckdb", "sql", "SELECT 1"),
    ("clickhouse-client --query 'DROP TABLE t'", "clickhouse-client", "sql", "DROP TABLE t"),
    ("clickhouse client -h ch -q 'TRUNCATE t'", "clickhouse", "sql", "TRUNCATE t"),
    ("clickhouse local --query='SELECT 1'", "clickhouse", "sql", "SELECT 1"),
    ("cqlsh 10.0.0.1 -e 'DROP KEYSPACE ks'", "cqlsh", "cql", "DROP KEYSPACE ks"),
    ("mongosh app --eval 'db.dropDatabase()'", "mongosh", "mongo", "db.dropDatabase()"),
    ("echo 'db.x.drop()' > w.js && mongosh app w.js", "mongosh", "mongo", "db.x.drop()\n"),
    ("mongosh app <<'EOF'\ndb.x.drop()\nEOF", "mongosh", "mongo", "db.x.drop()\n"),
    ("redis-cli -h cache -n 2 FLUSHDB", "redis-cli", "redis", "FLUSHDB"),
    ("redis-cli get flushall", "redis-cli", "redis", "get flushall"),
    ("echo FLUSHALL | redis-cli", "redis-cli", "redis", "FLUSHALL\n"),
    ("redis-cli --cluster call h:7000 FLUSHALL", "redis-cli", "redis", "FLUSHALL"),
    ("cockroach sql --insecure -e 'DROP DATABASE b'", "cockroach", "sql", "DROP DATABASE b"),
    ("bq query --nouse_legacy_sql 'DELETE FROM ds.t'", "bq", "sql", "DELETE FROM ds.t"),
    ("wrangler d1 execute db --command 'DROP TABLE t'", "wrangler", "sql", "DROP TABLE t"),
    ("heroku pg:psql -a app -c 'TRUNCATE t'", "heroku", "sql", "TRUNCATE t"),
    ("docker exec db psql -c 'DROP TABLE t'", "psql", "sql", "DROP TABLE t"),
]


@pytest.mark.parametrize(("command", "name", "language", "text"), CLIENTS, ids=[c[0][:60] for c in CLIENTS])
def test_client_queries(command: str, name: str, language: str, text: str) -> None:
    assert code_of(command, name) == Code(language=language, text=text)


@pytest.mark.parametrize(
    ("command", "name"),
    [
        ("pg_dump a | psql b", "psql"),
        ("cat dump.sql | mysql shop", "mysql"),
        ("psql app < dump.sql", "psql"),
        ("psql -f schema.sql", "psql"),
        ("psql", "psql"),
        ("psql -l", "psql"),
        ("redis-cli --scan --pattern 'k*'", "redis-cli"),
        ("redis-cli --eval cleanup.lua k , a", "redis-cli"),
        ("heroku pg:info", "heroku"),
        ("clickhouse server", "clickhouse"),
    ],
)
def test_what_rein_cannot_see_is_no_code(command: str, name: str) -> None:
    """A dump piped in, a file that is neither written by the line nor on disk, an interactive session."""
    assert code_of(command, name) is None


def test_escapes_and_queries_come_from_one_reading() -> None:
    """`psql -c '\\! cmd'` is a shell command (the escape) and the text of the query (the code)."""
    analysis = analyze(
        "psql -c '\\! rm -rf /tmp/x' -c 'DROP TABLE t'", cwd="/home/dev/project", home="/home/dev"
    )
    assert [ref.name for ref in analysis.refs] == ["psql", "rm"]
    assert analysis.refs[0].code == Code(language="sql", text="\\! rm -rf /tmp/x\n;\nDROP TABLE t")


# Files on disk: read as the line reads them.


def test_a_sql_file_on_disk_is_read(tmp_path: Path) -> None:
    project, home = tmp_path / "project", tmp_path / "home"
    project.mkdir()
    home.mkdir()
    (project / "reset.sql").write_text("-- reset\nDROP TABLE users;\n")
    (project / "report.sql").write_text("SELECT count(*) FROM users;\n")
    (project / "dump.sql").write_text("DELETE FROM cache;\n")
    engine = Steering(build_policy([]).policy)

    def check(command: str) -> tuple[bool, str | None]:
        context = Context(
            cwd=str(project), home=str(home), env={"HOME": str(home)}, branch="feature",
            entries=MemoryEntries(), files=HostFiles(),
        )  # fmt: skip
        verdict = engine.evaluate(ToolCall(tool="bash", command=command), context)
        return verdict.allow, verdict.rule

    assert check("psql -f reset.sql") == (False, "database-drop")
    assert check("psql app < reset.sql") == (False, "database-drop")
    assert check("mysql shop -e 'source reset.sql'") == (False, "database-drop")
    assert check("sqlite3 app.db < dump.sql") == (False, "database-delete-all")
    assert check("psql -f report.sql") == (True, None)
    assert check("psql -f missing.sql") == (True, None)


# Cost.


def test_sqlparse_is_imported_only_for_sql_that_could_be_destructive() -> None:
    script = (
        "import sys\n"
        "from rein.steering.bash import Code\n"
        "from rein.steering._sql import sql_kinds\n"
        "assert sql_kinds(Code(language='sql', text='SELECT * FROM t WHERE a = 1')) == frozenset()\n"
        "assert sql_kinds(Code(language='python', text='print(1)')) == frozenset()\n"
        "assert 'sqlparse' not in sys.modules\n"
        "sql_kinds(Code(language='sql', text='DROP TABLE t'))\n"
        "assert 'sqlparse' in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", script], check=True)


def test_a_large_dump_is_read_quickly() -> None:
    function = (
        "CREATE FUNCTION f() RETURNS void AS $$\nBEGIN\n  DELETE FROM log;\nEND;\n$$ LANGUAGE plpgsql;\n"
    )
    rows = "INSERT INTO t (a, b) VALUES (1, 'update me'), (2, 'x');\n" * 20_000
    started = time.perf_counter()
    assert kinds(function + rows) == NONE
    assert kinds(function + rows + "DROP TABLE IF EXISTS old;\n" + rows[:500]) == DROP
    assert time.perf_counter() - started < 2.0
