"""The database clients `_queries` reads from a table: which options hold a query, which a file of
queries, which other options take a value (so it is not read as an operand), and whether the client
reads its queries on stdin when given none. Also redis-cli's options.

Sources: each tool's `--help` and manual: clickhouse-client and clickhouse-local (boost
program_options: `--name value` or `--name=value`), cqlsh (Cassandra 4/5 `cqlsh --help`), `cockroach
sql`, usql, mycli, litecli, `sqlcmd` (go-sqlcmd and ODBC), snowsql, trino/presto, beeline, hive,
spark-sql, impala-shell, sqlplus (`@file` runs a script), `heroku pg:psql`, `wrangler d1 execute`,
`bq query` (the query is the operand, or stdin), `turso db shell DB [SQL]`; redis-cli 7's
`parseOptions` (redis-cli.c): options stop at the first word that is not one, which starts the command.
"""

from __future__ import annotations

from dataclasses import dataclass, replace


def _set(names: str) -> frozenset[str]:
    return frozenset(names.split())


@dataclass(frozen=True, slots=True)
class Client:
    """How one client takes its queries."""

    texts: frozenset[str] = frozenset()
    """Options whose value is query text (`-e`, `--execute`); a short one may be attached (`-eSQL`)."""
    files: frozenset[str] = frozenset()
    """Options whose value is a file of queries; `-` is stdin."""
    values: frozenset[str] = frozenset()
    """Other options that take the next word as their value."""
    stdin: bool = True
    """With no query or file given, it reads its queries on stdin."""
    words: tuple[str, ...] = ()
    """The subcommand words right after the program (`cockroach sql`, `wrangler d1 execute`)."""
    positional: int = -1
    """Operands from this one on are the query (`bq query 'SQL'`: 0); -1: none."""
    at_files: bool = False
    """An operand `@file` runs the file (sqlplus)."""
    language: str = "sql"


_CLICKHOUSE = Client(
    texts=_set("-q --query"),
    files=_set("--queries-file"),
    values=_set("-h --host --port -u --user --password -d --database -f --format -C --config-file --config"),
)
_CLICKHOUSE_LOCAL = Client(
    texts=_set("-q --query"),
    files=_set("--queries-file"),
    values=_set("--path -S --structure --input-format --output-format --table -N --file -F --format"),
    stdin=False,  # clickhouse-local reads data, not queries, on stdin
)
_HIVE_VALUES = _set("--hiveconf --hivevar -d --define --database -i")

CLIENTS: tuple[tuple[str, Client], ...] = (
    ("clickhouse-client", _CLICKHOUSE),
    ("clickhouse", replace(_CLICKHOUSE, words=("client",))),
    ("clickhouse-local", _CLICKHOUSE_LOCAL),
    ("clickhouse", replace(_CLICKHOUSE_LOCAL, words=("local",))),
    (
        "cqlsh",
        Client(
            texts=_set("-e --execute"),
            files=_set("-f --file"),
            values=_set(
                "-u --username -p --password -k --keyspace --cqlshrc --cqlversion --protocol-version "
                "--connect-timeout --request-timeout --encoding -b --secure-connect-bundle"
            ),
            language="cql",
        ),
    ),
    (
        "cockroach",
        Client(
            texts=_set("-e --execute"),
            files=_set("-f --file"),
            values=_set("--url --host --port -p --user -u --database -d --certs-dir --format --set --watch"),
            words=("sql",),
        ),
    ),
    (
        "usql",
        Client(
            texts=_set("-c --command"), files=_set("-f --file"), values=_set("-o --out -v --set -P --pset")
        ),
    ),
    (
        "mycli",
        Client(
            texts=_set("-e --execute"),
            values=_set(
                "-h --host -P --port -u --user -S --socket -D --database --login-path --myclirc --dsn"
            ),
        ),
    ),
    ("litecli", Client(texts=_set("-e --execute"), values=_set("-D --database --liteclirc"))),
    (
        "sqlcmd",
        Client(
            texts=_set("-Q -q --query"),
            files=_set("-i --input-file"),
            values=_set("-S --server -U --user-name -P --password -d --database-name -o --output-file")
            | _set("-s -w -h -t -l -v"),
        ),
    ),
    (
        "snowsql",
        Client(
            texts=_set("-q --query"),
            files=_set("-f --filename"),
            values=_set(
                "-a --accountname -u --username -d --dbname -s --schemaname -r --rolename -w --warehouse "
                "-c --connection -o --option -D --variable --config --authenticator --private-key-path"
            ),
        ),
    ),
    *(
        (
            name,
            Client(
                texts=_set("--execute"),
                files=_set("-f --file"),
                values=_set(
                    "--server --catalog --schema --user --session --output-format --source --client-tags"
                ),
            ),
        )
        for name in ("trino", "presto")
    ),
    (
        "beeline",
        Client(
            texts=_set("-e"), files=_set("-f -i --init"), values=_set("-u -n -p -d -w --hivevar --hiveconf")
        ),
    ),
    ("hive", Client(texts=_set("-e"), files=_set("-f -i"), values=_HIVE_VALUES, stdin=False)),
    (
        "spark-sql",
        Client(
            texts=_set("-e"),
            files=_set("-f -i"),
            values=_set("--master --conf --name -d --database"),
            stdin=False,
        ),
    ),
    (
        "impala-shell",
        Client(
            texts=_set("-q --query"),
            files=_set("-f --query_file"),
            values=_set("-i --impalad -d --database -o --output_file -u --user"),
            stdin=False,
        ),
    ),
    ("sqlplus", Client(at_files=True)),
    (
        "heroku",
        Client(
            texts=_set("-c --command"),
            files=_set("-f --file"),
            values=_set("-a --app -r --remote --credential"),
            words=("pg:psql",),
        ),
    ),
    (
        "wrangler",
        Client(
            texts=_set("--command"),
            files=_set("--file"),
            values=_set("--env -e --config -c --persist-to --batch-size"),
            words=("d1", "execute"),
            stdin=False,
        ),
    ),
    (
        "bq",
        Client(
            values=_set("--project_id --dataset_id --location --destination_table --parameter --max_rows")
            | _set("-n --format --job_id"),
            words=("query",),
            positional=0,
        ),
    ),
    ("turso", Client(words=("db", "shell"), positional=1, values=_set("--instance --location"))),
)
"""Each client by command name; a name may have several subcommand forms (`clickhouse client`)."""

REDIS_VALUES = _set(
    "-h -p -s -a -u -r -i -n -d -D -t -X --user --pass --sni --cacert --cacertdir --cert --key --tls-ciphers "
    "--tls-ciphersuites --lru-test --rdb --functions-rdb --pipe-timeout --memkeys-samples --keystats-samples "
    "--pattern --quoted-pattern --count --cursor --top --intrinsic-latency --show-pushes"
)
"""redis-cli options that take the next word."""
REDIS_MODES = _set(
    "--stat --latency --latency-history --latency-dist --lru-test --replica --rdb --functions-rdb --pipe "
    "--bigkeys --memkeys --hotkeys --keystats --scan --intrinsic-latency --help --version"
)
"""redis-cli modes that run no command of the caller's (`--pipe` reads the protocol on stdin)."""
