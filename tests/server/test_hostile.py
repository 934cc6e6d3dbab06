"""Hostile and broken clients against a real `rein serve`: nesting too deep, numbers no double holds,
non-ASCII digits, `/api/stream` bodies that `init` would refuse, a store that goes away, one user's
uploads filling the chunk store, slow request heads (slowloris), many idle connections from one
address, a stalled body. Each gets a 4xx or 503 naming the problem, never a 500, and the server keeps
answering everyone else meanwhile."""

from __future__ import annotations

import base64
import contextlib
import json
import select
import socket
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import httpx2
import pytest

from rein.protocol import CHUNK_ENDPOINT, chunk_checksum, tree_hash
from rein.server._json_bounds import MAX_DEPTH
from tests.server.helpers import running_server
from tests.server.pg import execute, new_database

pytestmark = pytest.mark.slow
JSON = {"Content-Type": "application/json"}
CONTEXT = {"systemPrompt": "Be brief.", "tools": [{"name": "bash"}]}


@pytest.fixture(scope="module")
def url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with running_server(tmp_path_factory.mktemp("hostile"), args=("--rate-per-minute", "0")) as base:
        yield base


def nested(levels: int) -> str:
    return "[" * levels + '"x"' + "]" * levels


def deep_append(session: str, levels: int, count: int = 60) -> str:
    """A tree/append body whose entries' content nests `levels` arrays deep (the body adds 4 levels:
    itself, `entries`, the entry, its `message`)."""
    entries = [
        f'{{"type":"message","id":"e{i}","parentId":{json.dumps(f"e{i - 1}" if i else None)},'
        f'"message":{{"role":"user","content":{nested(levels)}}}}}'
        for i in range(count)
    ]
    return f'{{"sessionId":"{session}","entries":[{",".join(entries)}],"leafId":"e{count - 1}"}}'


def address(url: str) -> tuple[str, int]:
    parts = urlsplit(url)
    assert parts.hostname is not None and parts.port is not None
    return parts.hostname, parts.port


# input


@pytest.mark.parametrize("levels", [900, 950])
def test_nesting_too_deep_is_400_and_the_server_goes_on(url: str, levels: int) -> None:
    answer = httpx2.post(f"{url}/api/session/tree/append", content=deep_append("deep", levels), headers=JSON)
    assert answer.status_code == 400, answer.text
    assert answer.json() == {
        "error": f"body nests arrays and objects more than {MAX_DEPTH} deep",
        "code": "INVALID_REQUEST",
    }
    assert httpx2.get(f"{url}/api/session/deep/history").status_code == 404, "nothing was stored"
    assert httpx2.get(f"{url}/health").json() == {"status": "ok"}


def test_nesting_at_the_limit_is_stored_whole(url: str) -> None:
    body = deep_append("at-limit", MAX_DEPTH - 4)
    answer = httpx2.post(f"{url}/api/session/tree/append", content=body, headers=JSON)
    assert answer.status_code == 200, answer.text
    sent = json.loads(body)["entries"]
    stored = httpx2.get(f"{url}/api/session/at-limit/history").json()
    assert stored["entries"] == sent and stored["treeHash"] == answer.json()["treeHash"] == tree_hash(sent)
    too_deep = httpx2.post(
        f"{url}/api/session/tree/append", content=deep_append("at-limit", MAX_DEPTH - 3), headers=JSON
    )
    assert too_deep.status_code == 400, "one level more is refused"


@pytest.mark.parametrize("number", ["1e400", "-1e400"])
def test_a_number_beyond_a_double_is_400_naming_it(url: str, number: str) -> None:
    body = (
        '{"sessionId":"numbers","leafId":"n0","entries":[{"type":"message","id":"n0","parentId":null,'
        f'"message":{{"role":"user","content":"x","timestamp":{number}}}}}]}}'
    )
    answer = httpx2.post(f"{url}/api/session/tree/append", content=body, headers=JSON)
    assert answer.status_code == 400, answer.text
    assert answer.json()["error"] == f"number {number} is not a finite double"
    assert httpx2.get(f"{url}/api/session/numbers/history").status_code == 404


@pytest.mark.parametrize("stamp", ["1e300", "-1e18", "99999999999999999999"])
def test_a_message_time_no_date_holds_is_400(url: str, stamp: str) -> None:
    body = f'{{"sessionId":"times","messages":[{{"role":"user","content":"x","timestamp":{stamp}}}]}}'
    answer = httpx2.post(f"{url}/api/session/append", content=body, headers=JSON)
    assert (answer.status_code, answer.json()["details"]) == (400, {"field": "messages[0].timestamp"})


