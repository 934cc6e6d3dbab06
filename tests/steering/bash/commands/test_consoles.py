"""Clients with a shell escape in their command language: psql, mysql, sqlite3, ftp, sftp, lftp. Their
commands come from options, a file the line wrote, or stdin rein can read; a dump piped in is data."""

from __future__ import annotations

import pytest

from tests.steering.bash.commands._runs import chains, inner, unknown

PUSH = "git push -f"


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        (f"psql -c '\\! {PUSH}'", [(PUSH, ("psql",))]),
        (f"psql --command='select 1' --command '\\! {PUSH}'", [(PUSH, ("psql",))]),
        (f"psql <<< '\\! {PUSH}'", [(PUSH, ("psql",))]),
        (f"psql app <<'SQL'\nselect 1;\n\\! {PUSH}\nSQL", [(PUSH, ("psql",))]),
        (f"psql -c 'select 1 \\g |{PUSH}'", [(PUSH, ("psql",))]),
        (f"psql -o '|{PUSH}' -c 'select 1'", [(PUSH, ("psql",))]),
        (f"psql -c \"\\copy t to program '{PUSH}'\"", [(PUSH, ("psql",))]),
        (f"printf '\\\\! {PUSH}\\n' > x.sql && psql -f x.sql", [(PUSH, ("psql",))]),
        (f"mysql -e 'system {PUSH}'", [(PUSH, ("mysql",))]),
        (f"mysql -e 'select 1; system {PUSH}'", [(PUSH, ("mysql",))]),
        (f"mysql --execute='\\! {PUSH}'", [(PUSH, ("mysql",))]),
        (f"mysql <<< '\\! {PUSH}'", [(PUSH, ("mysql",))]),
        (f"mariadb -e 'pager {PUSH}'", [(PUSH, ("mariadb",))]),
        (f"sqlite3 db '.shell {PUSH}'", [(PUSH, ("sqlite3",))]),
        (f"sqlite3 -cmd '.system {PUSH}' db", [(PUSH, ("sqlite3",))]),
        (f"sqlite3 db \".once '|{PUSH}'\" 'select 1'", [(PUSH, ("sqlite3",))]),
        (f"sqlite3 db <<< '.system {PUSH}'", [(PUSH, ("sqlite3",))]),
        (f"ftp host <<< '!{PUSH}'", [(PUSH, ("ftp",))]),
        (f"ftp host <<< 'get README \"|{PUSH}\"'", [(PUSH, ("ftp",))]),
        (f"sftp -b - host <<< '!{PUSH}'", [(PUSH, ("sftp",))]),
        (f"sftp -o 'ProxyCommand={PUSH}' host", [(PUSH, ("sftp -o",))]),
        (f"lftp -c '!{PUSH}'", [(PUSH, ("lftp",))]),
        (f"lftp -e 'open host; ls | {PUSH}; bye'", [(PUSH, ("lftp",))]),
    ],
)
def test_a_shell_escape_runs_its_command(source: str, expected: list[tuple[str, tuple[str, ...]]]) -> None:
    assert chains(source) == expected


def test_sql_copy_to_program_runs_on_the_server() -> None:
    assert chains("psql -c \"COPY t TO PROGRAM 'rm -rf /'\"") == [("rm -rf /", ("psql",))]


@pytest.mark.parametrize(
    "source",
    [
        "psql -c 'select 1'",
        "psql -U postgres -d app -f migrations/001.sql",
        'psql "$DATABASE_URL" -c "select * from $TABLE"',
        "cat dump.sql | psql app",
        "pg_dump src | psql dst",
        "psql app < dump.sql",
        "mysql -u root -e 'show databases'",
        "mysql app < dump.sql",
        "sqlite3 app.db .schema 'select * from users'",
        "ftp host",
        "lftp -c 'open host; mirror -R dist /www'",
    ],
)
def test_sql_and_transfers_are_data(source: str) -> None:
    assert inner(source) == [] and not unknown(source)


def test_an_escape_with_a_dynamic_command_is_unknown() -> None:
    assert unknown('psql -c "\\! $CMD"')
    assert unknown('sqlite3 db ".shell $CMD"')
