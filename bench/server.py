"""Benchmark the session server: `python -m bench.server`.

Starts `rein serve` itself on loopback, once per backend: SQLite in a temporary directory, and
PostgreSQL in a throwaway cluster (`initdb` + `pg_ctl`, as the tests do) when its binaries are
installed (else that row says skipped). A bounded load generator (asyncio + httpx2) runs N concurrent
clients, each initializing its own session and then appending one realistic entry (300 to 600 bytes:
user prompts, assistant replies with a tool call, tool results) per request for a fixed count:
1 x 300, 10 x 60 and 100 x 10 appends. Every append is acknowledged only after it is durable (SQLite
WAL with synchronous=FULL, a PostgreSQL commit), so the figures include the fsync. Prints appends per
second and the p50 and p99 latency of one append.

Then the bytes a client sends per turn: rein's own client (`TreeSync` over `ServerTransport`) uploads a
10,000-entry session once (a full tree sync, chunked above the request limit), then syncs one turn of
3 new entries, which goes as one incremental `tree/append`. Stops by itself (each phase has a time
limit); the whole run takes well under two minutes.
"""

from __future__ import annotations

import asyncio
import os
import random
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx2
from tests.server.helpers import running_server
from tests.server.pg import start_postgres

from bench._common import percentile
from rein.session.remote import ServerTransport, TreeSync
from rein.session.remote._protocol import js_json, next_tree_hash, prefix_hashes

PHASES = ((1, 300), (10, 60), (100, 10))
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
    clients: int
    appends: int
    seconds: float
    latencies_ms: list[float]


async def _client(http: httpx2.AsyncClient, session: str, count: int, latencies: list[float]) -> None:
    rng = random.Random(session)
    parent: str | None = None
    for n in range(count):
        item = entry(rng, n, parent)
        body = js_json({"sessionId": session, "entries": [item], "leafId": item["id"]}).encode()
        start = time.perf_counter()
        answer = await http.post("/api/session/tree/append", content=body)
        latencies.append((time.perf_counter() - start) * 1000)
        if answer.status_code != 200:
            raise RuntimeError(f"append {n} of {session}: {answer.status_code} {answer.text[:200]}")
        parent = str(item["id"])


async def load(url: str, backend: str, clients: int, count: int) -> LoadRow:
    limits = httpx2.Limits(max_connections=clients + 4, max_keepalive_connections=clients + 4)
    headers = {"Content-Type": "application/json"}
    async with httpx2.AsyncClient(base_url=url, limits=limits, headers=headers, timeout=60) as http:
        sessions = [f"bench-{clients}-{n}" for n in range(clients)]
        for session in sessions:  # sessions exist before the clock starts: only appends are timed
            init = await http.post(
                "/api/session/init", content=js_json({"sessionId": session, "staticContext": CONTEXT})
            )
            init.raise_for_status()
        latencies: list[float] = []
        start = time.perf_counter()
        await asyncio.wait_for(
            asyncio.gather(*(_client(http, session, count, latencies) for session in sessions)), PHASE_TIMEOUT
        )
        return LoadRow(backend, clients, clients * count, time.perf_counter() - start, latencies)


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


def main() -> int:
    rows: list[LoadRow | tuple[str, str]] = []
    turns: TurnBytes | None = None
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp, postgres() as dsn:
        backends = (("sqlite", str(Path(tmp) / "sessions.db")), ("postgresql", dsn))
        for backend, db in backends:
            if db is None:
                rows.append((backend, "skipped: initdb/pg_ctl not installed"))
                continue
            with running_server(Path(tmp) / backend, db=db, args=SERVE_ARGS) as url:
                for clients, count in PHASES:
                    rows.append(asyncio.run(load(url, backend, clients, count)))
                if backend == "sqlite":
                    turns = asyncio.run(turn_bytes(url))
    python = sys.version.split()[0]
    cores = os.cpu_count()
    print(f"session server: appends over loopback, one entry per request, Python {python}, {cores} cores")
    print(
        "{:<11} {:>8} {:>8} {:>10} {:>8} {:>8}".format(
            "backend", "clients", "appends", "appends/s", "p50 ms", "p99 ms"
        )
    )
    for row in rows:
        if isinstance(row, tuple):
            print(f"{row[0]:<11} {row[1]}")
            continue
        rate = row.appends / row.seconds
        p50, p99 = percentile(row.latencies_ms, 0.5), percentile(row.latencies_ms, 0.99)
        print(f"{row.backend:<11} {row.clients:>8} {row.appends:>8} {rate:>10,.0f} {p50:>8.1f} {p99:>8.1f}")
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