@pytest.mark.parametrize("digits", ["²", "١٢"])
def test_non_ascii_digits_in_a_query_are_400_on_both_apis(url: str, digits: str) -> None:
    init = httpx2.post(f"{url}/api/session/init", json={"sessionId": "query", "staticContext": CONTEXT})
    assert init.status_code == 200
    history = httpx2.get(f"{url}/api/session/query/history", params={"entriesFrom": digits})
    assert (history.status_code, history.json()["details"]) == (400, {"field": "entriesFrom"})
    page = httpx2.get(f"{url}/web/api/sessions/query", params={"limit": digits})
    assert (page.status_code, page.json()["code"]) == (400, "INVALID_REQUEST"), page.text


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"sessionId": "../../etc/passwd"}, "sessionId"),
        ({"sessionId": "s" * 100_000}, "sessionId"),
        ({"sessionId": 7}, "sessionId"),
        ({"sessionId": "ok", "runId": "../run"}, "runId"),
        ({"sessionId": "ok", "staticContext": []}, "staticContext"),
        ({"sessionId": "ok", "staticContext": {"tools": [{"nome": "x"}]}}, "staticContext.tools[0].name"),
        ({"sessionId": "ok", "staticContext": {"systemPrompt": 5}}, "staticContext.systemPrompt"),
    ],
)
def test_stream_checks_its_body_as_init_does(tmp_path: Path, body: dict[str, object], field: str) -> None:
    with running_server(tmp_path) as base:
        answer = httpx2.post(f"{base}/api/stream", json=body)
        assert answer.status_code == 400, answer.text
        assert answer.json()["error"].startswith(field + " ") and answer.json()["details"] == {"field": field}
        assert httpx2.get(f"{base}/api/sessions").json() == {"sessions": []}, "no session was created"


# the store


@pytest.mark.postgres
def test_a_store_outage_is_503_with_retry_after_then_recovers(pg_url: str, tmp_path: Path) -> None:
    database = new_database(pg_url)
    name = urlsplit(database).path.lstrip("/")
    admin = f"{pg_url.rpartition('/')[0]}/postgres"
    with running_server(tmp_path, db=database) as base, httpx2.Client(base_url=base, timeout=30) as client:
        assert client.post("/api/session/init", json={"sessionId": "s1"}).status_code == 200
        execute(admin, f"ALTER DATABASE {name} ALLOW_CONNECTIONS false")
        execute(admin, f"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '{name}'")
        try:
            answers = [
                client.get("/api/session/s1/history"),
                client.post("/api/session/init", json={"sessionId": "s2"}),
            ]
            for answer in answers:
                assert answer.status_code == 503, answer.text
                assert answer.json()["code"] == "INTERNAL_ERROR" and answer.headers["Retry-After"] == "2"
                assert "store unavailable" in answer.json()["error"]
        finally:
            execute(admin, f"ALTER DATABASE {name} ALLOW_CONNECTIONS true")
        assert client.get("/api/session/s1/history").status_code == 200, "back once the database is"


def test_a_value_the_store_refuses_is_400_not_a_retry(store_url: str, tmp_path: Path) -> None:
    """PostgreSQL's TEXT holds no NUL: a field stored as sent with one is the request's fault (400),
    not an outage (503). SQLite stores it. (Entries are stored as JSON text, where NUL is escaped.)"""
    with running_server(tmp_path, db=store_url) as base:
        answer = httpx2.post(f"{base}/api/session/init", json={"sessionId": "nul", "cwd": "/a\0b"})
        if store_url.startswith("postgresql"):
            assert (answer.status_code, answer.json()["code"]) == (400, "INVALID_REQUEST"), answer.text
            assert "the store refused a value" in answer.json()["error"]
        else:
            assert answer.status_code == 200, answer.text


# chunks


def chunk(request_id: str, index: int, text: str, total: int = 10) -> dict[str, object]:
    return {
        "requestId": request_id, "target": "/api/session/tree/sync", "chunkIndex": index,
        "totalChunks": total, "sha256": chunk_checksum(text), "chunk": text,
    }  # fmt: skip


