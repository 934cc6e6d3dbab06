"""A throwaway PostgreSQL server for tests: `initdb` and `pg_ctl` in a temp dir, on a free port.

    with start_postgres() as dsn:              # "postgresql://rein@127.0.0.1:PORT/rein"
        url = new_database(dsn)                # a fresh, empty database on the same server
    with running_postgres() as pg:             # the same, for tests that stop the database
        pg.restart()                           # a crash (`-m immediate`), then a start on the same port

PostgreSQL refuses to run as root, so under root the binaries run as the `postgres` account (the
Debian package creates it) through `runuser`, with the data and socket dirs in a temp dir that
account owns. The server is always stopped (`pg_ctl -m immediate stop`) and its dir removed.
"""

from __future__ import annotations

import asyncio
import itertools
import os
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import asyncpg  # type: ignore[import-untyped]

INSTALL_HINT = "install the `postgresql` package (initdb and pg_ctl; CI's .ci/run installs it)"
_DATABASES = itertools.count(1)


def _binary(name: str) -> str:
    found = shutil.which(name)
    if found:
        return found
    candidates = sorted(Path("/usr/lib/postgresql").glob(f"*/bin/{name}"), reverse=True)
    if not candidates:
        raise RuntimeError(
            f"PostgreSQL's {name} was not found on PATH nor in /usr/lib/postgresql: {INSTALL_HINT}"
        )
    return str(candidates[0])


def _as_server_user(argv: list[str]) -> list[str]:
    """`argv` as the unprivileged `postgres` account when we are root (PostgreSQL refuses root)."""
    if os.geteuid() != 0:
        return argv
    return ["runuser", "-u", "postgres", "--", *argv]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def _run(argv: list[str], what: str) -> None:
    done = subprocess.run(_as_server_user(argv), capture_output=True, text=True, timeout=120, check=False)
    if done.returncode != 0:
        raise RuntimeError(
            f"{what} failed ({done.returncode}): {(done.stderr or done.stdout).strip()[-2000:]}"
        )


@dataclass
class Postgres:
    """A running test server: `dsn` is its `rein` database; `stop`, `start` and `restart` keep the port,
    so the DSN stays valid across them."""

    dsn: str
    root: Path
    port: int

    @property
    def _data(self) -> Path:
        return self.root / "data"

    def _start_argv(self) -> list[str]:
        options = f"-p {self.port} -k {self.root / 'sockets'} -c listen_addresses=127.0.0.1 -c fsync=on"
        log = str(self.root / "server.log")
        return [_binary("pg_ctl"), "-w", "-t", "60", "-D", str(self._data), "-l", log, "-o", options]

    def start(self) -> None:
        _run([*self._start_argv(), "start"], "pg_ctl start")

    def stop(self) -> None:
        """Stop at once, as a crash would (`-m immediate`: no checkpoint, recovery on the next start)."""
        _run([_binary("pg_ctl"), "-D", str(self._data), "-m", "immediate", "-w", "stop"], "pg_ctl stop")

    def restart(self) -> None:
        self.stop()
        self.start()

    @property
    def running(self) -> bool:
        return (self._data / "postmaster.pid").exists()


@contextmanager
def start_postgres(tmp: Path | None = None) -> Iterator[str]:
    """Start a PostgreSQL server and yield the DSN of its `rein` database (user `rein`, trust auth,
    127.0.0.1 only, fsync on). `tmp` is where its dir goes; by default a fresh dir under /tmp, whose
    parents the `postgres` account can traverse (pytest's tmp_path may not be)."""
    with running_postgres(tmp) as server:
        yield server.dsn


@contextmanager
def running_postgres(tmp: Path | None = None) -> Iterator[Postgres]:
    """`start_postgres`, yielding the server itself (to stop and start it); stopped at the end if it
    is running."""
    initdb = _binary("initdb")
    root = Path(tempfile.mkdtemp(prefix="rein-pg-", dir=tmp or "/tmp"))
    root.chmod(0o755)
    data, sockets = root / "data", root / "sockets"
    sockets.mkdir()
    if os.geteuid() == 0:
        shutil.chown(root, "postgres", "postgres")
        shutil.chown(sockets, "postgres", "postgres")
    server: Postgres | None = None
    try:
        _run([initdb, "-A", "trust", "-U", "rein", "-E", "UTF8", "--no-locale", "-D", str(data)], "initdb")
        for attempt in range(3):
            port = _free_port()
            candidate = Postgres(dsn=f"postgresql://rein@127.0.0.1:{port}/rein", root=root, port=port)
            try:
                candidate.start()
                server = candidate
                break
            except RuntimeError:
                if attempt == 2:  # the port was taken between the probe and the start: try another
                    raise
        assert server is not None
        execute(f"{server.dsn.rpartition('/')[0]}/postgres", "CREATE DATABASE rein")
        yield server
    finally:
        if server is not None and server.running:
            server.stop()
        shutil.rmtree(root, ignore_errors=True)


def new_database(dsn: str) -> str:
    """Create an empty database on the server of `dsn` and return its DSN (one per test keeps tests
    independent while they share one server)."""
    name = f"test_{os.getpid()}_{next(_DATABASES)}"
    execute(dsn, f"CREATE DATABASE {name}")
    return f"{dsn.rpartition('/')[0]}/{name}"


def execute(dsn: str, statement: str) -> None:
    """Run one SQL statement on the database of `dsn` (outside any event loop)."""

    async def run() -> None:
        connection = await asyncpg.connect(dsn)
        try:
            await connection.execute(statement)
        finally:
            await connection.close()

    asyncio.run(run())
