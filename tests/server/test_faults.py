"""Faults against a real `rein serve` on each store backend: a client killed mid-upload and resumed, the
server SIGKILLed under a stream of appends and restarted on the same database, two clients diverging
on one session, corrupted, divergent, duplicate and out-of-order chunks.

What must hold: an upload completes once however it is resumed; every append that was acknowledged
(a 200 received) survives a crash, untorn, with a tree hash that matches its entries; a client that
diverged is refused with a divergence code and rebuilt from history, and never overwrites the server.
"""

from __future__ import annotations

import asyncio
import base64
import random
import socket
import threading
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import httpx2
import pytest

from rein.protocol import (
    CHUNK_ENDPOINT,
    DIVERGENCE_CODES,
    chunk_checksum,
    js_json,
    prefix_hashes,
    tree_hash,
)
from rein.session.remote import Reconciled, ServerTransport, TreeSync
from tests.server.helpers import free_port, kill9, running_server

pytestmark = pytest.mark.slow
JsonObject = dict[str, object]
JSON = {"Content-Type": "application/json"}
CONTEXT = {"systemPrompt": "Be brief.", "tools": [{"name": "bash", "description": "run", "parameters": {}}]}


def entry(entry_id: str, parent: str | None, text: str = "") -> JsonObject:
    """A pi-dialect message entry of a few hundred bytes."""
    role = "user" if entry_id.endswith(("0", "2", "4", "6", "8")) else "assistant"
    body = text or f"entry {entry_id}: " + "the quick brown fox jumps over the lazy dog. " * 6
    return {
        "type": "message", "id": entry_id, "parentId": parent, "timestamp": "2026-01-01T00:00:00.000Z",
        "message": {"role": role, "content": [{"type": "text", "text": body}], "timestamp": 1767225600000},
    }  # fmt: skip


def chain(prefix: str, count: int, parent: str | None = None) -> list[JsonObject]:
    entries = []
    for n in range(count):
        entries.append(entry(f"{prefix}{n}", parent))
        parent = f"{prefix}{n}"
    return entries


def post(client: httpx2.Client, path: str, body: object, status: int = 200) -> JsonObject:
    answer = client.post(path, content=js_json(body).encode(), headers={"Content-Type": "application/json"})
    assert answer.status_code == status, answer.text
    result = answer.json()
    assert isinstance(result, dict)
    return result


def history(client: httpx2.Client, session: str) -> JsonObject:
    answer = client.get(f"/api/session/{session}/history")
    assert answer.status_code == 200, answer.text
    result = answer.json()
    assert isinstance(result, dict)
    return result


def entries_of(body: JsonObject) -> list[JsonObject]:
    value = body["entries"]
    assert isinstance(value, list)
    return value


@dataclass
class Upload:
    """One body cut into envelopes as the fork's ChunkRequest does (base64 of its JSON, sha256 of each
    piece), under one requestId."""

    target: str
    body: object
    size: int
    request_id: str = field(default_factory=lambda: str(uuid.uuid4()))

    @property
    def pieces(self) -> list[str]:
        encoded = base64.b64encode(js_json(self.body).encode()).decode()
        return [encoded[i : i + self.size] for i in range(0, len(encoded), self.size)]

    def envelope(self, index: int, *, chunk: str | None = None, sha: str | None = None) -> JsonObject:
        pieces = self.pieces
        text = pieces[index] if chunk is None else chunk
        return {
            "requestId": self.request_id, "target": self.target, "chunkIndex": index,
            "totalChunks": len(pieces), "sha256": sha or chunk_checksum(text), "chunk": text,
        }  # fmt: skip

    def send(self, client: httpx2.Client, index: int) -> httpx2.Response:
        text = js_json(self.envelope(index))
        return client.post(
            CHUNK_ENDPOINT, content=text.encode(), headers={"Content-Type": "application/json"}
        )

    def ack(self, client: httpx2.Client, index: int) -> None:
        answer = self.send(client, index)
        assert answer.status_code == 200, answer.text
        wanted = {
            "received": True,
            "requestId": self.request_id,
            "chunkIndex": index,
            "totalChunks": len(self.pieces),
        }
        assert answer.json() == wanted


