"""What a database client runs: the queries and client commands it reads from its options, from the
files it is told to run and from standard input, in one place for the rules (`ref.code`, with
`queries`) and for the shell escapes of `_consoles` (`psql -c '\\! cmd'`).

Each client is read as its own parser reads it: `psql` (`-c`, `-f`, stdin; `\\i` includes),
`mysql`/`mariadb` (`-e`, `--init-command`, stdin, `mysql db < f.sql`; `source` includes), `sqlite3`
and `duckdb` (SQL operands after the database, `-cmd`, duckdb's `-c`/`-s`/`-f`, `-init`, stdin;
`.read` includes), `clickhouse-client`/`clickhouse client`/`local` (`-q`, `--queries-file`, stdin),
`cqlsh` (`-e`, `-f`, stdin; `SOURCE`), `mongosh`/`mongo` (`--eval`, `-f`, `.js` operands, stdin),
`redis-cli` and its forks (the command in its argv, `--cluster call`, `--eval` scripts, stdin lines),
and a table of clients that take a query or a file in an option (`_query_clients`).

The text is `Code(language=...)`: `sql`, `cql`, `mongo` (mongosh's JavaScript) or `redis` (command
lines). Separate query texts are joined as separate statements. A part only known at run time is
`PLACEHOLDER` (`psql -c "$SQL"`); so is a variable in an unquoted heredoc. What the client reads that
rein cannot see is left out, and with nothing left `code` is None: data, not asked about. That is a
pipe from another program (`pg_dump a | psql b`, `cat dump.sql | mysql`), a file this line did not
write and that is not on disk (or is past rein's read budget), and an interactive session. A file the
line wrote with content rein cannot know makes the command unknown through `_consoles`' notes.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from rein.steering.bash._words import tail
from rein.steering.bash.commands._inner import PLACEHOLDER, Call, text_of
from rein.steering.bash.commands._options import parse
from rein.steering.bash.commands._query_clients import CLIENTS, REDIS_MODES, REDIS_VALUES, Client
from rein.steering.bash.commands._sources import file_text, stdin_text
from rein.steering.bash.commands._tables import spec
from rein.steering.bash.model import Code, Unknown, Word


@dataclass(frozen=True, slots=True)
class Read:
    """The texts a client runs, in order, and why part of what it runs is not known."""

    texts: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()


def given(words: Iterable[Word]) -> list[str]:
    """Option values as texts, their run-time parts as `PLACEHOLDER`."""
    return [text_of((word,))[0] for word in words]


def read_file(call: Call, word: Word, what: str, *, disk: bool = False) -> tuple[list[str], list[str]]:
    """A file the client reads commands from: when this line wrote it, or (with `disk`) on disk."""
    text, note = file_text(call, word, what, disk=disk)
    return ([text] if text is not None else []), ([note] if note else [])


_EXPANSION = re.compile(r"\$\{[^}]*\}|\$\([^)]*\)|\$[A-Za-z_][A-Za-z0-9_]*|\$[0-9@*#?$!-]|`[^`]*`")


def read_stdin(call: Call, *, disk: bool = False) -> list[str]:
    """What the client reads on stdin, when rein can read it (a dump piped from elsewhere is not). A
    heredoc whose variables rein cannot know is read as written, each expansion a placeholder."""
    stdin = call.stdin
    if stdin is not None and stdin.kind in ("heredoc", "herestring") and isinstance(stdin.content, Unknown):
        return [_EXPANSION.sub(PLACEHOLDER, stdin.text)]
    text, _ = stdin_text(call, disk=disk)
    return [text] if text is not None else []


def _files(call: Call, words: Iterable[Word], disk: bool) -> tuple[list[str], list[str]]:
    """The texts of files named by option values; `-` is stdin."""
    texts: list[str] = []
    notes: list[str] = []
    for word in words:
        more, why = (
            read_file(call, word, "commands", disk=disk)
            if word.value != "-"
            else (read_stdin(call, disk=disk), [])
        )
        texts += more
        notes += why
    return texts, notes


_INCLUDES = {
    "psql": re.compile(r"^[ \t]*\\(?:i|include|ir|include_relative)[ \t]+('[^']*'|\S+)", re.MULTILINE),
    "mysql": re.compile(
        r"^[ \t]*(?:source|\\\.)[ \t]+('[^']*'|\"[^\"]*\"|[^;\s]+)", re.MULTILINE | re.IGNORECASE
    ),
    "sqlite3": re.compile(r"^[ \t]*\.read[ \t]+('[^'|]*'|\"[^\"|]*\"|[^\s|'\"]\S*)", re.MULTILINE),
    "cql": re.compile(r"^[ \t]*source[ \t]+'([^']*)'", re.MULTILINE | re.IGNORECASE),
}
"""The client commands that run another file (`\\i f.sql`, `source f.sql`, `.read f.sql`)."""


def _included(call: Call, read: Read, dialect: str, disk: bool) -> Read:
    """`read` with the files its texts include put after them (twelve at most, so a file that includes
    itself ends); `\\ir`'s path is read from the cwd, not from the including file's directory."""
    pattern = _INCLUDES[dialect]
    texts, notes = list(read.texts), list(read.notes)
    pending, seen = list(texts), 0
    while pending and seen < 12:
        text = pending.pop(0)
        for match in pattern.finditer(text):
            seen += 1
            name = match[1].strip("'\"")
            more, why = read_file(call, Word.literal(name), "commands", disk=disk)
            texts += more
            notes += why
            pending += more
    return Read(tuple(texts), tuple(notes))


def read_psql(call: Call, *, disk: bool = False) -> Read:
    """`psql -c SQL`, `-f file` (both may repeat, in order), else stdin."""
    parsed = parse(call.argv, 1, spec("psql"))
    texts: list[str] = []
    notes: list[str] = []
    for name, value in parsed.options:
        if value is None:
            continue
        if name in ("-c", "--command"):
            texts += given([value])
        elif name in ("-f", "--file"):
            more, why = _files(call, [value], disk)
            texts, notes = texts + more, notes + why
    if not parsed.has("-c", "--command", "-f", "--file"):
        texts += read_stdin(call, disk=disk)
    return _included(call, Read(tuple(texts), tuple(notes)), "psql", disk)


_MYSQL_BUNDLE = re.compile(r"-[ABCEGHINLUVWXabcfginoqrstvwx]*e")
"""mysql's `-e` after short options that take no value (`-sNe`), its value attached or the next word."""


