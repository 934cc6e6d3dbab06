"""Benchmark the session server: `python -m bench.server`.

Starts `rein serve` itself on loopback, once per backend: SQLite in a temporary directory, and
PostgreSQL in a throwaway cluster (`initdb` + `pg_ctl`, as the tests do) when its binaries are
installed (else that row says skipped). A bounded load generator (asyncio and a small keep-alive
HTTP/1.1 client, `Http`: the load shares the two cores with the servers) runs N concurrent clients,
each initializing its own session and then appending one realistic entry (300 to 600 bytes:
user prompts, assistant replies with a tool call, tool results) per request for a fixed count:
1 x 300, 10 x 60 and 100 x 10 appends. Every append is acknowledged only after it is durable (SQLite
WAL with synchronous=FULL, a PostgreSQL commit), so the figures include the fsync. Prints appends per
second and the p50 and p99 latency of one append.

Scale-out: PostgreSQL with 1 and 3 `rein serve` processes on one database, 10 x 100 and 100 x 20
appends; each request goes to the next process in turn (round-robin per request, as a load balancer
would), so a session's consecutive appends land on different processes. Contention: 2 and 3
processes, 6 clients each growing its own branch of ONE session, round-robin per request: appends per
second, the 409s a client saw (rein's own client retries them; this raw one counts them, then
retries), and the commits the servers retried (their `rein_fenced_retries_total` from `/metrics`,
when the server has that route).

Then the bytes a client sends per turn: rein's own client (`TreeSync` over `ServerTransport`) uploads a
10,000-entry session once (a full tree sync, chunked above the request limit), then syncs one turn of
3 new entries, which goes as one incremental `tree/append`. Stops by itself (each phase has a time
limit); the whole run takes under a minute.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import random
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Iterator, Sequence
from contextlib import ExitStack, asynccontextmanager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from tests.server.helpers import running_server
from tests.server.pg import new_database, start_postgres

from bench._common import percentile
from rein.protocol import js_json, next_tree_hash, prefix_hashes
from rein.session.remote import ServerTransport, TreeSync

PHASES = ((1, 300), (10, 60), (100, 10))
SCALE_SERVERS = (1, 3)
SCALE_PHASES = ((10, 100), (100, 20))
CONTENTION_SERVERS = (2, 3)
CONTENTION_CLIENTS = 6
CONTENTION_APPENDS = 60
_RUNS = itertools.count()
PHASE_TIMEOUT = 30.0
FULL_ENTRIES = 10_000
TURN_ENTRIES = 3
SERVE_ARGS = ("--rate-per-minute", "0")
CONTEXT = {
    "systemPrompt": "You are an expert coding assistant.",
    "tools": [{"name": "bash", "description": "Run a command.", "parameters": {"type": "object"}}],
}
_WORDS = (
    "session", "context", "branch", "compaction", "parser", "handler", "request", "buffer", "token",
    "record", "status", "config", "result", "value", "index", "cache", "limit", "offset", "stream",
)  # fmt: skip


def _text(rng: random.Random, words: int) -> str:
    return " ".join(rng.choice(_WORDS) for _ in range(words))


def entry(rng: random.Random, n: int, parent: str | None, prefix: str = "e") -> dict[str, object]:
    """The n-th entry of a coding conversation, in the pi dialect a client sends (300 to 600 bytes)."""
    stamp = 1_767_225_600_000 + n
    message: dict[str, object]
    call = {
        "type": "toolCall",
        "id": f"call_{n}",
        "name": "bash",
        "arguments": {"command": f"pytest -k t{n}"},
    }
    if n % 3 == 0:
        message = {"role": "user", "content": _text(rng, 30), "timestamp": stamp}
    elif n % 3 == 1:
        message = {
            "role": "assistant",
            "content": [{"type": "text", "text": _text(rng, 18)}, call],
            "api": "anthropic-messages", "provider": "anthropic", "model": "claude-sonnet-4-5",
            "usage": {"input": 1200 + n, "output": 80, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 1280},
            "stopReason": "toolUse", "timestamp": stamp,
        }  # fmt: skip
    else:
        message = {
            "role": "toolResult", "toolCallId": f"call_{n - 1}", "toolName": "bash",
            "content": [{"type": "text", "text": _text(rng, 40)}], "isError": False, "timestamp": stamp,
        }  # fmt: skip
    return {
        "type": "message", "id": f"{prefix}{n}", "parentId": parent,
        "timestamp": "2026-01-01T00:00:00.000Z", "message": message,
    }  # fmt: skip


@dataclass(frozen=True, slots=True)
class LoadRow:
    backend: str
    servers: int
    clients: int
    appends: int
    seconds: float
    latencies_ms: list[float]


@dataclass(frozen=True, slots=True)
class Answer:
    status: int
    body: bytes

    @property
    def text(self) -> str:
        return self.body.decode("utf-8", errors="replace")


class Http:
    """A lean HTTP/1.1 client for the load: keep-alive connections to one server, each request
    written whole and its answer read by its Content-Length. The load shares two cores with the
    servers and PostgreSQL, and httpx2 spent more CPU per request than the server did (1.3 ms): this
    spends about 0.15 ms, so the figures are the server's, not the load generator's."""

    def __init__(self, url: str) -> None:
        parts = urlsplit(url)
        self.host, self.port = parts.hostname or "127.0.0.1", parts.port or 80
        self._idle: list[tuple[asyncio.StreamReader, asyncio.StreamWriter]] = []
        self._all: list[asyncio.StreamWriter] = []

    async def request(self, method: str, path: str, body: bytes = b"") -> Answer:
        head = f"{method} {path} HTTP/1.1\r\nHost: {self.host}\r\nContent-Type: application/json\r\n"
        raw = f"{head}Content-Length: {len(body)}\r\n\r\n".encode() + body
        while True:
            reused = bool(self._idle)
            if reused:
                reader, writer = self._idle.pop()
            else:
                reader, writer = await asyncio.open_connection(self.host, self.port)
                self._all.append(writer)
            writer.write(raw)
            try:
                answer = await reader.readuntil(b"\r\n\r\n")
                break
            except (asyncio.IncompleteReadError, ConnectionError):
                if not reused:
                    raise
                writer.close()  # the server closed it while idle (keep-alive timeout): a new one
        length = None
        for line in answer.split(b"\r\n")[1:]:
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value)
        if length is None:
            raise RuntimeError(f"{method} {path}: an answer without Content-Length: {answer[:200]!r}")
        data = await reader.readexactly(length)
        self._idle.append((reader, writer))
        return Answer(int(answer[9:12]), data)

    async def post(self, path: str, body: bytes) -> Answer:
        return await self.request("POST", path, body)

    async def aclose(self) -> None:
        for writer in self._all:
            writer.close()
        await asyncio.gather(*(writer.wait_closed() for writer in self._all), return_exceptions=True)


class Balancer:
    """One `Http` per server; `next()` picks the server of each request in turn."""

    def __init__(self, http: list[Http]) -> None:
        self.http = http
        self._turn = itertools.cycle(http)

    def next(self) -> Http:
        return next(self._turn)


@asynccontextmanager
async def balancer(urls: Sequence[str]) -> AsyncIterator[Balancer]:
    http = [Http(url) for url in urls]
    try:
        yield Balancer(http)
    finally:
        for one in http:
            await one.aclose()


async def _client(servers: Balancer, session: str, count: int, latencies: list[float]) -> None:
    rng = random.Random(session)
    parent: str | None = None
    for n in range(count):
        item = entry(rng, n, parent)
        body = js_json({"sessionId": session, "entries": [item], "leafId": item["id"]}).encode()
        start = time.perf_counter()
        answer = await servers.next().post("/api/session/tree/append", body)
        latencies.append((time.perf_counter() - start) * 1000)
        if answer.status != 200:
            raise RuntimeError(f"append {n} of {session}: {answer.status} {answer.text[:200]}")
        parent = str(item["id"])


async def _init(servers: Balancer, session: str) -> None:
    """Create `session` through every server in turn (each then has it cached)."""
    body = js_json({"sessionId": session, "staticContext": CONTEXT}).encode()
    for http in servers.http:
        init = await http.post("/api/session/init", body)
        if init.status != 200:
            raise RuntimeError(f"init {session}: {init.status} {init.text[:200]}")


async def load(urls: Sequence[str], backend: str, clients: int, count: int) -> LoadRow:
    async with balancer(urls) as servers:
        sessions = [f"bench-{next(_RUNS)}-{n}" for n in range(clients)]
        # before the clock starts: the sessions exist, and the connections and the servers' database
        # pools are open (all clients at once), so only appends are timed, at a steady state
        await asyncio.gather(*(_init(servers, session) for session in sessions))
        latencies: list[float] = []
        start = time.perf_counter()
        await asyncio.wait_for(
            asyncio.gather(*(_client(servers, session, count, latencies) for session in sessions)),
            PHASE_TIMEOUT,
        )
        return LoadRow(backend, len(urls), clients, clients * count, time.perf_counter() - start, latencies)


@dataclass(frozen=True, slots=True)
class ContentionRow:
    servers: int
    clients: int
    appends: int
    seconds: float
    refused: int
    """409s the clients saw."""
    retries: int | None
    """Commits the servers retried (None: no `/metrics` to read them from)."""
    latencies_ms: list[float]


async def _fenced_retries(servers: Balancer) -> int | None:
    total = 0.0
    for http in servers.http:
        answer = await http.request("GET", "/metrics")
        if answer.status != 200:
            return None
        for line in answer.text.splitlines():
            if line.startswith("rein_fenced_retries_total "):
                total += float(line.split()[1])
    return int(total)


async def _branch(servers: Balancer, session: str, branch: str, count: int, latencies: list[float]) -> int:
    """Grow `branch` off the root of `session` by `count` appends; the 409s seen."""
    rng = random.Random(branch)
    parent, refused = "root", 0
    for n in range(count):
        item = entry(rng, n, parent, prefix=f"{branch}-")
        body = js_json({"sessionId": session, "entries": [item], "leafId": item["id"]}).encode()
        start = time.perf_counter()
        answer = await servers.next().post("/api/session/tree/append", body)
        while answer.status == 409:  # refused under contention: count it, send it again
            refused += 1
            answer = await servers.next().post("/api/session/tree/append", body)
        latencies.append((time.perf_counter() - start) * 1000)
        if answer.status != 200:
            raise RuntimeError(f"append {n} of {branch}: {answer.status} {answer.text[:200]}")
        parent = str(item["id"])
    return refused


async def contend(urls: Sequence[str], clients: int, count: int) -> ContentionRow:
    session = f"contended-{next(_RUNS)}"
    async with balancer(urls) as servers:
        root = entry(random.Random(0), 0, None, prefix="root")
        root["id"] = "root"
        await _init(servers, session)
        body = js_json({"sessionId": session, "entries": [root], "leafId": "root"}).encode()
        answer = await servers.next().post("/api/session/tree/append", body)
        if answer.status != 200:
            raise RuntimeError(f"{session}: root: {answer.status} {answer.text[:200]}")
        before = await _fenced_retries(servers)
        latencies: list[float] = []
        start = time.perf_counter()
        refused = await asyncio.wait_for(
            asyncio.gather(*(_branch(servers, session, f"c{n}", count, latencies) for n in range(clients))),
            PHASE_TIMEOUT,
        )
        seconds = time.perf_counter() - start
        after = await _fenced_retries(servers)
        history = json.loads((await servers.next().request("GET", f"/api/session/{session}/history")).body)
        stored = history["entryCount"]
        if stored != 1 + clients * count:
            raise RuntimeError(f"{session}: {stored} entries stored, {1 + clients * count} acknowledged")
        retries = None if before is None or after is None else after - before
        return ContentionRow(len(urls), clients, clients * count, seconds, sum(refused), retries, latencies)


@dataclass(frozen=True, slots=True)
class TurnBytes:
    full_bytes: int
    full_requests: int
    full_seconds: float
    turn_bytes: int
    turn_requests: int
    turn_ms: float
    entry_bytes: float


async def turn_bytes(url: str) -> TurnBytes:
    """What rein's client sends: a 10,000-entry session uploaded whole, then one turn synced."""
    rng = random.Random(10_000)
    entries: list[dict[str, object]] = []
    for n in range(FULL_ENTRIES):
        entries.append(entry(rng, n, str(entries[-1]["id"]) if entries else None, prefix="t"))
    transport = ServerTransport(url)
    try:
        sync = TreeSync(transport, "bench-turns")
        await sync.ensure_init(CONTEXT)
        before, requests = transport.sent_bytes, transport.requests
        start = time.perf_counter()
        hashes = prefix_hashes(entries)  # kept and extended per turn, as `RemoteSession` keeps them
        full_sync = sync.sync(entries, str(entries[-1]["id"]), CONTEXT, hashes=hashes)
        await asyncio.wait_for(full_sync, PHASE_TIMEOUT)
        full_seconds = time.perf_counter() - start
        full, full_requests = transport.sent_bytes - before, transport.requests - requests
        before, requests = transport.sent_bytes, transport.requests
        start = time.perf_counter()
        for n in range(FULL_ENTRIES, FULL_ENTRIES + TURN_ENTRIES):
            entries.append(entry(rng, n, str(entries[-1]["id"]), prefix="t"))
            hashes.append(next_tree_hash(hashes[-1], entries[-1]))
        turn_sync = sync.sync(entries, str(entries[-1]["id"]), CONTEXT, hashes=hashes)
        await asyncio.wait_for(turn_sync, PHASE_TIMEOUT)
        turn_ms = (time.perf_counter() - start) * 1000
        turn, turn_requests = transport.sent_bytes - before, transport.requests - requests
    finally:
        await transport.aclose()
    size = sum(len(js_json(item).encode()) for item in entries) / len(entries)
    return TurnBytes(full, full_requests, full_seconds, turn, turn_requests, turn_ms, size)


