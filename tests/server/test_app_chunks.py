"""Chunked requests against a real `rein serve`: in order, out of order, duplicates, a corrupted
chunk, a divergent duplicate, a retried last chunk, and an upload that survives the server being
killed (SIGKILL) between chunks, since the chunks are in the store."""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest

from rein.protocol import chunk_checksum, tree_hash
from tests.server.helpers import free_port, kill9, running_server

pytestmark = pytest.mark.slow
TARGET = "/api/session/tree/append"
ENTRIES = [
    {
        "type": "message",
        "id": f"e{i}",
        "parentId": f"e{i - 1}" if i else None,
        "message": {"role": "user", "content": f"m{i}"},
    }
    for i in range(8)
]


def pieces(session: str, size: int = 200) -> list[str]:
    body = json.dumps({"sessionId": session, "entries": ENTRIES, "leafId": "e7"}).encode()
    text = base64.b64encode(body).decode()
    return [text[i : i + size] for i in range(0, len(text), size)]


def envelope(request_id: str, index: int, parts: list[str], chunk: str | None = None) -> dict[str, object]:
    piece = parts[index] if chunk is None else chunk
    return {
        "requestId": request_id,
        "target": TARGET,
        "chunkIndex": index,
        "totalChunks": len(parts),
        "sha256": chunk_checksum(piece),
        "chunk": piece,
    }


@pytest.fixture(scope="module")
def url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with running_server(tmp_path_factory.mktemp("chunks")) as base:
        yield base


def send(url: str, body: dict[str, object]) -> httpx2.Response:
    return httpx2.post(f"{url}/api/request/chunk", json=body, timeout=30)


def test_in_order_chunks_ack_then_answer_as_the_target(url: str) -> None:
    parts = pieces("in-order")
    assert len(parts) > 2
    for i in range(len(parts) - 1):
        assert send(url, envelope("r-in", i, parts)).json() == {
            "received": True,
            "requestId": "r-in",
            "chunkIndex": i,
            "totalChunks": len(parts),
        }
    last = send(url, envelope("r-in", len(parts) - 1, parts)).json()
    assert (last["sessionId"], last["treeHash"], last["entryCount"]) == ("in-order", tree_hash(ENTRIES), 8)


def test_out_of_order_and_duplicate_chunks(url: str) -> None:
    parts = pieces("shuffled")
    order = list(reversed(range(1, len(parts))))
    for i in order:
        assert send(url, envelope("r-out", i, parts)).json()["received"] is True
        assert send(url, envelope("r-out", i, parts)).json()["received"] is True, "a duplicate is ack only"
    done = send(url, envelope("r-out", 0, parts)).json()
    assert done["treeHash"] == tree_hash(ENTRIES)


def test_a_checksum_mismatch_is_refused(url: str) -> None:
    parts = pieces("corrupt")
    body = envelope("r-bad", 1, parts)
    body["chunk"] = parts[1][:-1] + ("A" if parts[1][-1] != "A" else "B")
    answer = send(url, body)
    assert (answer.status_code, answer.json()["error"]) == (400, "Chunk checksum mismatch: 1")


def test_a_divergent_duplicate_and_mismatched_metadata_are_refused(url: str) -> None:
    parts = pieces("divergent")
    send(url, envelope("r-div", 0, parts))
    answer = send(url, envelope("r-div", 0, parts, chunk="QUJD"))
    assert (answer.status_code, answer.json()["error"]) == (400, "Duplicate chunk index does not match: 0")
    other = envelope("r-div", 1, parts)
    other["totalChunks"] = len(parts) + 1
    answer = send(url, other)
    assert answer.status_code == 400 and "metadata" in answer.json()["error"]


def test_a_retried_last_chunk_gets_the_original_answer(url: str) -> None:
    parts = pieces("retried")
    for i in range(len(parts)):
        first = send(url, envelope("r-re", i, parts))
    again = send(url, envelope("r-re", len(parts) - 1, parts))
    assert again.status_code == 200 and again.json() == first.json()
    earlier = send(url, envelope("r-re", 0, parts))
    assert earlier.json()["received"] is True
    wrong = send(url, envelope("r-re", 0, parts, chunk="QUJD"))
    assert wrong.status_code == 400


def test_an_upload_resumes_after_the_server_is_killed(tmp_path: Path) -> None:
    parts = pieces("survivor")
    port = str(free_port())
    with running_server(tmp_path, args=("--port", port)) as base:
        for i in range(len(parts) // 2):
            assert send(base, envelope("r-kill", i, parts)).status_code == 200
        kill9(base)
    with running_server(tmp_path, args=("--port", port)) as base:
        for i in range(len(parts) // 2, len(parts)):
            answer = send(base, envelope("r-kill", i, parts))
        assert answer.json()["treeHash"] == tree_hash(ENTRIES)
        assert httpx2.get(f"{base}/api/session/survivor/history").json()["entryCount"] == 8
