"""Chaos, bounded and seeded: three `rein serve` nodes behind nginx on one PostgreSQL, under a mixed load
(appenders on several sessions, chunked uploads, stream runs with run ids) through the balancer, while
a chaos thread SIGKILLs a random node and starts it again, or restarts PostgreSQL (`-m immediate`),
at random times. Clients retry as real ones do (appends are idempotent, a chunk is resent).

At the end: every acknowledged entry is stored exactly once, each session's tree hash on every node is
the one its client computed, every upload is applied whole or not at all, no run is left `running`
past the run-lease bound, and every node answers. `REIN_CHAOS_SEED=N` replays a schedule; the seed is
printed, and named in the failure."""

from __future__ import annotations

import json
import os
import random
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

import httpx2
import pytest

from rein.protocol import tree_hash
from tests.server.cluster import Cluster, running_cluster, send
from tests.server.pg import Postgres, running_postgres
from tests.server.test_cluster import FAUX, RUN_LEASE_SECONDS, body_of, sse_events
from tests.server.test_faults import CONTEXT, JsonObject, chain, entries_of, entry
from tests.server.test_faults import Upload as Chunks

pytestmark = [pytest.mark.postgres, pytest.mark.slow, pytest.mark.nginx]

SEED = int(os.environ.get("REIN_CHAOS_SEED", "1729"))
CHAOS_SECONDS = 30.0
CALM_SECONDS = 3.0
"""After the chaos, the load goes on this long with every node and the database up."""
REQUEST_DEADLINE = 30.0
"""A request that finds no working node for this long fails the test: the cluster did not recover."""
RUN_BOUND = 3 * RUN_LEASE_SECONDS + 2
"""A cut run is no longer `running` this soon (more slack than test_cluster's: the database restarts)."""
REPLY = " ".join(f"w{n}" for n in range(60))
"""About 240 characters: a run streams for about 1.2 s (4 characters every 0.02 s)."""


class Worker(Protocol):
    def run(self, load: Load, client: httpx2.Client) -> None: ...


