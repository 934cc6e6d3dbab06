"""Runs belong to the cluster: a run's lease, its end when its process dies (interrupted, with what
was streamed), its hand-over at shutdown, and the event log every process reads."""

from __future__ import annotations

import json
import signal
import threading
import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path

import httpx2
import pytest

from rein.server.store import RunRow, Store
from rein.server.store._schema import SCHEMA_VERSION
from tests.server.conftest import StoreCase
from tests.server.helpers import free_port, kill9, process_of, running_server
from tests.server.test_store import raw_sql, schema_versions

FAUX = ("--provider", "faux", "--model", "faux-1")
STATIC = {"systemPrompt": "Be brief.", "tools": []}
LONG = "word " * 120  # 600 characters, 4 a chunk, 20 ms a chunk: about 3 s of streaming
# (the script's replies are five times that: 15 s, longer than a stopping server waits for a stream)


def _run(run_id: str, holder: str, until: int, status: str = "running") -> RunRow:
    return RunRow(
        owner="o", session_id="s", run_id=run_id, status=status,  # type: ignore[arg-type]
        created_ms=1, updated_ms=1, holder=holder, lease_until_ms=until,
    )  # fmt: skip


def test_a_live_run_is_claimed_once_and_a_lapsed_one_is_interrupted(store: StoreCase) -> None:
    async def body(s: Store) -> None:
        assert await s.claim_run(_run("r", "a#1", until=1000), now_ms=500)
        assert not await s.claim_run(_run("r", "b#1", until=2000), now_ms=900)  # a's lease is live
        assert [r.run_id for r in await s.live_runs("o", 900)] == ["r"]
        assert await s.renew_run(_run("r", "a#1", until=1500))
        assert not await s.renew_run(_run("r", "b#1", until=9000))  # not b's to renew
        assert await s.interrupt_lapsed(1400, "gone") == []
        (lapsed,) = await s.interrupt_lapsed(1600, "gone")
        assert (lapsed.status, lapsed.error_message, lapsed.holder) == ("interrupted", "gone", "a#1")
        assert await s.live_runs("o", 1600) == []
        assert await s.interrupt_lapsed(1700, "gone") == []  # once
        # the client sends the request again: a new attempt takes the run over...
        assert await s.claim_run(_run("r", "b#2", until=5000), now_ms=1700)
        # ...and the old attempt, back from a stall, cannot overwrite it
        assert not await s.finish_run(_run("r", "a#1", until=0, status="completed"))
        assert await s.finish_run(_run("r", "b#2", until=0, status="completed"))
        run = await s.run("o", "s", "r")
        assert run is not None and (run.status, run.holder) == ("completed", "b#2")
        # a finished run expires; a running one never does, however old
        assert await s.claim_run(_run("q", "c#1", until=10), now_ms=1)
        assert await s.expire_runs(10**15) == 1
        assert await s.run("o", "s", "q") is not None and await s.run("o", "s", "r") is None

    store.run(body)


def test_the_event_log_numbers_events_per_session(store: StoreCase) -> None:
    async def body(s: Store) -> None:
        assert await s.last_event("o", "s") == 0
        assert await s.put_events("o", "s", ['{"n": 1}', '{"n": 2}'], 100) == 2
        assert await s.put_events("o", "t", ['{"n": 9}'], 100) == 1
        assert await s.put_events("o", "s", ['{"n": 3}'], 200) == 3
        assert await s.events_after("o", "s", 1, 10) == [(2, '{"n": 2}'), (3, '{"n": 3}')]
        assert await s.events_after("o", "s", 0, 1) == [(1, '{"n": 1}')]
        await s.expire_events(150)
        assert [seq for seq, _ in await s.events_after("o", "s", 0, 10)] == [3]
        assert await s.secret("csrf", "first") == "first"
        assert await s.secret("csrf", "second") == "first"  # every process gets the same

    store.run(body)


V2_RUNS = (
    "CREATE TABLE schema_version (version BIGINT NOT NULL)",
    "INSERT INTO schema_version (version) VALUES (2)",
    """CREATE TABLE runs (owner TEXT NOT NULL, session_id TEXT NOT NULL, run_id TEXT NOT NULL,
    status TEXT NOT NULL, message TEXT, error_message TEXT, created_ms BIGINT NOT NULL,
    updated_ms BIGINT NOT NULL, PRIMARY KEY (owner, session_id, run_id))""",
    "INSERT INTO runs VALUES ('o', 's', 'stuck', 'running', NULL, NULL, 1, 2)",
)
"""A version-2 database with a run a crash left `running` (for ever, then)."""


