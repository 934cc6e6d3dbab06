"""`rein serve` answers a pi-client as the pi-server fork's own server did: the exchanges recorded from
the fork's server (`tests/server/compat/recorded/`, the format in `tests/server/compat/_recorded.py`)
replayed byte for byte against a fresh rein on each backend, every difference listed. No node needed:
the recordings are data. `tests/server/test_fork_live.py` runs the fork's client itself, when a
checkout is at hand."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from rein.protocol import tree_hash
from tests.server.compat._recorded import (
    RECORDED,
    JsonObject,
    Recording,
    body_text,
    compact_text,
    differences,
    load_recordings,
)
from tests.server.compat._replayer import Replayer, rein_server
from tests.server.conftest import BACKENDS
from tests.server.fork.upstream import Upstream
from tests.server.pg import new_database

RECORDINGS = load_recordings()
CASES = [
    pytest.param(recording, backend.values[0], id=f"{recording.name}-{backend.id}", marks=backend.marks)
    for recording in RECORDINGS
    for backend in (BACKENDS if not recording.name.startswith("server-tests/") else BACKENDS[:1])
]
"""The client session on every backend; the fork's server tests, which say nothing a store could
change that the session does not, on the first (SQLite) only: a minute less of the suite."""


@pytest.mark.slow
@pytest.mark.parametrize(("recording", "backend"), CASES)
def test_rein_answers_as_the_fork(
    recording: Recording, backend: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    db = None if backend == "sqlite" else new_database(request.getfixturevalue("pg_url"))
    with Upstream() as upstream, rein_server(tmp_path, upstream.base_url, recording.token, db) as served:
        replayer = Replayer(served.url, upstream.take, served.restart, served.uploads)
        problems = replayer.run(recording)
    assert not problems, f"{len(problems)} differences from the fork:\n" + "\n".join(problems)


def test_client_session_covers_the_client() -> None:
    """The recorded client session has every route the client calls, the codes it recovers from, the
    options and messages the issue names, and on the fork the client's hashes were the server's."""
    document = json.loads((RECORDED / "client-session.json").read_text(encoding="utf-8"))
    exchanges = [e for e in document["exchanges"] if not e.get("restart")]
    routes = {f"{e['request']['method']} {e['request']['path'].split('?')[0]}" for e in exchanges}
    wanted = [
        "GET /", "POST /api/session/init", "POST /api/session/update", "POST /api/session/tree/append",
        "POST /api/session/tree/switch", "POST /api/session/tree/sync", "POST /api/session/compact",
        "POST /api/stream", "POST /api/request/chunk", "POST /api/receive", "DELETE /api/session/drive-gone",
    ]  # fmt: skip
    assert [route for route in wanted if route not in routes] == []
    paths = [e["request"]["path"] for e in exchanges]
    assert any("/history?entriesFrom=" in p for p in paths) and any(p.endswith("/history") for p in paths)
    assert any("/runs/" in p for p in paths)
    answers = json.dumps([e["response"] for e in exchanges])
    codes = [
        "LEAF_ID_NOT_FOUND", "ENTRY_ALREADY_EXISTS", "PARENT_ENTRY_NOT_FOUND", "SESSION_NO_STATIC_CONTEXT",
        "RUN_NOT_FOUND", '"treePatch"', '"status": "failed"', '"status": "completed"',
    ]  # fmt: skip
    assert [code for code in codes if code not in answers] == []
    envelopes = [body_text(e["request"]["body"]) for e in exchanges if "chunk" in e["request"]["path"]]
    chunked = {json.loads(text)["target"] for text in envelopes}
    assert chunked == {"/api/session/tree/append", "/api/stream", "/api/receive"}
    upstream = [u for e in exchanges for u in e.get("upstream", [])]
    options = {"max_completion_tokens": 777, "temperature": 0.3, "reasoning_effort": "high"}
    assert options.items() <= upstream[0].items()
    assert {u["model"] for u in upstream} == {"gpt-drive-1", "gpt-drive-2"}
    assert any(u.get("max_completion_tokens") == 3333 and "temperature" not in u for u in upstream)
    sent = "\n".join(body_text(e["request"]["body"]) for e in exchanges)
    needles = ['"stopReason":"deferred"', '"stopReason":"pending"', "\\ud83d and", '"keepRecentTokens":100']
    assert [needle for needle in needles if needle not in sent] == []
    assert any(e.get("restart") for e in document["exchanges"])
    steps = document["client"]["steps"]
    assert all(step["hashesMatch"] for step in steps if "hashesMatch" in step)
    assert sum("hashesMatch" in step for step in steps) >= 20


# the comparison itself


def test_differences_fail_on_a_wrong_answer() -> None:
    chain = [{"type": "message", "id": "a", "parentId": None}]
    fork = {"treeHash": tree_hash(chain), "entryCount": 1, "leafId": None, "error": "x", "code": "C"}
    ignore = {"error": "wording"}
    assert differences(fork, {**fork, "extra": 1, "error": "other words"}, ignore) == []
    wrong = [
        {**fork, "treeHash": tree_hash([*chain, *chain])},
        {key: value for key, value in fork.items() if key != "leafId"},
        {**fork, "entryCount": True},
        {**fork, "code": "D"},
        {**fork, "error": None},
    ]
    for answer in wrong:
        assert differences(fork, answer, ignore) != [], answer
    events = [{"event": "message", "data": {"type": "done", "usage": {"input": 20}}}]
    assert differences(events, [*events, *events], {}) != []
    assert differences(events, [{"event": "message", "data": {"type": "done", "usage": {}}}], {}) != []
    assert differences([{"x": 1}], [{"x": 2}], {"*.x": "varies"}) == []


def test_replayer_fails_on_a_wrong_status_hash_or_upstream(tmp_path: Path) -> None:
    exchange: JsonObject = {
        "name": "init",
        "request": {"method": "POST", "path": "/api/session/init", "body": '{"sessionId":"s"}'},
        "response": {
            "status": 200,
            "contentType": "application/json",
            "json": {"treeHash": "h1", "id": "fork-id-1"},
        },
        "ignore": {"id": "minted: made up"},
        "upstream": [],
    }
    answers: list[tuple[int, object, list[object]]] = [
        (200, {"treeHash": "h1", "id": "minted-by-rein"}, []),
        (400, {"treeHash": "h1", "id": "m2"}, []),
        (200, {"treeHash": "h2", "id": "m3"}, []),
        (200, {"treeHash": "h1", "id": "m4"}, [{"model": "x"}]),
        (200, {"treeHash": "h1", "entries": [], "id": "m5"}, []),
    ]
    with _answering([(status, body) for status, body, _ in answers]) as url:
        takes: Iterator[list[object]] = iter([s for *_, taken in answers for s in ([], taken)])
        replayer = Replayer(url, lambda: next(takes), lambda: None)
        found = [replayer.exchange(exchange)]
        assert found[0] == [] and replayer.minted == {"fork-id-1": "minted-by-rein"}
        assert replayer._swap("parent fork-id-1") == "parent minted-by-rein"
        found += [replayer.exchange(exchange) for _ in answers[1:]]
    assert any("status 400" in p for p in found[1])
    assert any("treeHash" in p for p in found[2])
    assert any("upstream" in p for p in found[3])
    assert any("not the hash" in p for p in found[4])


def test_big_bodies_are_kept_as_runs() -> None:
    text = '{"chunk":"' + "eHh4" * 100_000 + '","sha256":"' + "0" * 64 + '"}'
    compact = compact_text(text)
    assert isinstance(compact, dict) and len(json.dumps(compact)) < 300
    assert body_text(compact) == text
    assert compact_text("small") == "small"


@contextmanager
def _answering(answers: list[tuple[int, object]]) -> Iterator[str]:
    """A server that answers each request with the next (status, JSON body)."""
    queue = iter(answers)

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("content-length") or 0))
            status, body = next(queue)
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
