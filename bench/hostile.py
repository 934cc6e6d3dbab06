"""Benchmark how long one hostile request holds `rein serve`'s event loop: `python -m bench.hostile`.

Starts `rein serve` on a temporary SQLite file (`--rate-per-minute 0`). A prober thread sends `GET
/health` over its own keep-alive connection every 2 ms; each case sends one request while it probes
(from 50 ms before to 50 ms after) and reports the request's own status and time, and the max and
p99 `/health` latency over that window: the max is about the longest stretch the loop was held (the
probe's own round trip is the `idle` row). The goal is under 10 ms.

Cases: nesting 900 deep (refused before parsing), a number past a double (1e400), 60 entries nested
at the deepest allowed, 512 KB of realistic small entries in one append, 512 KB of empty arrays (the
parse's worst case per byte), and one chunk of a chunked upload with 1 MB and then ~200 MB of
chunks pending. Takes well under a minute.
"""

from __future__ import annotations

import base64
import http.client
import json
import random
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import httpx2
from tests.server.helpers import running_server

from bench._common import percentile
from bench.server import CONTEXT, entry
from rein.protocol import CHUNK_ENDPOINT, chunk_checksum, js_json
from rein.server._json_bounds import BYTES_PER_CONTAINER, MAX_DEPTH, MIN_CONTAINERS

PROBE_EVERY = 0.002
MARGIN = 0.05
CHUNK_TEXT = 400_000
PENDING_MB = 200
SERVE_ARGS = (
    "--rate-per-minute",
    "0",
    "--max-pending-chunks-mb-per-user",
    "0",
    "--max-pending-chunks-mb",
    "512",
)
JSON = {"Content-Type": "application/json"}
GOAL_MS = 10.0


class Prober:
    """`GET /health` every PROBE_EVERY s on one connection, each probe's start and latency kept."""

    def __init__(self, url: str) -> None:
        parts = urlsplit(url)
        self.connection = http.client.HTTPConnection(parts.hostname or "127.0.0.1", parts.port, timeout=30)
        self.samples: list[tuple[float, float]] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> Prober:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self.connection.close()

    def _run(self) -> None:
        while not self._stop.is_set():
            start = time.perf_counter()
            self.connection.request("GET", "/health")
            answer = self.connection.getresponse()
            answer.read()
            if answer.status != 200:
                raise RuntimeError(f"/health answered {answer.status}")
            self.samples.append((start, time.perf_counter() - start))
            time.sleep(max(0.0, PROBE_EVERY - (time.perf_counter() - start)))

    def window(self, start: float, end: float) -> list[float]:
        """Latencies (ms) of probes that were in flight at any point of [start, end]."""
        return [ms * 1000 for began, ms in list(self.samples) if began <= end and began + ms >= start]


@dataclass(frozen=True, slots=True)
class Row:
    case: str
    status: int
    request_ms: float
    probes: list[float]


def measure(prober: Prober, case: str, send: Callable[[], httpx2.Response], expect: int) -> Row:
    time.sleep(MARGIN)
    start = time.perf_counter()
    answer = send()
    elapsed = time.perf_counter() - start
    time.sleep(MARGIN)
    if answer.status_code != expect:
        raise RuntimeError(f"{case}: {answer.status_code} {answer.text[:300]}")
    return Row(
        case, answer.status_code, elapsed * 1000, prober.window(start - MARGIN, start + elapsed + MARGIN)
    )


def nested(levels: int) -> str:
    return "[" * levels + '"x"' + "]" * levels


def deep_append(session: str, levels: int) -> bytes:
    entries = [
        f'{{"type":"message","id":"e{i}","parentId":{json.dumps(f"e{i - 1}" if i else None)},'
        f'"message":{{"role":"user","content":{nested(levels)}}}}}'
        for i in range(60)
    ]
    return f'{{"sessionId":"{session}","entries":[{",".join(entries)}],"leafId":"e59"}}'.encode()


