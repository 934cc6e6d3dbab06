"""Contention: two and three `rein serve` processes on one PostgreSQL, six clients appending to ONE
session at once, each request to the next process in turn (as a load balancer spreads them), each
client growing its own branch. The servers fence and conflict with each other all the time; they
retry until it goes through, so no client sees a 409, and every acknowledged entry is stored once."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import httpx2
import pytest

from rein.protocol import js_json, tree_hash
from tests.server.helpers import running_server
from tests.server.pg import new_database
from tests.server.test_faults import CONTEXT, JSON, JsonObject, entries_of, entry, history, post

pytestmark = [pytest.mark.postgres, pytest.mark.slow]
CLIENTS = 6
APPENDS = 25


@pytest.fixture
def three_servers(pg_url: str, tmp_path: Path) -> Iterator[list[str]]:
    db = new_database(pg_url)
    with ExitStack() as stack:
        yield [stack.enter_context(running_server(tmp_path / f"server{n}", db=db)) for n in range(3)]


def fenced_retries(url: str) -> float:
    """The server's `rein_fenced_retries_total`: commits it retried because another writer got there
    first."""
    answer = httpx2.get(f"{url}/metrics", timeout=10)
    assert answer.status_code == 200, answer.text
    lines = [line for line in answer.text.splitlines() if line.startswith("rein_fenced_retries_total ")]
    return float(lines[0].split()[1])


@pytest.mark.parametrize("servers", [2, 3])
def test_clients_writing_one_session_through_several_servers_see_no_409(
    three_servers: list[str], servers: int
) -> None:
    urls = three_servers[:servers]
    with httpx2.Client(base_url=urls[0], timeout=30) as first:
        post(first, "/api/session/init", {"sessionId": "s1", "staticContext": CONTEXT})
        root = entry("root", None)
        post(first, "/api/session/tree/append", {"sessionId": "s1", "entries": [root], "leafId": "root"})
    retried = sum(fenced_retries(url) for url in urls)
    sent: dict[str, JsonObject] = {"root": root}
    acked: dict[int, list[str]] = {n: [] for n in range(CLIENTS)}
    refused: list[str] = []
    start = threading.Barrier(CLIENTS)

    def grow(client: int) -> None:
        with ExitStack() as stack:
            http = [stack.enter_context(httpx2.Client(base_url=url, timeout=30)) for url in urls]
            parent = "root"
            start.wait()
            for n in range(APPENDS):
                item = entry(f"c{client}-{n}", parent)
                sent[str(item["id"])] = item
                body = js_json({"sessionId": "s1", "entries": [item], "leafId": item["id"]}).encode()
                answer = http[(client + n) % servers].post(
                    "/api/session/tree/append", content=body, headers=JSON
                )
                if answer.status_code != 200:
                    refused.append(f"{answer.status_code} {answer.text[:200]}")
                    return
                acked[client].append(str(item["id"]))
                parent = str(item["id"])

    threads = [threading.Thread(target=grow, args=(n,)) for n in range(CLIENTS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert refused == [], f"{len(refused)} appends refused, first: {refused[0]}"
    assert sum(len(ids) for ids in acked.values()) == CLIENTS * APPENDS

    views = []
    for url in urls:
        with httpx2.Client(base_url=url, timeout=30) as http:
            views.append(history(http, "s1"))
    stored = entries_of(views[0])
    ids = [str(item["id"]) for item in stored]
    assert len(ids) == len(set(ids)), "an entry was stored twice"
    assert set(ids) == {"root"} | {i for branch in acked.values() for i in branch}
    for client, branch in acked.items():
        assert [i for i in ids if i.startswith(f"c{client}-")] == branch, "a branch keeps its order"
    assert stored == [sent[i] for i in ids], "every entry stored as it was sent"
    assert views[0]["treeHash"] == tree_hash(stored) and views[0]["entryCount"] == len(stored)
    assert all(
        (view["treeHash"], view["revision"], view["entryCount"])
        == (views[0]["treeHash"], views[0]["revision"], views[0]["entryCount"])
        for view in views
    ), "every server reports the same tree"
    assert sum(fenced_retries(url) for url in urls) > retried, "the servers never contended: not a test"
