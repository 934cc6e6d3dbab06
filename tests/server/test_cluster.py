"""Three `rein serve` processes on one PostgreSQL behind nginx, configured as docs/server.md deploys them
(`tests.server.cluster` reads the docs' nginx block): a node SIGKILLed under appends and a chunked
upload loses nothing acknowledged; a run on a node that dies is `interrupted` on the others within the
run-lease bound and can be run again; a page on another node watches a run live; `/ready` follows the
database and the drain, `/metrics` counts what was served."""

from __future__ import annotations

import json
import signal
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

import httpx2
import pytest
from playwright.sync_api import expect

from rein.protocol import tree_hash
from tests.server.cluster import running_cluster, send
from tests.server.helpers import process_of
from tests.server.pg import new_database, running_postgres
from tests.server.test_faults import CONTEXT, JsonObject, chain, entries_of, entry
from tests.server.test_faults import Upload as Chunks
from tests.server.web.browser import browser_page, sel
from tests.server.web.helpers import BROWSER, csrf_of

pytestmark = [pytest.mark.postgres, pytest.mark.slow, pytest.mark.nginx]

RUN_LEASE_SECONDS = 2
INTERRUPTED_WITHIN = RUN_LEASE_SECONDS + 3
"""A dead node's run is `interrupted` this soon: its lease lapses, then another node's sweep (once a
second) marks it; the docs promise the lease and a second, the rest is slack for a loaded machine."""
FAUX = ("--provider", "faux", "--model", "faux-1")
LONG_REPLY = " ".join(f"word{n}" for n in range(120))
"""About 840 characters: at 4 a chunk every 0.02 s, a reply that streams for about 4 s."""


def faux_script(tmp: Path, text: str, *, delay: float = 0.02) -> dict[str, str | None]:
    """The environment of nodes whose faux provider streams `text` slowly, for every run."""
    path = tmp / "faux-script.json"
    path.write_text(json.dumps({"delay": delay, "chunkSize": 4, "replies": [[{"text": text}]] * 20}))
    return {"REIN_FAUX_SCRIPT": str(path)}


def body_of(answer: httpx2.Response) -> JsonObject:
    assert answer.status_code == 200, answer.text
    value = answer.json()
    assert isinstance(value, dict)
    return value


def sse_events(lines: Iterator[str]) -> Iterator[JsonObject]:
    for line in lines:
        if line.startswith("data: "):
            yield json.loads(line[6:])


# a node killed under load


@dataclass
class Appender:
    """Grows one session one entry at a time through the balancer, resending an append that failed
    until it is acknowledged."""

    url: str
    session: str
    sent: list[JsonObject] = field(default_factory=list)
    acked: list[str] = field(default_factory=list)
    error: BaseException | None = None

    def run(self, stop: threading.Event) -> None:
        parent: str | None = None
        try:
            with httpx2.Client(base_url=self.url, timeout=10) as client:
                while not stop.is_set():
                    item = entry(f"{self.session}-{len(self.sent)}", parent)
                    self.sent.append(item)
                    body = {"sessionId": self.session, "entries": [item], "leafId": item["id"]}
                    body_of(send(client, "/api/session/tree/append", body))
                    self.acked.append(str(item["id"]))
                    parent = str(item["id"])
        except BaseException as error:  # reported by the test, not lost in the thread
            self.error = error


@dataclass
class Uploader:
    """Sends one chunked append through the balancer, chunk by chunk, resending a chunk that failed."""

    url: str
    upload: Chunks
    sent: int = 0
    answer: JsonObject | None = None
    error: BaseException | None = None

    def run(self) -> None:
        try:
            with httpx2.Client(base_url=self.url, timeout=10) as client:
                total = len(self.upload.pieces)
                for index in range(total):
                    answer = body_of(send(client, "/api/request/chunk", self.upload.envelope(index)))
                    self.sent = index + 1
                    if index == total - 1:
                        self.answer = answer
                    time.sleep(0.02)  # a client on a slow link: the upload spans the crash
        except BaseException as error:
            self.error = error


