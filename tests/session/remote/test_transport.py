"""`ServerTransport` against a real `rein serve`: chunked uploads, acks, and answers that are not JSON."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from rein.protocol import tree_hash
from rein.session.remote import ServerError, ServerTransport
from tests.server.helpers import running_server
from tests.session.remote.proxy import TcpProxy

pytestmark = pytest.mark.slow


def _entries(count: int, size: int) -> list[dict[str, object]]:
    out: list[dict[str, object]] = []
    parent: str | None = None
    for index in range(count):
        entry_id = f"e{index:04d}"
        text = f"entry {index} é " + "x" * size
        message = {"role": "user", "content": [{"type": "text", "text": text}], "timestamp": index}
        out.append(
            {
                "type": "message",
                "id": entry_id,
                "parentId": parent,
                "timestamp": "2026-01-01T00:00:00.000Z",
                "message": message,
            }
        )
        parent = entry_id
    return out


def test_a_body_five_times_the_limit_arrives_whole_through_chunks(tmp_path: Path) -> None:
    limit = 4096
    entries = _entries(40, 500)

    async def go(url: str) -> None:
        async with TcpProxy(url) as proxy:
            transport = ServerTransport(proxy.url, max_request_bytes=limit)
            try:
                await transport.post_json("/api/session/init", {"sessionId": "big"})
                body = {"sessionId": "big", "entries": entries, "leafId": entries[-1]["id"]}
                assert len(str(body)) > 5 * limit
                summary = await transport.post_json("/api/session/tree/sync", body)
                history = await transport.get_json("/api/session/big/history")
            finally:
                await transport.aclose()
        assert summary["entryCount"] == 40
        assert summary["treeHash"] == tree_hash(entries)
        assert history["entries"] == entries
        assert proxy.count("/api/request/chunk") >= 5
        assert proxy.count("/api/session/tree/sync") == 0  # never sent whole

    with running_server(tmp_path) as url:
        asyncio.run(go(url))


def test_a_body_under_the_limit_is_sent_as_it_is(tmp_path: Path) -> None:
    async def go(url: str) -> None:
        async with TcpProxy(url) as proxy:
            transport = ServerTransport(proxy.url)
            try:
                summary = await transport.post_json("/api/session/init", {"sessionId": "small"})
            finally:
                await transport.aclose()
        assert summary["entryCount"] == 0
        assert proxy.requests == ["POST /api/session/init"]

    with running_server(tmp_path) as url:
        asyncio.run(go(url))


def test_a_non_json_200_fails_with_status_content_type_and_excerpt(tmp_path: Path) -> None:
    async def go(url: str) -> None:
        async with TcpProxy(url) as proxy:
            proxy.html = True
            transport = ServerTransport(proxy.url, retries=0)
            try:
                with pytest.raises(ServerError) as caught:
                    await transport.post_json("/api/session/init", {"sessionId": "s"}, phase="session_init")
            finally:
                await transport.aclose()
        error = caught.value
        assert error.phase == "session_init" and error.status == 200
        text = str(error)
        assert text.startswith("server (session_init): HTTP 200; content-type: text/html;")
        assert "expected JSON" in text and "Please sign in to continue." in text
        assert len(text.split("body: ", 1)[1]) <= 200

    with running_server(tmp_path) as url:
        asyncio.run(go(url))


def test_a_server_error_keeps_its_code_and_message(tmp_path: Path) -> None:
    async def go(url: str) -> None:
        transport = ServerTransport(url)
        try:
            with pytest.raises(ServerError) as caught:
                await transport.get_json("/api/session/nope/history")
        finally:
            await transport.aclose()
        assert caught.value.status == 404 and caught.value.code == "SESSION_NOT_FOUND"
        assert "session not found" in str(caught.value)

    with running_server(tmp_path) as url:
        asyncio.run(go(url))


def test_an_unreachable_server_is_one_server_error(tmp_path: Path) -> None:
    async def go() -> None:
        transport = ServerTransport("http://127.0.0.1:9", retries=1, backoff=0.01)
        try:
            with pytest.raises(ServerError) as caught:
                await transport.post_json("/api/session/init", {"sessionId": "s"})
        finally:
            await transport.aclose()
        assert caught.value.status is None and "cannot reach http://127.0.0.1:9" in str(caught.value)

    asyncio.run(go())
