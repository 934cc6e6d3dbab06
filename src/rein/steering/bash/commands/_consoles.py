"""Database and file-transfer clients whose command language has a shell escape: `psql` (`\\!`, `\\o
|cmd`, `\\copy ... program`), `mysql`/`mariadb` (`system`, `\\!`, `pager`), `sqlite3` (`.shell`,
`.system`, `.once |cmd`), `ftp`/`sftp` (`!cmd`) and `lftp` (`!cmd`, `cmd | shell`).

Their commands come from options (`psql -c`, `mysql -e`, `sqlite3 db 'SQL'`, `lftp -c`), a file the
line wrote (`psql -f`), or standard input rein can read (a heredoc, a here-string, `echo ... |`). A
dump piped in from elsewhere is data rein cannot see, as the SQL a server runs is: it is not read.
What the database clients read is read by `_queries`, the same reading the rules get as `ref.code`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

from rein.steering.bash._words import tail
from rein.steering.bash.commands._inner import PLACEHOLDER, Call, Inner, Mode, Unwrapped
from rein.steering.bash.commands._options import parse
from rein.steering.bash.commands._queries import (
    given,
    read_file,
    read_mysql,
    read_psql,
    read_sqlite,
    read_stdin,
)
from rein.steering.bash.commands._subcommand_runs import Handler
from rein.steering.bash.commands._tables import spec

Escape = tuple[str, Mode]
"""A shell command a client runs, and where (`remote`: the database server runs it)."""
Finder = Callable[[str], Iterable[Escape]]


def escapes(label: str, texts: Iterable[str], finder: Finder, notes: Iterable[str] = ()) -> Unwrapped:
    """The shell commands `finder` reads in each text. A command with a part only known at run time
    (`PLACEHOLDER`) makes the client unknown."""
    inners: list[Inner] = []
    found_notes = list(notes)
    for text in texts:
        for command, mode in finder(text):
            if not command.strip():
                continue
            inners.append(Inner(label, mode, script=command, why=f"{label} runs it as a shell command"))
            if PLACEHOLDER in command:
                found_notes.append(f"{label} runs a shell command that is not known statically")
    return Unwrapped(tuple(inners), tuple(dict.fromkeys(found_notes)))


_PSQL_SHELL = re.compile(r"\\!(.*)$", re.MULTILINE)
_PSQL_PIPE = re.compile(r"\\(?:o|out|g|gx|w|write)\s*\|(.*)$", re.MULTILINE)
_PSQL_PAGER = re.compile(r"\\setenv\s+(?:PAGER|PSQL_PAGER|PSQL_EDITOR|EDITOR|VISUAL)\s+(.*)$", re.MULTILINE)
_PROGRAM = re.compile(r"\b(\\?copy)\b[^;]*?\bprogram\s+'((?:[^']|'')*)'", re.IGNORECASE)


def _psql_escapes(text: str) -> Iterable[Escape]:
    for match in (*_PSQL_SHELL.finditer(text), *_PSQL_PIPE.finditer(text), *_PSQL_PAGER.finditer(text)):
        yield _unquote(match[1].strip()), "child"
    for match in _PROGRAM.finditer(text):  # `\copy` runs the program here, SQL `COPY` on the server
        yield match[2].replace("''", "'"), "child" if match[1].startswith("\\") else "remote"


def _unquote(text: str) -> str:
    """psql's argument quoting: a value in single quotes is that value."""
    return text[1:-1].replace("''", "'") if len(text) > 1 and text[0] == text[-1] == "'" else text


def psql(call: Call) -> Unwrapped:
    """`psql -c '\\! cmd'`, `-f file`, stdin; `-o '|cmd'` writes the output to a command."""
    read = read_psql(call)
    parsed = parse(call.argv, 1, spec("psql"))
    output = [word for word in parsed.values("-o", "--output") if word.value.startswith("|")]
    texts = [*read.texts, *(f"\\o {value}" for value in given(output))]
    return escapes("psql", texts, _psql_escapes, read.notes)


_MYSQL_COMMAND = re.compile(r"^\s*(?:system|pager)\s+(.*?);?\s*$", re.IGNORECASE)
_MYSQL_SHORT = re.compile(r"\\[!P]\s*(.*?);?\s*$")


def _mysql_escapes(text: str) -> Iterable[Escape]:
    for line in text.splitlines():
        for statement in line.split(";"):
            match = _MYSQL_COMMAND.match(statement)
            if match is not None:
                yield match[1], "child"
        for match in _MYSQL_SHORT.finditer(line):
            yield match[1], "child"