def test_a_run_left_running_by_an_older_rein_is_interrupted_after_the_upgrade(store: StoreCase) -> None:
    raw_sql(store, *V2_RUNS)

    async def body(s: Store) -> None:
        (run,) = await s.interrupt_lapsed(10**13, "gone")
        assert (run.run_id, run.status, run.lease_until_ms) == ("stuck", "interrupted", 0)

    store.run(body)
    assert schema_versions(store) == [SCHEMA_VERSION]


def _script(tmp: Path, text: str = LONG * 5) -> dict[str, str]:
    script = tmp / "faux-script.json"
    script.write_text(json.dumps({"delay": 0.02, "chunkSize": 4, "replies": [[{"text": text}]] * 4}))
    return {"REIN_FAUX_SCRIPT": str(script)}


def _start_stream(url: str, run_id: str) -> tuple[threading.Thread, list[str]]:
    """POST /api/stream on a thread; the text deltas it reads go to the list."""
    got: list[str] = []

    def read() -> None:
        body = {"sessionId": "s1", "runId": run_id, "ephemeralMessages": [{"role": "user", "content": "go"}]}
        try:
            with httpx2.stream("POST", f"{url}/api/stream", json=body, timeout=30) as answer:
                for line in answer.iter_lines():
                    if line.startswith("data: "):
                        event = json.loads(line[6:])
                        if event.get("type") == "text_delta":
                            got.append(str(event["delta"]))
        except httpx2.HTTPError:
            return  # the server died under it

    thread = threading.Thread(target=read, daemon=True)
    thread.start()
    return thread, got


def _wait(check: Callable[[], object], timeout: float = 20.0) -> float:
    """Poll `check()` until truthy; the seconds it took."""
    start = time.monotonic()
    while not check():
        if time.monotonic() - start > timeout:
            raise AssertionError(f"not reached in {timeout} s")
        time.sleep(0.05)
    return time.monotonic() - start


@pytest.fixture
def port() -> int:
    return free_port()


def _server(tmp: Path, port: int, lease: int, text: str = LONG * 5) -> AbstractContextManager[str]:
    """The server on `port`; its faux replies are `text` (a restarted process starts the script over)."""
    args = (*FAUX, "--port", str(port), "--run-lease-seconds", str(lease), "--drain-seconds", "0")
    return running_server(tmp, env=_script(tmp, text), args=args)


@pytest.mark.slow
def test_a_run_whose_server_was_killed_is_interrupted_with_what_it_streamed(
    tmp_path: Path, port: int
) -> None:
    with _server(tmp_path, port, lease=1) as url:
        httpx2.post(f"{url}/api/session/init", json={"sessionId": "s1", "staticContext": STATIC})
        thread, got = _start_stream(url, "r1")
        _wait(lambda: len(got) >= 50)  # a second of streaming: the lease was renewed with the reply so far
        kill9(url)
        thread.join(10)
    with (
        _server(tmp_path, port, lease=1, text="again") as url,
        httpx2.Client(base_url=url, timeout=30) as client,
    ):
        took = _wait(lambda: client.get("/api/session/s1/runs/r1").json()["status"] != "running", timeout=10)
        run = client.get("/api/session/s1/runs/r1").json()
        assert run["status"] == "interrupted" and "stopped" in run["errorMessage"], run
        streamed = run["message"]["content"][0]["text"]
        assert streamed and (LONG * 5).startswith(streamed), run  # the reply so far, as last renewed
        assert run["message"]["stopReason"] == "error"
        assert took < 5
        # the client sends it again with the same run id: a new run, not 409 for ever
        again = client.post("/api/stream", json={"sessionId": "s1", "runId": "r1"})
        assert again.status_code == 200 and '"type": "done"' in again.text
        assert client.get("/api/session/s1/runs/r1").json()["status"] == "completed"


@pytest.mark.slow
def test_a_server_stopped_mid_run_hands_the_run_over_at_once(tmp_path: Path, port: int) -> None:
    with _server(tmp_path, port, lease=600) as url:
        httpx2.post(f"{url}/api/session/init", json={"sessionId": "s1", "staticContext": STATIC})
        thread, got = _start_stream(url, "r1")
        _wait(lambda: len(got) >= 5)
        process_of(url).send_signal(signal.SIGTERM)
        process_of(url).wait(20)
        thread.join(10)
    with _server(tmp_path, port, lease=600, text="again") as url:
        run = httpx2.get(f"{url}/api/session/s1/runs/r1").json()
        assert run["status"] == "interrupted", run  # not left running for the 600 s lease
        running = httpx2.post(f"{url}/api/stream", json={"sessionId": "s1", "runId": "r1"}, timeout=30)
        assert running.status_code == 200
