"""Two `rein serve` processes on one PostgreSQL: a client alternating between them converges, two clients
appending through different servers at once lose no acknowledged entry, and a writer whose lease was
taken over is refused."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import httpx2
import pytest

from rein.protocol import EMPTY_TREE_HASH, js_json, next_tree_hash, tree_hash
from rein.server.store import Change, EntryRow, Lease, PostgresStore, SessionRow, WriterFenced
from tests.server.helpers import running_server
from tests.server.pg import new_database
from tests.server.test_faults import CONTEXT, JSON, JsonObject, entries_of, entry, history, post

pytestmark = [pytest.mark.postgres, pytest.mark.slow]


@pytest.fixture
def two_servers(pg_url: str, tmp_path: Path) -> Iterator[tuple[httpx2.Client, httpx2.Client]]:
    """Two server processes (their own homes and lease holders) on one fresh database."""
    db = new_database(pg_url)
    with ExitStack() as stack:
        urls = [stack.enter_context(running_server(tmp_path / name, db=db)) for name in ("one", "two")]
        yield (
            stack.enter_context(httpx2.Client(base_url=urls[0], timeout=30)),
            stack.enter_context(httpx2.Client(base_url=urls[1], timeout=30)),
        )


def summary(body: JsonObject) -> tuple[object, ...]:
    return body["treeHash"], body["entryCount"], body["revision"], body["leafId"], body["staticContextHash"]


def test_a_client_alternating_between_two_servers_converges(
    two_servers: tuple[httpx2.Client, httpx2.Client],
) -> None:
    servers = two_servers
    post(servers[0], "/api/session/init", {"sessionId": "s1", "staticContext": CONTEXT})
    sent: list[JsonObject] = []
    leaf: str | None = None
    for n in range(50):
        parent = leaf if n % 10 != 5 else str(sent[n - 3]["id"])  # every tenth turn branches off
        item = entry(f"e{n}", parent)
        body = {"sessionId": "s1", "entries": [item], "leafId": item["id"], "staticContext": CONTEXT}
        answer = post(servers[n % 2], "/api/session/tree/append", body)
        sent.append(item)
        leaf = str(item["id"])
        assert (answer["treeHash"], answer["entryCount"]) == (tree_hash(sent), n + 1), f"append {n}"
        if n % 7 == 6:  # switch back to an older leaf through the other server, then return
            back = post(
                servers[(n + 1) % 2], "/api/session/tree/switch", {"sessionId": "s1", "leafId": f"e{n - 4}"}
            )
            assert (back["treeHash"], back["leafId"]) == (answer["treeHash"], f"e{n - 4}")
            post(servers[n % 2], "/api/session/tree/switch", {"sessionId": "s1", "leafId": leaf})

    views = [history(server, "s1") for server in servers]
    assert summary(views[0]) == summary(views[1])
    assert (
        views[0]["treeHash"] == tree_hash(sent)
        and views[0]["entryCount"] == 50
        and views[0]["leafId"] == "e49"
    )
    assert entries_of(views[0]) == entries_of(views[1]) == sent
    assert views[0]["messages"] == views[1]["messages"]
    inits = [
        post(server, "/api/session/init", {"sessionId": "s1", "staticContext": CONTEXT}) for server in servers
    ]
    assert summary(inits[0]) == summary(inits[1]) == summary(views[0])


def test_concurrent_appends_through_two_servers_lose_nothing_acknowledged(
    two_servers: tuple[httpx2.Client, httpx2.Client],
) -> None:
    """Two clients, each on its own server, each growing its own branch of one session at once: every
    append acknowledged by either server is in the tree both servers report."""
    servers = two_servers
    post(servers[0], "/api/session/init", {"sessionId": "s1", "staticContext": CONTEXT})
    root = entry("root", None)
    post(servers[0], "/api/session/tree/append", {"sessionId": "s1", "entries": [root], "leafId": "root"})
    acked: dict[str, list[str]] = {"a": [], "b": []}
    refused: list[str] = []
    start = threading.Barrier(2)

    def grow(branch: str, client: httpx2.Client) -> None:
        parent = "root"
        start.wait()
        for n in range(25):
            item = entry(f"{branch}{n}", parent)
            body = {"sessionId": "s1", "entries": [item], "leafId": item["id"]}
            answer = client.post("/api/session/tree/append", content=js_json(body).encode(), headers=JSON)
            if answer.status_code != 200:  # a contended write the server gave up on: retry it once
                refused.append(answer.text)
                answer = client.post("/api/session/tree/append", content=js_json(body).encode(), headers=JSON)
            if answer.status_code == 200:
                acked[branch].append(str(item["id"]))
                parent = str(item["id"])

    threads = [
        threading.Thread(target=grow, args=(name, server)) for name, server in zip("ab", servers, strict=True)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    views = [history(server, "s1") for server in servers]
    assert summary(views[0]) == summary(views[1])
    stored = entries_of(views[0])
    ids = [str(item["id"]) for item in stored]
    assert len(ids) == len(set(ids)), "an entry was stored twice"
    for branch in "ab":
        assert set(acked[branch]) <= set(ids), f"an acknowledged append of {branch} was lost"
        assert [i for i in ids if i.startswith(branch)] == acked[branch], "order of a branch kept"
    assert views[0]["treeHash"] == tree_hash(stored) and views[0]["entryCount"] == len(stored)
    assert len(acked["a"]) + len(acked["b"]) >= 45, f"too many refusals under contention: {refused[:3]}"


def test_a_writer_whose_lease_was_taken_over_is_refused(pg_url: str) -> None:
    """Two stores (two servers' connection pools) on one database: A holds the session's lease, B takes
    it over with the next fence, and A's commit is refused while B's goes through."""
    db = new_database(pg_url)

    async def main() -> None:
        a, b = await PostgresStore.open(db), await PostgresStore.open(db)
        try:
            row = SessionRow(
                owner="", session_id="s1", static_context=None, static_context_hash="", leaf_id=None,
                revision=0, entry_count=0, tree_hash=EMPTY_TREE_HASH, created_ms=1, updated_ms=1,
            )  # fmt: skip
            await a.create(row)
            lease_a = await a.acquire("s1", "server-a")
            lease_b = await b.acquire("s1", "server-b")
            assert (lease_b.holder, lease_b.fence) == ("server-b", lease_a.fence + 1)
            first = {"type": "message", "id": "e0", "parentId": None}
            rows = [
                EntryRow(
                    seq=0,
                    entry_id="e0",
                    json=js_json(first),
                    tree_hash=next_tree_hash(EMPTY_TREE_HASH, first),
                )
            ]
            change = Change(append=rows, leaf_id="e0", tree_hash=rows[0].tree_hash, entry_count=1, now_ms=2)
            with pytest.raises(WriterFenced):
                await a.commit("", "s1", change, revision=0, lease=lease_a)
            assert await b.entries("", "s1") == [], "the fenced writer wrote nothing"
            done = await b.commit("", "s1", change, revision=0, lease=lease_b)
            assert (done.revision, done.entry_count) == (1, 1)
            stale = Lease(session_id="s1", holder="server-a", fence=lease_a.fence)
            with pytest.raises(WriterFenced):
                await a.commit("", "s1", Change(leaf_id="e0"), revision=1, lease=stale)
            assert (await a.session("", "s1")) == done
        finally:
            await a.close()
            await b.close()

    asyncio.run(main())