@contextmanager
def postgres() -> Iterator[str | None]:
    """A throwaway PostgreSQL's DSN, or None when its binaries are not installed."""
    with ExitStack() as stack:
        try:
            dsn = stack.enter_context(start_postgres())
        except RuntimeError as err:
            print(f"postgresql skipped: {str(err).splitlines()[0][:160]}", file=sys.stderr)
            yield None
            return
        yield dsn


def _print_load(rows: Sequence[LoadRow | tuple[str, str]]) -> None:
    head = ("backend", "servers", "clients", "appends", "appends/s", "p50 ms", "p99 ms")
    print("{:<11} {:>7} {:>8} {:>8} {:>10} {:>8} {:>8}".format(*head))
    for row in rows:
        if isinstance(row, tuple):
            print(f"{row[0]:<11} {row[1]}")
            continue
        rate = row.appends / row.seconds
        p50, p99 = percentile(row.latencies_ms, 0.5), percentile(row.latencies_ms, 0.99)
        print(
            f"{row.backend:<11} {row.servers:>7} {row.clients:>8} {row.appends:>8} {rate:>10,.0f} "
            f"{p50:>8.1f} {p99:>8.1f}"
        )


def _print_contention(rows: Sequence[ContentionRow]) -> None:
    print()
    print(f"contention: {CONTENTION_CLIENTS} clients, each its own branch of ONE session, round-robin")
    head = ("servers", "appends", "appends/s", "p50 ms", "p99 ms", "409s", "409 share", "retries")
    print("{:>7} {:>8} {:>10} {:>8} {:>8} {:>6} {:>10} {:>8}".format(*head))
    for row in rows:
        rate = row.appends / row.seconds
        p50, p99 = percentile(row.latencies_ms, 0.5), percentile(row.latencies_ms, 0.99)
        share = row.refused / (row.appends + row.refused)
        retries = "n/a" if row.retries is None else f"{row.retries:,}"
        print(
            f"{row.servers:>7} {row.appends:>8} {rate:>10,.0f} {p50:>8.1f} {p99:>8.1f} {row.refused:>6} "
            f"{share:>10.1%} {retries:>8}"
        )