def read_mysql(call: Call, *, disk: bool = False) -> Read:
    """`mysql -e SQL` (also `--execute`, a unique prefix of it, `-eSQL`, `-sNe SQL`) and
    `--init-command`, else stdin (`mysql db < dump.sql`)."""
    argv = call.argv
    texts: list[str] = []
    executes = False
    for index, word in enumerate(argv[1:], start=1):
        name, eq, _ = word.value.partition("=")
        following = argv[index + 1] if index + 1 < len(argv) else None
        if name == "-e" or (len(name) > 4 and "--execute".startswith(name)):
            executes = True
            value = tail(word, len(name) + 1) if eq else following
            texts += given([value] if value is not None else [])
        elif (bundle := _MYSQL_BUNDLE.match(word.value)) is not None:  # `-eSQL`, `-sNe SQL`
            executes = True
            value = tail(word, bundle.end()) if bundle.end() < len(word.value) else following
            texts += given([value] if value is not None else [])
        elif name == "--init-command":
            value = tail(word, len(name) + 1) if eq else following
            texts += given([value] if value is not None else [])
    if not executes:
        texts += read_stdin(call, disk=disk)
    return _included(call, Read(tuple(texts)), "mysql", disk)


_SQLITE_VALUES = frozenset({
    "cmd", "init", "separator", "newline", "nullvalue", "vfs", "maxsize", "mmap", "pagecache",
    "lookaside", "heap", "escape", "key", "hexkey", "textkey", "zipvfs", "ifexists",
})  # fmt: skip
"""sqlite3 options that take the next word (with one dash or two)."""
_DUCKDB_VALUES = frozenset({
    "cmd", "c", "s", "f", "init", "separator", "newline", "nullvalue", "storage-version", "format-file",
})  # fmt: skip
"""duckdb's: its shell is sqlite's, with `-c`/`-s` (run a command and exit) and `-f` (a file)."""