def cut_off(url: str, body: str) -> None:
    """POST half of `body` to the chunk endpoint and close the connection: a client killed mid-request."""
    host, port = url.removeprefix("http://").split(":")
    raw = body.encode()
    head = f"POST {CHUNK_ENDPOINT} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n"
    with socket.create_connection((host, int(port))) as sock:
        sock.sendall(f"{head}Content-Length: {len(raw)}\r\n\r\n".encode() + raw[: len(raw) // 2])


@pytest.fixture
def server(store_url: str, tmp_path: Path) -> Iterator[str]:
    with running_server(tmp_path, db=store_url) as url:
        yield url


@pytest.fixture
def client(server: str) -> Iterator[httpx2.Client]:
    with httpx2.Client(base_url=server, timeout=30) as http:
        yield http


def start_session(client: httpx2.Client, session: str, entries: list[JsonObject]) -> JsonObject:
    post(client, "/api/session/init", {"sessionId": session, "staticContext": CONTEXT})
    leaf = entries[-1]["id"] if entries else None
    return post(client, "/api/session/tree/sync", {"sessionId": session, "entries": entries, "leafId": leaf})


# uploads


def test_an_upload_cut_off_midway_completes_once_when_resumed(client: httpx2.Client, server: str) -> None:
    base = chain("a", 2)
    start_session(client, "s1", base)
    tail = chain("b", 6, parent="a1")
    upload = Upload(
        "/api/session/tree/append", {"sessionId": "s1", "entries": tail, "leafId": "b5"}, size=400
    )
    total = len(upload.pieces)
    assert total >= 6
    with httpx2.Client(base_url=server, timeout=30) as killed:  # sends a third, then is gone
        for index in range(total // 3):
            upload.ack(killed, index)
    cut_off(server, js_json(upload.envelope(total // 3)))  # killed while sending the next one
    assert history(client, "s1")["entryCount"] == 2, "a partial upload is not applied"

    # the resumed client does not know what arrived: it sends every chunk again, under the same id
    for index in range(total - 1):
        upload.ack(client, index)
    answer = upload.send(client, total - 1)
    assert answer.status_code == 200, answer.text
    completed = answer.json()
    assert (completed["entryCount"], completed["leafId"]) == (8, "b5")
    assert completed["treeHash"] == tree_hash([*base, *tail])

    retried = upload.send(client, total - 1)  # the last answer was lost: the client retries it
    assert retried.status_code == 200 and retried.json()["treeHash"] == completed["treeHash"]
    upload.ack(client, 0)  # a stray earlier chunk after completion is only acknowledged
    after = history(client, "s1")
    assert (after["entryCount"], after["revision"]) == (8, completed["revision"]), "applied exactly once"
    assert [e["id"] for e in entries_of(after)] == [e["id"] for e in [*base, *tail]]


def test_pending_chunks_survive_a_server_crash(store_url: str, tmp_path: Path) -> None:
    """Chunks are kept in the store, not in the process: an upload resumed after a SIGKILL and a
    restart on the same database completes without resending what was acknowledged."""
    port = ("--port", str(free_port()))
    upload = Upload(
        "/api/session/tree/sync", {"sessionId": "s1", "entries": chain("a", 6), "leafId": "a5"}, 500
    )
    with running_server(tmp_path, db=store_url, args=port) as url, httpx2.Client(base_url=url) as client:
        post(client, "/api/session/init", {"sessionId": "s1", "staticContext": CONTEXT})
        for index in range(len(upload.pieces) - 1):
            upload.ack(client, index)
        kill9(url)
    with running_server(tmp_path, db=store_url, args=port) as url, httpx2.Client(base_url=url) as client:
        answer = upload.send(client, len(upload.pieces) - 1)
        assert answer.status_code == 200, answer.text
        assert answer.json()["treeHash"] == tree_hash(chain("a", 6))


def test_out_of_order_and_duplicate_chunks_assemble_once(client: httpx2.Client) -> None:
    start_session(client, "s1", [])
    entries = chain("a", 8)
    upload = Upload("/api/session/tree/append", {"sessionId": "s1", "entries": entries, "leafId": "a7"}, 300)
    order = list(range(len(upload.pieces)))
    random.Random(14).shuffle(order)
    last = order.pop()
    for index in order:
        upload.ack(client, index)
        upload.ack(client, random.Random(index).choice(order[: order.index(index) + 1]))  # a duplicate
    answer = upload.send(client, last)
    assert answer.status_code == 200, answer.text
    assert (answer.json()["entryCount"], answer.json()["treeHash"]) == (8, tree_hash(entries))
    assert entries_of(history(client, "s1")) == entries


def test_a_corrupted_chunk_is_refused_and_the_upload_still_completes(client: httpx2.Client) -> None:
    start_session(client, "s1", [])
    entries = chain("a", 4)
    upload = Upload("/api/session/tree/append", {"sessionId": "s1", "entries": entries, "leafId": "a3"}, 300)
    total = len(upload.pieces)
    upload.ack(client, 0)
    piece = upload.pieces[1]
    flipped = piece[:5] + ("A" if piece[5] != "A" else "B") + piece[6:]
    corrupted = post(
        client, CHUNK_ENDPOINT, upload.envelope(1, chunk=flipped, sha=chunk_checksum(piece)), 400
    )
    assert corrupted["code"] == "INVALID_REQUEST" and "1" in str(corrupted["error"])
    assert history(client, "s1")["entryCount"] == 0
    for index in range(1, total - 1):
        upload.ack(client, index)
    answer = upload.send(client, total - 1)
    assert answer.status_code == 200 and answer.json()["treeHash"] == tree_hash(entries), answer.text


def test_a_divergent_duplicate_chunk_is_refused(client: httpx2.Client) -> None:
    start_session(client, "s1", [])
    upload = Upload(
        "/api/session/tree/append", {"sessionId": "s1", "entries": chain("a", 4), "leafId": "a3"}, 300
    )
    upload.ack(client, 0)
    other = upload.pieces[0][::-1]
    refused = post(client, CHUNK_ENDPOINT, upload.envelope(0, chunk=other), 400)
    assert refused["code"] == "INVALID_REQUEST"
    for index in range(1, len(upload.pieces)):
        answer = upload.send(client, index)
    assert answer.status_code == 200, "the first version of chunk 0 stands"
    assert answer.json()["treeHash"] == tree_hash(chain("a", 4))


def test_chunks_that_assemble_into_garbage_change_nothing(client: httpx2.Client) -> None:
    start_session(client, "s1", chain("a", 2))
    encoded = base64.b64encode(b'{"sessionId": "s1", "entries": [oops').decode()
    pieces = [encoded[:20], encoded[20:]]
    request_id = str(uuid.uuid4())
    for index, piece in enumerate(pieces):
        body = {
            "requestId": request_id, "target": "/api/session/tree/append", "chunkIndex": index,
            "totalChunks": 2, "sha256": chunk_checksum(piece), "chunk": piece,
        }  # fmt: skip
        answer = client.post(
            CHUNK_ENDPOINT, content=js_json(body).encode(), headers={"Content-Type": "application/json"}
        )
    assert answer.status_code == 400, answer.text
    assert history(client, "s1")["treeHash"] == tree_hash(chain("a", 2))


# crashes


@dataclass
class Appender:
    """Appends one entry at a time to its own session until the server goes away; remembers every entry
    it sent and which were acknowledged."""

    url: str
    session: str
    sent: list[JsonObject] = field(default_factory=list)
    acked: list[str] = field(default_factory=list)

    def run(self, stop: threading.Event) -> None:
        parent: str | None = None
        with httpx2.Client(base_url=self.url, timeout=10) as client:
            for n in range(100_000):
                if stop.is_set():
                    return
                item = entry(f"{self.session}-{n}", parent)
                self.sent.append(item)
                body = {"sessionId": self.session, "entries": [item], "leafId": item["id"]}
                try:
                    answer = client.post(
                        "/api/session/tree/append", content=js_json(body).encode(), headers=JSON
                    )
                except httpx2.TransportError:
                    return
                if answer.status_code != 200:
                    return
                self.acked.append(str(item["id"]))
                parent = str(item["id"])


def test_a_server_killed_mid_append_loses_no_acknowledged_entry(store_url: str, tmp_path: Path) -> None:
    port = ("--port", str(free_port()))
    appenders: list[Appender] = []
    with running_server(tmp_path, db=store_url, args=port) as url, httpx2.Client(base_url=url) as client:
        appenders = [Appender(url, f"s{n}") for n in range(4)]
        for appender in appenders:
            start_session(client, appender.session, [])
        stop = threading.Event()
        threads = [threading.Thread(target=a.run, args=(stop,)) for a in appenders]
        for thread in threads:
            thread.start()
        try:
            while sum(len(a.acked) for a in appenders) < 60 and all(t.is_alive() for t in threads):
                threading.Event().wait(0.01)  # poll the appenders' progress, not a guess at timing
            kill9(url)
        finally:
            stop.set()
            for thread in threads:
                thread.join(timeout=30)
    assert sum(len(a.acked) for a in appenders) >= 60, "the appenders stopped before the crash"
    assert any(len(a.sent) > len(a.acked) for a in appenders), "no append was in flight at the kill"

    with running_server(tmp_path, db=store_url, args=port) as url, httpx2.Client(base_url=url) as client:
        for appender in appenders:
            stored = history(client, appender.session)
            entries = entries_of(stored)
            ids = [str(e["id"]) for e in entries]
            assert ids[: len(appender.acked)] == appender.acked, "an acknowledged append was lost"
            assert len(ids) - len(appender.acked) <= 1, (
                "only the one in flight may have landed unacknowledged"
            )
            assert entries == appender.sent[: len(entries)], "a stored entry differs from what was sent"
            assert stored["treeHash"] == tree_hash(entries) and stored["entryCount"] == len(entries)
            assert stored["leafId"] == (ids[-1] if ids else None)
            # the session goes on from the recovered state; its prefix hashes are the ones a client keeps
            more = entry(f"{appender.session}-next", ids[-1] if ids else None)
            after = post(
                client,
                "/api/session/tree/append",
                {"sessionId": appender.session, "entries": [more], "leafId": more["id"]},
            )
            assert after["treeHash"] == prefix_hashes([*entries, more])[-1]


# two clients on one session


def test_two_clients_diverging_on_one_session(client: httpx2.Client, server: str) -> None:
    """A and B share a synced tree; A goes on; B, stale, builds on what the server never got and
    reuses an id for other content: both are refused with divergence codes, nothing of A's is
    overwritten, and history (as a patch on B's known prefix) gives B the server's tree."""
    shared = chain("s", 3)
    start_session(client, "s1", shared)
    a_turn = chain("a", 3, parent="s2")
    with httpx2.Client(base_url=server, timeout=30) as b:
        after_a = post(
            client, "/api/session/tree/append", {"sessionId": "s1", "entries": a_turn, "leafId": "a2"}
        )
        b_lost = entry("b0", "s2")  # B's append of b0 never reached the server
        b_next = entry("b1", "b0")
        refused = post(
            b, "/api/session/tree/append", {"sessionId": "s1", "entries": [b_next], "leafId": "b1"}, 400
        )
        assert refused["code"] == "PARENT_ENTRY_NOT_FOUND" and refused["code"] in DIVERGENCE_CODES
        clash = entry("a0", "s2", text="B's different first reply")
        refused = post(
            b, "/api/session/tree/append", {"sessionId": "s1", "entries": [clash], "leafId": "a0"}, 400
        )
        assert refused["code"] == "ENTRY_ALREADY_EXISTS"
        refused = post(b, "/api/session/tree/switch", {"sessionId": "s1", "leafId": "b0"}, 400)
        assert refused["code"] == "LEAF_ID_NOT_FOUND"

        b_tree = [*shared, b_lost, b_next]
        known = prefix_hashes(b_tree)[3]
        patch_answer = b.get("/api/session/s1/history", params={"entriesFrom": 3, "baseTreeHash": known})
        server_view = patch_answer.json()
        patch = server_view["treePatch"]
        rebuilt = b_tree[: patch["entriesFrom"]] + patch["entries"]
        assert tree_hash(rebuilt) == server_view["treeHash"] == after_a["treeHash"]
        assert patch["leafId"] == "a2"

        stale = b.get(
            "/api/session/s1/history", params={"entriesFrom": 5, "baseTreeHash": prefix_hashes(b_tree)[5]}
        )
        assert stale.json()["entries"] == [*shared, *a_turn], "a prefix the server lacks gets the whole tree"

        final = history(client, "s1")
        assert (final["treeHash"], final["revision"], final["leafId"]) == (
            after_a["treeHash"],
            after_a["revision"],
            "a2",
        )
        # reconciled, B appends on the server's tree and both see the same state
        b_reply = entry("b2", "a2")
        mine = post(b, "/api/session/tree/append", {"sessionId": "s1", "entries": [b_reply], "leafId": "b2"})
        assert mine["treeHash"] == tree_hash([*rebuilt, b_reply]) == history(client, "s1")["treeHash"]


def test_a_stale_rein_client_adopts_the_servers_tree(client: httpx2.Client, server: str) -> None:
    """The same divergence through rein's own client (`TreeSync`): B, stale, appends where A already
    went on, then after A replaced the tree; each time B ends with the server's tree (`Reconciled`)
    and the server keeps A's entries."""
    shared = chain("s", 3)

    async def main() -> None:
        a_link, b_link = ServerTransport(server), ServerTransport(server)
        try:
            a, b = TreeSync(a_link, "s1"), TreeSync(b_link, "s1")
            await a.sync(shared, "s2", CONTEXT)
            await b.sync(shared, "s2", CONTEXT)
            a_tree = [*shared, *chain("a", 2, parent="s2")]
            await a.sync(a_tree, "a1", CONTEXT)

            b_tree = [*shared, entry("b0", "s2")]  # B never saw a0, a1: its append lands as a branch
            with pytest.raises(Reconciled) as first:
                await b.sync(b_tree, "b0", CONTEXT)
            server_tree = first.value.snapshot.entries
            assert [e["id"] for e in server_tree] == ["s0", "s1", "s2", "a0", "a1", "b0"]
            assert tree_hash(server_tree) == history(client, "s1")["treeHash"]

            replaced = chain("r", 2)  # A uploads a replacement tree (a full sync)
            post(client, "/api/session/tree/sync", {"sessionId": "s1", "entries": replaced, "leafId": "r1"})
            with pytest.raises(Reconciled) as second:
                await b.sync([*server_tree, entry("b1", "b0")], "b1", CONTEXT)
            assert second.value.snapshot.entries == replaced and second.value.snapshot.leaf_id == "r1"
        finally:
            await a_link.aclose()
            await b_link.aclose()

    asyncio.run(main())
    assert entries_of(history(client, "s1")) == chain("r", 2), "B never overwrote the server"