class Load:
    """What every client thread shares: the stop flag, and the first failure of any."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.stop = threading.Event()
        self.errors: list[str] = []

    def thread(self, name: str, worker: Worker) -> threading.Thread:
        def run() -> None:
            try:
                with httpx2.Client(base_url=self.url, timeout=10) as client:
                    worker.run(self, client)
            except Exception as error:  # reported by the test with the seed, not lost in a thread
                self.errors.append(f"{name}: {type(error).__name__}: {error}")

        return threading.Thread(target=run, name=name)


@dataclass
class Appender:
    session: str
    rng: random.Random
    sent: list[JsonObject] = field(default_factory=list)
    acked: list[str] = field(default_factory=list)

    def run(self, load: Load, client: httpx2.Client) -> None:
        body_of(send(client, "/api/session/init", {"sessionId": self.session, "staticContext": CONTEXT}))
        parent: str | None = None
        while not load.stop.is_set():
            item = entry(f"{self.session}-{len(self.sent)}", parent)
            self.sent.append(item)
            body = {"sessionId": self.session, "entries": [item], "leafId": item["id"]}
            body_of(send(client, "/api/session/tree/append", body, deadline=REQUEST_DEADLINE))
            self.acked.append(str(item["id"]))
            parent = str(item["id"])
            time.sleep(self.rng.uniform(0, 0.02))


@dataclass
class Uploader:
    """One chunked append after another, each to a session of its own."""

    rng: random.Random
    done: dict[str, list[JsonObject]] = field(default_factory=dict)
    begun: dict[str, list[JsonObject]] = field(default_factory=dict)

    def run(self, load: Load, client: httpx2.Client) -> None:
        while not load.stop.is_set():
            session = f"up{len(self.begun)}"
            entries = chain(f"{session}-", self.rng.randint(8, 20))
            self.begun[session] = entries
            body_of(send(client, "/api/session/init", {"sessionId": session, "staticContext": CONTEXT}))
            body = {"sessionId": session, "entries": entries, "leafId": entries[-1]["id"]}
            upload = Chunks("/api/session/tree/append", body, self.rng.choice((400, 700, 1000)))
            answers = []
            for index in range(len(upload.pieces)):
                envelope = upload.envelope(index)
                answers.append(
                    body_of(send(client, "/api/request/chunk", envelope, deadline=REQUEST_DEADLINE))
                )
                time.sleep(self.rng.uniform(0, 0.03))
            assert answers[-1]["treeHash"] == tree_hash(entries), f"{session}: {answers[-1]}"
            self.done[session] = entries


@dataclass
class Runner:
    """Stream runs with run ids one after another on one session; a stream cut by a dying node is
    followed by its run's record until it is no longer running, as a recovering client does."""

    started: list[str] = field(default_factory=list)
    completed: list[str] = field(default_factory=list)
    cut: list[str] = field(default_factory=list)

    def run(self, load: Load, client: httpx2.Client) -> None:
        body_of(send(client, "/api/session/init", {"sessionId": "runs", "staticContext": CONTEXT}))
        first = entry("u0", None, text="go")
        body_of(
            send(
                client, "/api/session/tree/append", {"sessionId": "runs", "entries": [first], "leafId": "u0"}
            )
        )
        while not load.stop.is_set():
            run_id = f"r{len(self.started)}"
            self.started.append(run_id)
            last: JsonObject = {}
            try:
                with client.stream(
                    "POST", "/api/stream", json={"sessionId": "runs", "runId": run_id}
                ) as answer:
                    if answer.status_code == 200:
                        for event in sse_events(answer.iter_lines()):
                            last = event
            except httpx2.TransportError:
                pass
            if last.get("type") == "done":
                self.completed.append(run_id)
                continue
            self.cut.append(run_id)
            deadline = time.monotonic() + RUN_BOUND + REQUEST_DEADLINE
            while time.monotonic() < deadline:
                record = send(client, f"/api/session/runs/runs/{run_id}", deadline=REQUEST_DEADLINE)
                if record.status_code == 404 or record.json().get("status") != "running":
                    break
                time.sleep(0.2)
            else:
                took = RUN_BOUND + REQUEST_DEADLINE
                raise AssertionError(f"run {run_id} still running {took} s after its stream was cut")


@dataclass
class Chaos:
    """Kill -9 a random node and start it again, or restart PostgreSQL, at random times."""

    cluster: Cluster
    pg: Postgres
    rng: random.Random
    log: list[str] = field(default_factory=list)
    error: str = ""

    def run(self, until: float) -> None:
        began = time.monotonic()
        try:
            while time.monotonic() + 1 < until:
                time.sleep(self.rng.uniform(0.5, 1.5))
                at = f"{time.monotonic() - began:5.1f}s"
                if self.rng.random() < 0.75:
                    node = self.rng.randrange(len(self.cluster.nodes))
                    down = self.rng.uniform(0.1, 1.5)
                    self.log.append(f"{at} kill -9 node {node}, {down:.1f} s down")
                    self.cluster.kill9(node)
                    time.sleep(down)
                    self.cluster.start(node)
                else:
                    down = self.rng.uniform(0.1, 1.5)
                    self.log.append(f"{at} restart PostgreSQL, {down:.1f} s down")
                    self.pg.stop()
                    time.sleep(down)
                    self.pg.start()
        except Exception as error:
            self.error = f"{type(error).__name__}: {error}"


