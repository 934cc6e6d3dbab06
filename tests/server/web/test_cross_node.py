"""Two `rein serve` processes on one PostgreSQL: a page on one process watches, steers, answers and
aborts a run going on in the other, resumes its event stream on the other with its last event id,
and learns when the process running it dies."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx2
import pytest

from tests.server.helpers import kill9, running_server
from tests.server.pg import new_database
from tests.server.web.helpers import BROWSER, IDLE, Web, csrf_of

pytestmark = [pytest.mark.postgres, pytest.mark.slow]
LEASE = 2
SLOW = "word " * 200  # 1,000 characters, 4 a chunk, 20 ms a chunk: 5 s of streaming


@dataclass
class Pair:
    one: Web
    two: Web


@contextmanager
def two_nodes(tmp: Path, pg_url: str, replies: list[object]) -> Iterator[Pair]:
    db = new_database(pg_url)
    script = tmp / "faux-script.json"
    script.write_text(json.dumps({"delay": 0.02, "chunkSize": 4, "replies": replies}))
    args = ("--approve", "ask", "--run-lease-seconds", str(LEASE), "--drain-seconds", "0")
    with ExitStack() as stack:
        webs: list[Web] = []
        for name in ("one", "two"):
            url = stack.enter_context(
                running_server(tmp / name, db=db, env={"REIN_FAUX_SCRIPT": str(script)}, args=args)
            )
            client = stack.enter_context(httpx2.Client(base_url=url, timeout=30))
            webs.append(
                Web(url=url, client=client, csrf=csrf_of(client.get("/", headers=BROWSER).text), tmp=tmp)
            )
        yield Pair(*webs)


def _session(pair: Pair, tmp: Path) -> str:
    return pair.one.new_session()


def test_a_page_on_another_process_watches_and_steers_a_run(tmp_path: Path, pg_url: str) -> None:
    with two_nodes(tmp_path, pg_url, [[{"text": SLOW}], [{"text": "steered"}]]) as pair:
        assert pair.one.csrf == pair.two.csrf  # one secret in the store: a page works on any process
        sid = _session(pair, tmp_path)
        with pair.two.events(sid) as watching:
            pair.one.post(f"/sessions/{sid}/prompt", {"text": "go"}, status=202)
            watching.wait_for(lambda e: e.get("type") == "delta", count=5)
            view = pair.two.get(f"/sessions/{sid}")
            assert view["run"] == {"state": "running", "question": None}
            listed = pair.two.client.get("/web/api/sessions").json()["sessions"]
            assert [s["running"] for s in listed if s["id"] == sid] == [True]
            # a second prompt through the other process is refused: one run per session, cluster-wide
            refused = pair.two.client.post(
                f"/web/api/sessions/{sid}/prompt",
                json={"text": "again"},
                headers={"X-Rein-CSRF": pair.two.csrf},
            )
            assert refused.status_code == 409 and refused.json()["code"] == "RUN_IN_PROGRESS"
            pair.two.post(f"/sessions/{sid}/steer", {"text": "be brief"}, status=202)
            watching.wait_for(lambda e: e == IDLE, timeout=40)
            text = "".join(str(e["text"]) for e in watching.of("delta") if e.get("source") == "text")
            assert SLOW in text and "steered" in text  # the whole run, live, then the steered turn
            assert not any(e.get("type") == "control" for e in watching.events)  # not the page's
        conversation = str(pair.two.get(f"/sessions/{sid}")["html"])
        assert "be brief" in conversation and "steered" in conversation


def test_a_reconnect_to_the_other_process_resumes_after_the_last_event(tmp_path: Path, pg_url: str) -> None:
    with two_nodes(tmp_path, pg_url, [[{"text": SLOW}]]) as pair:
        sid = _session(pair, tmp_path)
        with pair.one.events(sid) as first:
            pair.one.post(f"/sessions/{sid}/prompt", {"text": "go"}, status=202)
            first.wait_for(lambda e: e.get("type") == "delta", count=10)
        last = max(first.ids)
        seen = len(first.events)
        resumed = pair.two.client.stream(
            "GET", f"/web/api/sessions/{sid}/events", headers={"Last-Event-ID": str(last)}, timeout=60
        )
        ids: list[int] = []
        with resumed as stream:
            for line in stream.iter_lines():
                if line.startswith("id: "):
                    ids.append(int(line[4:]))
                if line.startswith("data: ") and json.loads(line[6:]) == IDLE:
                    break
        assert ids[0] == last + 1 and ids == list(range(last + 1, last + 1 + len(ids)))  # no gap, no repeat
        assert seen + len(ids) > 100


def test_a_page_aborts_a_run_of_another_process_and_learns_when_it_dies(tmp_path: Path, pg_url: str) -> None:
    with two_nodes(tmp_path, pg_url, [[{"text": SLOW}], [{"text": SLOW}]]) as pair:
        sid = _session(pair, tmp_path)
        with pair.two.events(sid) as watching:
            pair.one.post(f"/sessions/{sid}/prompt", {"text": "go"}, status=202)
            watching.wait_for(lambda e: e.get("type") == "delta", count=3)
            assert pair.two.post(f"/sessions/{sid}/abort", {}, status=202) == {"state": "running"}
            watching.wait_for(lambda e: e == IDLE)
        assert pair.two.get(f"/sessions/{sid}")["run"] == {"state": "idle", "question": None}
        # a second run, and its process dies under it: the other process says so within the lease
        with pair.two.events(sid) as watching:
            pair.one.post(f"/sessions/{sid}/prompt", {"text": "again"}, status=202)
            watching.wait_for(lambda e: e.get("type") == "delta", count=3)
            kill9(pair.one.url)
            died = time.monotonic()
            watching.wait_for(lambda e: e == IDLE, timeout=LEASE + 10)
            assert time.monotonic() - died < LEASE + 3
            (error,) = watching.of("error")
            assert "interrupted" in str(error["message"])
        run = pair.two.client.get(f"/api/session/{sid}/runs/rein:web").json()
        assert run["status"] == "interrupted"
        pair.two.post(f"/sessions/{sid}/prompt", {"text": "continue"}, status=202)  # not 409 for ever


def test_a_page_on_another_process_answers_the_runs_question(tmp_path: Path, pg_url: str) -> None:
    call = {"tool": "bash", "id": "c1", "arguments": {"command": "touch answered"}}
    with two_nodes(tmp_path, pg_url, [[call], [{"text": "done"}]]) as pair:
        sid = _session(pair, tmp_path)
        with pair.two.events(sid) as watching:
            pair.one.post(f"/sessions/{sid}/prompt", {"text": "touch it"}, status=202)
            question = watching.wait_for(lambda e: e.get("type") == "question")[0]
            assert pair.two.get(f"/sessions/{sid}")["run"] == {"state": "running", "question": question}
            wrong = {"questionId": "nope", "value": "Allow once"}
            assert pair.two.post(f"/sessions/{sid}/answer", wrong, status=404)["code"] == "QUESTION_NOT_FOUND"
            pair.two.post(f"/sessions/{sid}/answer", {"questionId": question["id"], "value": "Allow once"})
            watching.wait_for(lambda e: e == IDLE)
        assert (tmp_path / "one" / "answered").exists()  # the session's directory, on the run's process