def main() -> int:
    rows: list[LoadRow | tuple[str, str]] = []
    contention: list[ContentionRow] = []
    turns: TurnBytes | None = None
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp, postgres() as dsn:
        with running_server(Path(tmp) / "sqlite", db=str(Path(tmp) / "sessions.db"), args=SERVE_ARGS) as url:
            rows += [asyncio.run(load([url], "sqlite", clients, count)) for clients, count in PHASES]
            turns = asyncio.run(turn_bytes(url))
        if dsn is None:
            rows.append(("postgresql", "skipped: initdb/pg_ctl not installed"))
        else:
            with ExitStack() as stack:
                db = new_database(dsn)
                urls = [
                    stack.enter_context(running_server(Path(tmp) / f"pg{n}", db=db, args=SERVE_ARGS))
                    for n in range(max(SCALE_SERVERS))
                ]
                rows += [asyncio.run(load(urls[:1], "postgresql", c, n)) for c, n in PHASES]
                for servers in SCALE_SERVERS:
                    rows += [asyncio.run(load(urls[:servers], "postgresql", c, n)) for c, n in SCALE_PHASES]
                contention += [
                    asyncio.run(contend(urls[:servers], CONTENTION_CLIENTS, CONTENTION_APPENDS))
                    for servers in CONTENTION_SERVERS
                ]
    python = sys.version.split()[0]
    cores = os.cpu_count()
    print(f"session server: appends over loopback, one entry per request, Python {python}, {cores} cores")
    _print_load(rows)
    if contention:
        _print_contention(contention)
    if turns is not None:
        print()
        average = f"entries {turns.entry_bytes:.0f} B avg"
        print(f"bytes sent per turn, rein's client, a {FULL_ENTRIES:,}-entry session ({average})")
        print("{:<34} {:>12} {:>9} {:>10}".format("sync", "bytes", "requests", "time"))
        full = f"full tree upload ({FULL_ENTRIES:,} entries)"
        full_ms = turns.full_seconds * 1000
        print(f"{full:<34} {turns.full_bytes:>12,} {turns.full_requests:>9} {full_ms:>8.0f} ms")
        turn = f"incremental append ({TURN_ENTRIES} entries)"
        print(f"{turn:<34} {turns.turn_bytes:>12,} {turns.turn_requests:>9} {turns.turn_ms:>8.1f} ms")
        print(
            f"a turn sends {turns.full_bytes / max(1, turns.turn_bytes):,.0f}x fewer bytes than a full upload"
        )
    print(f"done in {time.perf_counter() - started:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