def test_chaos_loses_nothing_acknowledged_and_leaves_no_run_running(tmp_path: Path) -> None:
    print(f"chaos seed {SEED} (replay: REIN_CHAOS_SEED={SEED})")
    rng = random.Random(SEED)
    script = tmp_path / "faux-script.json"
    script.write_text(json.dumps({"delay": 0.02, "chunkSize": 4, "replies": [[{"text": REPLY}]] * 500}))
    # no rate limit: the load is a few clients' worth of many users, and the check reads everything
    args = (*FAUX, "--run-lease-seconds", str(RUN_LEASE_SECONDS), "--rate-per-minute", "0")
    chaos: Chaos | None = None
    try:
        with (
            running_postgres() as pg,
            running_cluster(tmp_path, db=pg.dsn, env={"REIN_FAUX_SCRIPT": str(script)}, args=args) as cluster,
        ):
            chaos = Chaos(cluster, pg, random.Random(rng.random()))
            load = Load(cluster.url)
            appenders = [Appender(f"a{n}", random.Random(rng.random())) for n in range(3)]
            uploader, runner = Uploader(random.Random(rng.random())), Runner()
            workers: list[tuple[str, Worker]] = [(a.session, a) for a in appenders]
            workers += [("uploader", uploader), ("runner", runner)]
            threads = [load.thread(name, worker) for name, worker in workers]
            for thread in threads:
                thread.start()
            chaos.run(time.monotonic() + CHAOS_SECONDS)
            assert not chaos.error, f"the chaos itself failed: {chaos.error}"
            time.sleep(CALM_SECONDS)  # every node and the database up: the load goes on
            load.stop.set()
            for thread in threads:
                thread.join(timeout=REQUEST_DEADLINE + RUN_BOUND + 10)
            assert not any(t.is_alive() for t in threads), "a client hung"
            assert not load.errors, f"clients failed: {load.errors}\n{cluster.logs()[-6000:]}"
            print(
                f"appends {sum(len(a.acked) for a in appenders)}, uploads {len(uploader.done)}, runs"
                f" {len(runner.completed)} completed, {len(runner.cut)} cut; chaos:",
                *chaos.log,
                sep="\n",
            )
            check(cluster, appenders, uploader, runner)
            kills = sum("kill" in line for line in chaos.log)
            assert kills >= 5 and len(chaos.log) >= 8, f"too little chaos: {chaos.log}"
    except Exception as error:
        events = "\n".join(chaos.log) if chaos is not None else "(none)"
        raise AssertionError(
            f"{type(error).__name__}: {str(error)[:3000]}\n"
            f"chaos seed {SEED} (REIN_CHAOS_SEED={SEED} replays it); chaos:\n{events}"
        ) from error


def check(cluster: Cluster, appenders: list[Appender], uploader: Uploader, runner: Runner) -> None:
    """What must hold once the chaos is over, asked of every node directly."""
    assert sum(len(a.acked) for a in appenders) >= 100, "the appenders did too little to tell"
    assert len(uploader.done) >= 2 and len(runner.completed) >= 3, (uploader.done.keys(), runner.completed)
    time.sleep(RUN_BOUND)  # a run of a node killed last is interrupted by now
    for url in cluster.nodes:
        with httpx2.Client(base_url=url, timeout=2) as node:
            assert node.get("/health").json() == {"status": "ok"}, f"{url} hangs"
            assert node.get("/ready").json() == {"status": "ready"}, url
            for appender in appenders:
                stored = body_of(node.get(f"/api/session/{appender.session}/history"))
                ids = [str(e["id"]) for e in entries_of(stored)]
                assert ids == appender.acked, (
                    f"{url} {appender.session}: an acknowledged entry lost or doubled"
                )
                assert entries_of(stored) == appender.sent[: len(ids)]
                assert stored["treeHash"] == tree_hash(appender.sent[: len(ids)]), f"{url} {appender.session}"
            for session, entries in uploader.begun.items():
                stored = body_of(node.get(f"/api/session/{session}/history"))
                got = entries_of(stored)
                if session in uploader.done:
                    assert got == entries and stored["treeHash"] == tree_hash(entries), f"{url} {session}"
                else:  # cut off by the end of the test: all or nothing
                    assert got in ([], entries), f"{url} {session}: a partial upload was applied"
            for run_id in runner.started:
                record = node.get(f"/api/session/runs/runs/{run_id}")
                assert record.status_code in (200, 404), f"{url}: run {run_id}: {record.text}"
                status = record.json().get("status") if record.status_code == 200 else "never started"
                assert status != "running", f"{url}: run {run_id} still running past the lease bound"
                if run_id in runner.completed:
                    assert status == "completed", f"{url}: run {run_id} streamed done but is {status}"