def mysql(call: Call) -> Unwrapped:
    """`mysql -e 'system cmd'` (also `--execute`, a unique prefix of it, and stdin); `--pager=cmd`."""
    texts = list(read_mysql(call).texts)
    for word in call.argv[1:]:
        name, eq, _ = word.value.partition("=")
        if name == "--pager" and eq:
            texts += [f"pager {value}" for value in given([tail(word, len(name) + 1)])]
    return escapes(call.name, texts, _mysql_escapes)


_SQLITE_SHELL = re.compile(r"^\s*\.(?:shell|system)\s+(.*)$", re.MULTILINE)
_SQLITE_PIPE = re.compile(
    r"^\s*\.(?:once|output|read|import|excel)\b[^\n|]*?['\"]?\|([^'\"\n]*)", re.MULTILINE
)


def _sqlite_escapes(text: str) -> Iterable[Escape]:
    for match in (*_SQLITE_SHELL.finditer(text), *_SQLITE_PIPE.finditer(text)):
        yield match[1], "child"


def sqlite3(call: Call) -> Unwrapped:
    """`sqlite3 [options] db [SQL...]`: each SQL argument (and `-cmd`) may be a dot-command; without
    one, stdin is read."""
    read = read_sqlite(call)
    return escapes("sqlite3", read.texts, _sqlite_escapes, read.notes)


_FTP_SHELL = re.compile(r"^\s*!(.*)$", re.MULTILINE)
_FTP_PIPE = re.compile(
    r"^\s*(?:get|recv|put|send|append|ls|dir|nlist|mls|mdir|mget|mput)\b.*?\s['\"]?\|(.*?)['\"]?\s*$",
    re.MULTILINE,
)


def _ftp_escapes(text: str) -> Iterable[Escape]:
    for match in (*_FTP_SHELL.finditer(text), *_FTP_PIPE.finditer(text)):
        yield match[1], "child"


def ftp(call: Call) -> Unwrapped:
    """`ftp`/`sftp` read commands on stdin (or `sftp -b file`): `!cmd` runs cmd in a local shell, and
    a local file name `|cmd` is a command. `sftp -o ProxyCommand=...` runs a local command like ssh."""
    argv = call.argv
    texts: list[str] = []
    notes: list[str] = []
    batch = [argv[index + 1] for index, word in enumerate(argv[:-1]) if word.value == "-b" and index > 0]
    for word in batch:
        more, why = read_file(call, word, "commands") if word.value != "-" else (read_stdin(call), [])
        texts, notes = texts + more, notes + why
    if not batch:
        texts += read_stdin(call)
    found = escapes(call.name, texts, _ftp_escapes, notes)
    local = [
        Inner(f"{call.name} -o", "maybe", script=value.partition("=")[2])
        for index, word in enumerate(argv[:-1])
        if word.value == "-o"
        for value in (argv[index + 1].value,)
        if value.lower().startswith(("proxycommand=", "localcommand=", "knownhostscommand="))
    ]
    return Unwrapped((*found.inners, *local), found.notes)


def _lftp_escapes(text: str) -> Iterable[Escape]:
    for line in re.split(r"[\n;]", text):
        stripped = line.strip()
        if stripped.startswith("!"):
            yield stripped[1:], "child"
        elif re.match(r"source\s+-e\s", stripped):
            yield stripped.split(None, 2)[2], "child"
        elif "|" in stripped:
            yield stripped.partition("|")[2], "child"


def lftp(call: Call) -> Unwrapped:
    """`lftp -c 'cmds'`, `-e 'cmds'`, `-f file`, stdin: `!cmd` runs a shell command, `cmd | shell-cmd`
    pipes into one, `source -e cmd` runs one and reads its output as commands."""
    argv = call.argv
    texts: list[str] = []
    notes: list[str] = []
    for index, word in enumerate(argv[1:], start=1):
        following = argv[index + 1] if index + 1 < len(argv) else None
        if word.value in ("-c", "-e") and following is not None:
            texts += given([following])
        elif word.value == "-f" and following is not None:
            more, why = read_file(call, following, "commands")
            texts, notes = texts + more, notes + why
    if not any(word.value in ("-c", "-f") for word in argv[1:]):
        texts += read_stdin(call)
    return escapes("lftp", texts, _lftp_escapes, notes)


HANDLERS: dict[str, Handler] = {
    "psql": psql,
    "mysql": mysql,
    "mariadb": mysql,
    "sqlite3": sqlite3,
    "ftp": ftp,
    "tnftp": ftp,
    "sftp": ftp,
    "lftp": lftp,
}
"""Database and file-transfer clients by command name."""