def test_one_users_uploads_do_not_refuse_anothers(tmp_path: Path) -> None:
    tokens = tmp_path / "tokens"
    tokens.write_text("ann tok-ann\nbob tok-bob\ncid tok-cid\n")
    args = (
        "--tokens-file",
        str(tokens),
        "--max-pending-chunks-mb-per-user",
        "1",
        "--max-pending-chunks-mb",
        "2",
    )
    piece = base64.b64encode(b"p" * 225_000).decode()  # 300,000 bytes of chunk text
    with running_server(tmp_path, args=args) as base:

        def send(who: str, body: dict[str, object]) -> httpx2.Response:
            return httpx2.post(
                f"{base}{CHUNK_ENDPOINT}", json=body, headers={"Authorization": f"Bearer tok-{who}"}
            )

        for index in range(3):
            assert send("ann", chunk("a", index, piece)).status_code == 200
        full = send("ann", chunk("a", 3, piece))
        assert (full.status_code, full.json()["details"]) == (413, {"limit": 1024 * 1024}), full.text
        assert "your pending chunk bytes" in full.json()["error"]
        for index in range(3):
            assert send("bob", chunk("b", index, piece)).status_code == 200, (
                "ann's uploads refuse nobody else"
            )
        everyone = send("cid", chunk("c", 0, piece))
        assert (everyone.status_code, everyone.json()["error"]) == (
            413,
            "Request chunk pending bytes limit exceeded",
        ), "the total cap holds too"
        small = base64.b64encode(
            json.dumps({"sessionId": "b1", "entries": [], "leafId": None}).encode()
        ).decode()
        assert send("cid", chunk("c-small", 0, small, total=1)).json()["sessionId"] == "b1", "under both caps"


# slow and greedy connections


def test_slow_request_heads_are_cut_while_others_are_answered(tmp_path: Path) -> None:
    request = b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
    with running_server(tmp_path, args=("--header-timeout", "1")) as base:
        sockets = [socket.create_connection(address(base)) for _ in range(50)]
        open_ = set(sockets)
        started = time.monotonic()
        answered = False
        try:
            for byte in range(len(request)):  # one byte every 0.3 s: 12 s for the head, were it let be
                for sock in list(open_):
                    try:
                        sock.sendall(request[byte : byte + 1])
                    except OSError:  # reset: the server closed it
                        open_.discard(sock)
                readable, _, _ = select.select(list(open_), [], [], 0)
                for sock in readable:
                    with contextlib.suppress(OSError):
                        assert sock.recv(4096) == b"", "closed without an answer"
                    open_.discard(sock)
                if byte == 1:
                    answered = httpx2.get(f"{base}/health", timeout=5).status_code == 200
                if not open_:
                    break
                time.sleep(0.3)
            assert answered, "a normal request was answered while the slow ones were open"
            assert not open_, f"{len(open_)} slow connections still open"
            assert time.monotonic() - started < 6
        finally:
            for sock in sockets:
                sock.close()


def keep_alive_health(sock: socket.socket) -> bytes:
    sock.sendall(b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
    return sock.recv(4096)


def test_connections_per_address_are_capped(tmp_path: Path) -> None:
    with running_server(tmp_path, args=("--max-connections-per-client", "5")) as base:
        held = [socket.create_connection(address(base), timeout=5) for _ in range(5)]
        try:
            for sock in held:
                assert keep_alive_health(sock).startswith(b"HTTP/1.1 200"), "five are let in"
            with socket.create_connection(address(base), timeout=5) as sixth:
                refused = b""
                while part := sixth.recv(4096):  # until the server closes it
                    refused += part
                assert refused.startswith(b"HTTP/1.1 503"), refused
                assert b"retry-after: 1" in refused and b'"code": "RATE_LIMITED"' in refused
            held.pop().close()
            deadline = time.monotonic() + 5
            while True:  # the server sees the close a moment later
                answer = httpx2.get(f"{base}/health", timeout=5)
                if answer.status_code == 200 or time.monotonic() > deadline:
                    break
                time.sleep(0.05)
            assert answer.status_code == 200
        finally:
            for sock in held:
                sock.close()


def test_a_stalled_body_is_408(tmp_path: Path) -> None:
    with running_server(tmp_path, args=("--body-timeout", "1")) as base:
        with socket.create_connection(address(base), timeout=10) as sock:
            sock.sendall(
                b"POST /api/session/init HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                b'Content-Length: 100\r\n\r\n{"sessionId": '
            )
            started = time.monotonic()
            answer = sock.recv(4096)
            while not answer.endswith(b"}"):  # the head and the body may come apart
                answer += sock.recv(4096)
            assert answer.startswith(b"HTTP/1.1 408"), answer
            assert b"request body stalled" in answer and time.monotonic() - started < 5
        assert httpx2.get(f"{base}/api/sessions").json() == {"sessions": []}