def read_sqlite(call: Call, *, disk: bool = False) -> Read:
    """`sqlite3 [options] db [SQL...]` (and `duckdb`): each SQL operand and `-cmd` may be a
    dot-command; `-init` runs a file first; without SQL, stdin is read."""
    argv = call.argv
    duckdb = call.name == "duckdb"
    values = _DUCKDB_VALUES if duckdb else _SQLITE_VALUES
    texts: list[str] = []
    notes: list[str] = []
    operands: list[Word] = []
    exits = False
    index = 1
    while index < len(argv):
        word = argv[index]
        index += 1
        name = word.value.lstrip("-")
        if not word.value.startswith("-") or word.value == "-" or word.dynamic:
            operands.append(word)
        elif name == "no-stdin" and duckdb:
            exits = True
        elif name in values and index < len(argv):
            value = argv[index]
            if name in ("cmd", "c", "s"):
                texts += given([value])
                exits = exits or name != "cmd"
            elif name in ("init", "f"):
                more, why = read_file(call, value, "commands", disk=disk)
                texts, notes = texts + more, notes + why
                exits = exits or name == "f"
            index += 1
    texts += given(operands[1:])
    if len(operands) < 2 and not exits:
        texts += read_stdin(call, disk=disk)
    return _included(call, Read(tuple(texts), tuple(notes)), "sqlite3", disk)


def _read_client(call: Call, client: Client, disk: bool) -> Read:
    """A client of the table: its query options, file options and (without either) stdin."""
    argv = call.argv
    start = 1 + len(client.words)
    if [word.value for word in argv[1:start]] != list(client.words):
        return Read()
    texts: list[str] = []
    notes: list[str] = []
    operands: list[Word] = []
    index = start
    while index < len(argv):
        word = argv[index]
        value = word.value
        index += 1
        name, eq, _ = value.partition("=")
        if not value.startswith("-") or value == "-" or word.dynamic:
            operands.append(word)
            continue
        attached = tail(word, len(name) + 1) if eq and name.startswith("--") else None
        if attached is None and not value.startswith("--") and len(value) > 2 and value[:2] in client.texts:
            attached, name = tail(word, 2), value[:2]
        if attached is None and name in (client.texts | client.files | client.values) and index < len(argv):
            attached = argv[index]
            index += 1
        if attached is None:
            continue
        if name in client.texts:
            texts += given([attached])
        elif name in client.files:
            more, why = _files(call, [attached], disk)
            texts, notes = texts + more, notes + why
    if client.at_files:
        for word in operands:
            if word.value.startswith("@") and len(word.value) > 1:
                more, why = read_file(call, tail(word, 1), "commands", disk=disk)
                texts, notes = texts + more, notes + why
    elif client.positional >= 0 and len(operands) > client.positional:
        texts.append(text_of(operands[client.positional :])[0])
    if not texts and not notes and client.stdin:
        texts += read_stdin(call, disk=disk)
    found = Read(tuple(texts), tuple(notes))
    return _included(call, found, client.language, disk) if client.language == "cql" else found


_JS_FILE = re.compile(r"\.(?:c|m)?js$|\.mongodb$")
_MONGO_VALUES = frozenset({
    "--host", "--port", "-u", "--username", "-p", "--password", "--authenticationDatabase",
    "--authenticationMechanism", "--awsIamSessionToken", "--gssapiServiceName", "--sspiRealmOverride",
    "--tlsCAFile", "--tlsCertificateKeyFile", "--tlsCertificateKeyFilePassword", "--tlsCRLFile",
    "--tlsCertificateSelector", "--tlsDisabledProtocols", "--apiVersion", "--oidcFlows", "--oidcRedirectUri",
    "--browser", "--csfleLibraryPath", "--cryptSharedLibPath", "--keyVaultNamespace", "--kmsURL",
    "--awsAccessKeyId", "--awsSecretAccessKey", "--awsSessionToken",
})  # fmt: skip