def wait_until(check: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {timeout} s: {what}")
        time.sleep(0.02)


def test_a_node_killed_mid_upload_and_mid_appends_loses_nothing_acknowledged(
    pg_url: str, tmp_path: Path
) -> None:
    with (
        running_cluster(tmp_path, db=new_database(pg_url)) as cluster,
        httpx2.Client(base_url=cluster.url, timeout=10) as client,
    ):
        appenders = [Appender(cluster.url, f"s{n}") for n in range(4)]
        for appender in appenders:
            body_of(
                send(client, "/api/session/init", {"sessionId": appender.session, "staticContext": CONTEXT})
            )
        base, tail = chain("b", 2), chain("u", 50, parent="b1")
        body_of(send(client, "/api/session/init", {"sessionId": "up", "staticContext": CONTEXT}))
        body_of(send(client, "/api/session/tree/sync", {"sessionId": "up", "entries": base, "leafId": "b1"}))
        uploader = Uploader(
            cluster.url,
            Chunks("/api/session/tree/append", {"sessionId": "up", "entries": tail, "leafId": "u49"}, 600),
        )
        total = len(uploader.upload.pieces)
        assert total >= 40

        stop = threading.Event()
        threads = [threading.Thread(target=a.run, args=(stop,)) for a in appenders]
        threads.append(threading.Thread(target=uploader.run))
        for thread in threads:
            thread.start()
        try:
            wait_until(
                lambda: uploader.sent >= total // 3 and sum(len(a.acked) for a in appenders) >= 40,
                30,
                "a third of the upload and 40 appends",
            )
            cluster.kill9(0)
            at_kill = uploader.sent, sum(len(a.acked) for a in appenders)
            wait_until(
                lambda: uploader.answer is not None or uploader.error is not None,
                60,
                "the upload completed after the crash",
            )
            wait_until(lambda: sum(len(a.acked) for a in appenders) >= at_kill[1] + 40, 30, "40 appends more")
        finally:
            stop.set()
            for thread in threads:
                thread.join(timeout=60)
        for failed in [uploader.error, *(a.error for a in appenders)]:
            if failed is not None:
                raise AssertionError(f"a client gave up: {failed}\n{cluster.logs()}") from failed
        assert 0 < at_kill[0] < total, "the node was killed mid-upload"
        nginx_log = (tmp_path / "nginx" / "error.log").read_text()
        assert cluster.nodes[0].removeprefix("http://") in nginx_log, "nginx saw the dead node fail"

        assert uploader.answer is not None
        assert (
            uploader.answer["treeHash"] == tree_hash([*base, *tail]) and uploader.answer["entryCount"] == 52
        )
        cluster.start(0)  # the dead node back on the same database: it agrees too
        for url in cluster.nodes:
            with httpx2.Client(base_url=url, timeout=10) as node:
                for appender in appenders:
                    stored = body_of(node.get(f"/api/session/{appender.session}/history"))
                    ids = [str(e["id"]) for e in entries_of(stored)]
                    assert ids == appender.acked, (
                        f"{url} {appender.session}: acknowledged appends lost or doubled"
                    )
                    assert entries_of(stored) == appender.sent[: len(ids)]
                    assert stored["treeHash"] == tree_hash(appender.sent[: len(ids)])
                uploaded = body_of(node.get("/api/session/up/history"))
                assert entries_of(uploaded) == [*base, *tail], f"{url}: the upload applied once, whole"
                assert uploaded["treeHash"] == tree_hash([*base, *tail])


# a run on a node that dies


def test_a_run_on_a_killed_node_is_interrupted_within_the_lease_bound(pg_url: str, tmp_path: Path) -> None:
    """Needs the run leases (`--run-lease-seconds`): the run's node renews its lease while it streams;
    dead, its lease lapses and another node marks the run `interrupted`."""
    args = (*FAUX, "--run-lease-seconds", str(RUN_LEASE_SECONDS))
    env = faux_script(tmp_path, LONG_REPLY)
    with running_cluster(tmp_path, db=new_database(pg_url), env=env, args=args) as cluster:
        one, two = cluster.nodes[0], cluster.nodes[1]
        with httpx2.Client(base_url=one, timeout=30) as client:
            body_of(send(client, "/api/session/init", {"sessionId": "s1", "staticContext": CONTEXT}))
            first = entry("u0", None, text="tell me a long story")
            body_of(
                send(
                    client,
                    "/api/session/tree/append",
                    {"sessionId": "s1", "entries": [first], "leafId": "u0"},
                )
            )
        streamed: list[JsonObject] = []
        started = threading.Event()

        def stream() -> None:  # the client of node one; its stream ends with the node
            try:
                with (
                    httpx2.Client(base_url=one, timeout=30) as client,
                    client.stream("POST", "/api/stream", json={"sessionId": "s1", "runId": "r1"}) as answer,
                ):
                    for event in sse_events(answer.iter_lines()):
                        streamed.append(event)
                        if event.get("type") == "text_delta":
                            started.set()
            except httpx2.HTTPError:
                pass

        reader = threading.Thread(target=stream)
        reader.start()
        assert started.wait(20), f"the run did not start streaming: {streamed}\n{cluster.logs()}"
        with httpx2.Client(base_url=two, timeout=10) as other:
            assert body_of(other.get("/api/session/s1/runs/r1"))["status"] == "running", "seen from node two"
            cluster.kill9(0)
            killed = time.monotonic()
            reader.join(timeout=10)
            assert streamed[-1]["type"] not in ("done", "error"), "the run was still going when its node died"
            status: object = "running"
            while status == "running" and time.monotonic() - killed < INTERRUPTED_WITHIN + 5:
                status = body_of(other.get("/api/session/s1/runs/r1"))["status"]
                time.sleep(0.1)
            took = time.monotonic() - killed
            print(f"run r1 {status} {took:.1f} s after its node was killed")
            assert status == "interrupted", f"after {took:.1f} s: {status}\n{cluster.logs()}"
            assert took <= INTERRUPTED_WITHIN, f"interrupted only after {took:.1f} s"

            # the client starts the turn again under the same run id, on a live node: not 409 forever
            deadline = time.monotonic() + INTERRUPTED_WITHIN
            while True:
                again = other.post("/api/stream", json={"sessionId": "s1", "runId": "r1"})
                if again.status_code != 409 or time.monotonic() > deadline:
                    break
                time.sleep(0.2)
            assert again.status_code == 200, again.text
            events = list(sse_events(iter(again.text.splitlines())))
            assert events[-1]["type"] == "done", events[-3:]
            text = "".join(str(e["delta"]) for e in events if e["type"] == "text_delta")
            assert text == LONG_REPLY
            assert body_of(other.get("/api/session/s1/runs/r1"))["status"] == "completed"


# a page on another node


@pytest.mark.browser
def test_a_page_on_another_node_shows_a_run_of_the_first_live(pg_url: str, tmp_path: Path) -> None:
    """Needs the run events in the store: node two's `/web/api/sessions/{id}/events` carries the events
    of a run going on in node one."""
    env = faux_script(tmp_path, LONG_REPLY + " The end.")
    args = ("--approve", "auto", "--run-lease-seconds", str(RUN_LEASE_SECONDS))
    with (
        running_cluster(tmp_path, db=new_database(pg_url), env=env, args=args, n=2) as cluster,
        httpx2.Client(base_url=cluster.nodes[0], timeout=30) as one,
        browser_page(tmp_path) as page,
    ):
        csrf = {"X-Rein-CSRF": csrf_of(one.get("/", headers=BROWSER).text)}
        created = one.post("/web/api/sessions", json={}, headers=csrf)
        assert created.status_code == 201, created.text
        sid = str(created.json()["id"])
        page.goto(f"{cluster.nodes[1]}/#/s/{sid}")
        expect(page.locator(sel("run-state"))).to_have_text("idle")

        prompted = one.post(f"/web/api/sessions/{sid}/prompt", json={"text": "a long story"}, headers=csrf)
        assert prompted.status_code == 202, prompted.text
        live = page.locator(sel("live"))
        expect(live).to_contain_text("word10", timeout=15_000)
        run = one.get(f"/web/api/sessions/{sid}").json()["run"]
        assert run["state"] == "running", "node two showed the text before the run on node one ended"
        expect(page.locator(sel("run-state"))).to_have_text("running")
        expect(page.locator(sel("run-state"))).to_have_text("idle", timeout=30_000)
        expect(page.locator(sel("conversation"))).to_contain_text("word119 The end.")


# readiness, the drain, metrics


def is_ready(node: httpx2.Client) -> bool:
    return node.get("/ready").status_code == 200


def requests(method: str, route: str, status: int) -> str:
    return f'rein_http_requests_total{{method="{method}",route="{route}",status="{status}"}}'


def metric(text: str, line_start: str) -> float:
    values = [float(line.rsplit(" ", 1)[1]) for line in text.splitlines() if line.startswith(line_start)]
    return sum(values)


def test_ready_follows_the_database_and_the_drain_and_metrics_count_requests(tmp_path: Path) -> None:
    with (
        running_postgres() as pg,
        running_cluster(tmp_path, db=pg.dsn, args=("--drain-seconds", "3")) as cluster,
        httpx2.Client(base_url=cluster.url, timeout=10) as balancer,
    ):
        nodes = [httpx2.Client(base_url=url, timeout=10) for url in cluster.nodes]
        try:
            for node in nodes:
                ready = node.get("/ready")
                assert (ready.status_code, ready.json()) == (200, {"status": "ready"})
            body_of(send(balancer, "/api/session/init", {"sessionId": "s1", "staticContext": CONTEXT}))
            for _ in range(6):
                body_of(balancer.get("/api/session/s1/history"))
            text = nodes[1].get("/metrics").text
            assert metric(text, requests("GET", "/api/session/{session_id}/history", 200)) >= 1, text
            assert metric(text, requests("GET", "/ready", 200)) == 1

            pg.stop()
            for node in nodes:
                began = time.monotonic()
                answer = node.get("/ready")
                assert answer.status_code == 503 and answer.json()["status"].startswith("store unavailable: ")
                assert time.monotonic() - began < 3, "a probe is bounded"
                assert node.get("/health").json() == {"status": "ok"}, "alive without its database"
            began = time.monotonic()
            assert balancer.get("/api/session/s1/history").status_code >= 500
            assert time.monotonic() - began < 10, "a request fails, it does not hang"
            pg.start()
            for node in nodes:
                wait_until(partial(is_ready, node), 15, "ready again")
            assert metric(nodes[0].get("/metrics").text, requests("GET", "/ready", 503)) >= 1

            process = process_of(cluster.nodes[0])
            signalled = time.monotonic()
            process.send_signal(signal.SIGTERM)
            wait_until(lambda: nodes[0].get("/ready").status_code == 503, 2, "draining at once")
            assert nodes[0].get("/ready").json() == {"status": "draining"}
            assert nodes[0].get("/health").status_code == 200
            assert body_of(nodes[0].get("/api/session/s1/history"))["entryCount"] == 0, "still serving"
            for _ in range(6):
                body_of(balancer.get("/api/session/s1/history"))
            assert process.wait(timeout=10) == 0
            stopped = time.monotonic() - signalled
            assert 3 <= stopped < 8, f"stopped {stopped:.1f} s after SIGTERM, the drain is 3 s"
            cluster.stop(0)
            for _ in range(6):  # the stopped node's share goes to the others
                body_of(balancer.get("/api/session/s1/history"))
        finally:
            for node in nodes:
                node.close()
