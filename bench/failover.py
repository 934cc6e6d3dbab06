"""Benchmark how fast a run outlives its process: `python -m bench.failover`.

Two `rein serve` processes on one throwaway PostgreSQL (`initdb` + `pg_ctl`, as the tests do; the row
says skipped without its binaries), the faux provider streaming slowly. Node A starts N runs
(`/api/stream` with a `runId`); then node A is
- killed (`kill -9`): nobody renews the runs' leases, and node B's sweep marks each run `interrupted`
  once its lease lapsed: the time from the kill to each run answering `interrupted` on node B;
- or stopped (SIGTERM, `--drain-seconds 0`): node A cuts the streams after its grace period and hands
  the runs over (`interrupted` at once).
For the default lease (10 s) and a short one (2 s). Prints a table; takes about a minute.
"""

from __future__ import annotations

import json
import signal
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

import httpx2
from tests.server.helpers import kill9, process_of, running_server
from tests.server.pg import new_database, start_postgres

from bench._common import percentile

RUNS = 8
STATIC = {"systemPrompt": "Be brief.", "tools": []}
LEASES = (2, 10)


@dataclass(frozen=True, slots=True)
class Row:
    how: str
    lease: int
    seconds: list[float]


def _stream(url: str, session: str, run_id: str, started: threading.Event) -> None:
    body = {"sessionId": session, "runId": run_id, "ephemeralMessages": [{"role": "user", "content": "go"}]}
    try:
        with httpx2.stream("POST", f"{url}/api/stream", json=body, timeout=120) as answer:
            for line in answer.iter_lines():
                if line.startswith("data: ") and "text_delta" in line:
                    started.set()
    except httpx2.HTTPError:
        return  # the node died under it


def _measure(tmp: Path, dsn: str, how: str, lease: int) -> Row:
    script = tmp / "faux-script.json"
    script.write_text(
        json.dumps({"delay": 0.05, "chunkSize": 4, "replies": [[{"text": "word " * 2000}]] * RUNS})
    )
    args = ("--provider", "faux", "--run-lease-seconds", str(lease), "--drain-seconds", "0")
    env = {"REIN_FAUX_SCRIPT": str(script)}
    db = new_database(dsn)
    with ExitStack() as stack:
        a = stack.enter_context(running_server(tmp / f"a-{how}-{lease}", db=db, env=env, args=args))
        b = stack.enter_context(running_server(tmp / f"b-{how}-{lease}", db=db, env=env, args=args))
        runs = [(f"s{n}", f"r{n}") for n in range(RUNS)]
        for session, _ in runs:
            httpx2.post(f"{a}/api/session/init", json={"sessionId": session, "staticContext": STATIC})
        started = [threading.Event() for _ in runs]
        for (session, run_id), event in zip(runs, started, strict=True):
            threading.Thread(target=_stream, args=(a, session, run_id, event), daemon=True).start()
        for event in started:
            event.wait(30)
        time.sleep(lease / 2)  # mid-lease: the worst case is a full lease after the last renewal
        stop: Callable[[], None] = (lambda: kill9(a)) if how == "kill -9" else lambda: _term(a)
        dead = time.monotonic()
        threading.Thread(target=stop, daemon=True).start()
        seconds: list[float] = []
        with httpx2.Client(base_url=b, timeout=10) as client:
            for session, run_id in runs:
                while client.get(f"/api/session/{session}/runs/{run_id}").json()["status"] == "running":
                    time.sleep(0.02)
                seconds.append(time.monotonic() - dead)
        return Row(how, lease, seconds)


def _term(url: str) -> None:
    process_of(url).send_signal(signal.SIGTERM)
    process_of(url).wait(60)


def main() -> None:
    print(f"{'node stopped by':<16}{'lease s':>8}{'runs':>6}{'first s':>9}{'p50 s':>8}{'last s':>8}")
    try:
        with tempfile.TemporaryDirectory(prefix="rein-failover-") as tmp, start_postgres() as dsn:
            for lease in LEASES:
                for how in ("kill -9", "SIGTERM"):
                    row = _measure(Path(tmp), dsn, how, lease)
                    took = sorted(row.seconds)
                    print(
                        f"{row.how:<16}{row.lease:>8}{len(took):>6}{took[0]:>9.2f}"
                        f"{percentile(took, 50):>8.2f}{took[-1]:>8.2f}",
                        flush=True,
                    )
    except FileNotFoundError as missing:
        print(f"postgresql: skipped ({missing})", file=sys.stderr)


if __name__ == "__main__":
    main()