def read_mongo(call: Call, *, disk: bool = False) -> Read:
    """`mongosh [options] [address] [file.js ...]`: `--eval` code (repeatable), `-f`/`--file` and
    operands ending in `.js`; without any, stdin (also with `--shell`)."""
    argv = call.argv
    texts: list[str] = []
    notes: list[str] = []
    shell = False
    index = 1
    while index < len(argv):
        word = argv[index]
        value = word.value
        index += 1
        name, eq, _ = value.partition("=")
        if name in ("--eval", "-f", "--file"):
            target = tail(word, len(name) + 1) if eq else (argv[index] if index < len(argv) else None)
            index += 0 if eq else 1
            if target is None:
                continue
            if name == "--eval":
                texts += given([target])
            else:
                more, why = read_file(call, target, "a script", disk=disk)
                texts, notes = texts + more, notes + why
        elif name in _MONGO_VALUES and not eq:
            index += 1
        elif value == "--shell":
            shell = True
        elif not value.startswith("-") and _JS_FILE.search(value):
            more, why = read_file(call, word, "a script", disk=disk)
            texts, notes = texts + more, notes + why
    if shell or (not texts and not notes):
        texts += read_stdin(call, disk=disk)
    return Read(tuple(texts), tuple(notes))


def read_redis(call: Call, *, disk: bool = False) -> Read:
    """`redis-cli [options] cmd args...`: the command words, one line; `--cluster call host:port cmd`
    runs it on every node; `--eval script.lua` runs the script; no command reads command lines (or,
    with `--pipe`, the protocol) on stdin."""
    argv = call.argv
    index = 1
    mode = False
    while index < len(argv):
        word = argv[index]
        value = word.value
        if not value.startswith("-") or word.dynamic or value == "-":
            break
        index += 1
        if value == "--cluster":
            if index < len(argv) and argv[index].value == "call":
                index += 2  # `call host:port`: the command follows
                break
            return Read()
        if value == "--eval" and index < len(argv):
            more, why = read_file(call, argv[index], "a script", disk=disk)
            return Read(tuple(more), tuple(why))  # the words after the script are its keys and arguments
        if value in REDIS_MODES:
            mode = True
        if value in REDIS_VALUES:
            index += 1
    command = argv[index:]
    if command:
        return Read((text_of(command)[0],))
    if mode and "--pipe" not in (word.value for word in argv):
        return Read()
    return Read(tuple(read_stdin(call, disk=disk)))


Reader = Callable[..., Read]
_SPECIAL: dict[str, tuple[str, Reader]] = {
    "psql": ("sql", read_psql),
    "mysql": ("sql", read_mysql),
    "mariadb": ("sql", read_mysql),
    "sqlite3": ("sql", read_sqlite),
    "duckdb": ("sql", read_sqlite),
    "mongosh": ("mongo", read_mongo),
    "mongo": ("mongo", read_mongo),
    "redis-cli": ("redis", read_redis),
    "valkey-cli": ("redis", read_redis),
    "keydb-cli": ("redis", read_redis),
}
QUERY_CLIENTS = frozenset(_SPECIAL) | frozenset(name for name, _ in CLIENTS)
"""The command names whose queries `queries` reads."""
_BY_NAME: dict[str, tuple[Client, ...]] = {}
for _name, _client in CLIENTS:
    _BY_NAME[_name] = (*_BY_NAME.get(_name, ()), _client)


def queries(call: Call) -> Code | None:
    """What the database client `call` runs, as code for rules to read (disk included); None when it
    is no client rein reads, or when it runs nothing rein can see."""
    special = _SPECIAL.get(call.name)
    if special is not None:
        language, reader = special
        found = reader(call, disk=True)
    else:
        language, found = "sql", Read()
        for client in _BY_NAME.get(call.name, ()):
            found = _read_client(call, client, True)
            language = client.language
            if found.texts:
                break
    if not found.texts:
        return None
    joiner = "\n;\n" if language in ("sql", "cql") else "\n"
    return Code(language=language, text=joiner.join(found.texts))