def small_entries(session: str, limit: int) -> bytes:
    rng = random.Random(7)
    entries: list[dict[str, object]] = []
    size = 100
    while True:
        item = entry(rng, len(entries), str(entries[-1]["id"]) if entries else None)
        size += len(js_json(item)) + 1
        if size > limit:
            break
        entries.append(item)
    return js_json({"sessionId": session, "entries": entries, "leafId": entries[-1]["id"]}).encode()


def envelope(request_id: str, index: int, text: str) -> bytes:
    body = {
        "requestId": request_id, "target": "/api/session/tree/sync", "chunkIndex": index,
        "totalChunks": 100_000, "sha256": chunk_checksum(text), "chunk": text,
    }  # fmt: skip
    return json.dumps(body).encode()


def run(url: str) -> list[Row]:
    limit = 512 * 1024 - 1024
    with httpx2.Client(base_url=url, headers=JSON, timeout=120) as client, Prober(url) as prober:

        def post(path: str, body: bytes) -> Callable[[], httpx2.Response]:
            return lambda: client.post(path, content=body)

        time.sleep(0.2)
        rows = [measure(prober, "idle (the probe's own round trip)", lambda: client.get("/health"), 200)]
        append = "/api/session/tree/append"
        rows.append(measure(prober, "nesting 900 deep, 60 entries", post(append, deep_append("d", 900)), 400))
        number = b'{"sessionId":"n","entries":[{"type":"message","id":"a","parentId":null,"v":1e400}]}'
        rows.append(measure(prober, "a number 1e400", post(append, number), 400))
        at_limit = deep_append("at-limit", MAX_DEPTH - 4)
        rows.append(measure(prober, f"60 entries nested {MAX_DEPTH} deep", post(append, at_limit), 200))
        rows.append(
            measure(
                prober, "512 KB of small entries, one append", post(append, small_entries("s", limit)), 200
            )
        )
        empties = b'{"sessionId":"e","x":[' + b",".join([b"[]"] * (limit // 3)) + b"]}"
        rows.append(measure(prober, "512 KB of empty arrays", post(append, empties), 400))
        allowed = max(MIN_CONTAINERS, limit // BYTES_PER_CONTAINER) - 2
        bound = b'{"sessionId":"e","x":[' + b",".join([b"[]"] * allowed) + b"]"
        bound += b" " * (limit - len(bound) - 1) + b"}"  # the bound grows with the bytes: pad to 512 KB
        rows.append(measure(prober, f"{allowed} empty arrays (the bound)", post(append, bound), 400))
        text = base64.b64encode(random.Random(3).randbytes(CHUNK_TEXT * 3 // 4)).decode()
        client.post(CHUNK_ENDPOINT, content=envelope("pending", 0, text)).raise_for_status()
        chunk = post(CHUNK_ENDPOINT, envelope("probe-1mb", 0, text))
        rows.append(measure(prober, "one chunk, 0.4 MB pending", chunk, 200))
        for index in range(1, PENDING_MB * 1_000_000 // CHUNK_TEXT):
            client.post(CHUNK_ENDPOINT, content=envelope("pending", index, text)).raise_for_status()
        chunk = post(CHUNK_ENDPOINT, envelope("probe-200mb", 0, text))
        rows.append(measure(prober, f"one chunk, {PENDING_MB} MB pending", chunk, 200))
        return rows


def main() -> int:
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp, running_server(Path(tmp), args=SERVE_ARGS) as url:
        httpx2.post(f"{url}/api/session/init", json={"sessionId": "s", "staticContext": CONTEXT})
        rows = run(url)
    print(f"event loop held by one request: /health probed every {PROBE_EVERY * 1000:.0f} ms, SQLite, "
          f"Python {sys.version.split()[0]}")  # fmt: skip
    print(f"{'case':<40} {'status':>6} {'request ms':>11} {'probes':>7} {'max ms':>8} {'p99 ms':>8}")
    for row in rows:
        worst = max(row.probes, default=0.0)
        p99 = percentile(row.probes, 0.99) if row.probes else 0.0
        figures = f"{row.request_ms:>11.1f} {len(row.probes):>7} {worst:>8.1f} {p99:>8.1f}"
        print(f"{row.case:<40} {row.status:>6} {figures}")
    print(f"goal: max under {GOAL_MS:.0f} ms; done in {time.perf_counter() - started:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
