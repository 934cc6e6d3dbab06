"""Incremental tree sync against a real `rein serve`: append only the tail, switch without resending,
reconcile from the server when the trees diverged, upload whole when the server lost the session, and
resume after the server was killed mid-upload."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from rein.ai import Context, Model, UserMessage
from rein.server.store import open_store
from rein.session.remote import (
    RemoteSession,
    ServerProvider,
    ServerTransport,
    SessionReconciled,
    SyncFailed,
    open_remote,
)
from tests.server.helpers import free_port, kill9, running_server
from tests.session.remote.helpers import fill, local_tree, server_tree, user
from tests.session.remote.proxy import TcpProxy

pytestmark = pytest.mark.slow
STATIC = {"systemPrompt": "be brief", "tools": []}


async def _session(url: str, session_id: str | None = None, **transport: object) -> RemoteSession:
    session = await open_remote(url, session_id, "/work", transport=ServerTransport(url, **transport))  # type: ignore[arg-type]
    session.static_context = dict(STATIC)
    return session


def test_a_turn_sends_only_the_new_tail(tmp_path: Path) -> None:
    async def go(url: str) -> None:
        async with TcpProxy(url) as proxy:
            session = await _session(proxy.url)
            try:
                fill(session, 100)  # 200 entries
                await session.flush()
                full = session.transport.sent_bytes
                fill(session, 1)  # one more turn: a question and an answer
                await session.flush()
                turn = session.transport.sent_bytes - full
                assert await server_tree(session.transport, session.id) == local_tree(session)
            finally:
                await session.aclose()
        assert proxy.count("/api/session/tree/sync") == 1
        assert proxy.count("/api/session/tree/append") == 1
        assert len(local_tree(session)[0]) == 202
        assert turn * 40 < full, (turn, full)  # 2 of 202 entries, plus the request's own fields

    with running_server(tmp_path) as url:
        asyncio.run(go(url))


def test_init_sends_the_sessions_directory(tmp_path: Path) -> None:
    async def go(url: str) -> str | None:
        session = await _session(url)
        try:
            fill(session, 1)
            await session.flush()
        finally:
            await session.aclose()
        store = await open_store(str(tmp_path / "sessions.db"))
        try:
            row = await store.session("", session.id)
        finally:
            await store.close()
        return None if row is None else row.cwd

    with running_server(tmp_path) as url:
        assert asyncio.run(go(url)) == "/work"  # the header's cwd (`_session` opens it in /work)


def test_resuming_appends_by_the_known_prefix_not_a_full_upload(tmp_path: Path) -> None:
    async def go(url: str) -> None:
        first = await _session(url)
        fill(first, 20)
        await first.flush()
        await first.aclose()
        async with TcpProxy(url) as proxy:
            again = await _session(proxy.url, first.id)
            try:
                assert local_tree(again) == local_tree(first)
                fill(again, 1)
                await again.flush()
                assert await server_tree(again.transport, again.id) == local_tree(again)
            finally:
                await again.aclose()
        assert proxy.count("/api/session/tree/sync") == 0
        assert proxy.count("/api/session/tree/append") == 1

    with running_server(tmp_path) as url:
        asyncio.run(go(url))


def test_a_leaf_switch_is_sent_without_entries(tmp_path: Path) -> None:
    async def go(url: str) -> None:
        async with TcpProxy(url) as proxy:
            session = await _session(proxy.url)
            try:
                fill(session, 10)
                await session.flush()
                before = session.transport.sent_bytes
                earlier = list(session.tree)[5].id
                session.branch(earlier)
                await session.flush()
                sent = session.transport.sent_bytes - before
                assert await server_tree(session.transport, session.id) == local_tree(session)
            finally:
                await session.aclose()
        assert proxy.count("/api/session/tree/switch") == 1
        assert proxy.count("/api/session/tree/append") == 0
        assert sent < 200

    with running_server(tmp_path) as url:
        asyncio.run(go(url))


def test_divergence_reconciles_to_the_server_and_stops_the_operation(tmp_path: Path) -> None:
    async def go(url: str) -> None:
        alice = await _session(url)
        fill(alice, 3)
        await alice.flush()
        async with TcpProxy(url) as proxy:
            bob = await _session(proxy.url, alice.id)
            try:
                alice.append_message(user("alice goes on"))
                await alice.flush()
                bob.append_message(user("bob went elsewhere"))
                mine = bob.leaf_id
                with pytest.raises(SessionReconciled, match="the server's history differed"):
                    await bob.flush()
                assert local_tree(bob) == local_tree(alice) == await server_tree(bob.transport, bob.id)
                assert mine not in bob.tree  # the server is authoritative: bob's entry is gone
                # Through the provider, a divergence ends the reply before any model call.
                bob.append_message(user("bob again"))
                alice.append_message(user("alice again"))
                await alice.flush()
                stream = ServerProvider(bob).stream(
                    Model(provider="server", id="server"), Context(messages=(UserMessage.of("x"),))
                )
                final = await stream.result()
            finally:
                await bob.aclose()
                await alice.aclose()
        assert final.stop_reason == "error"
        assert final.error_message is not None and final.error_message.startswith("server (tree_sync):")
        assert "differed" in final.error_message
        assert proxy.count("/api/stream") == 0
        assert proxy.count("/api/session/tree/sync") == 0  # never overwrote the server

    with running_server(tmp_path) as url:
        asyncio.run(go(url))


def test_a_server_that_lost_the_session_gets_init_and_a_full_upload(tmp_path: Path) -> None:
    port = free_port()
    session_box: list[RemoteSession] = []

    async def first(url: str) -> None:
        session = await _session(url)
        fill(session, 5)
        await session.flush()
        await session.transport.aclose()
        session_box.append(session)

    async def second(url: str) -> None:
        session = session_box[0]
        async with TcpProxy(url) as proxy:
            session.transport = session.tracker.transport = ServerTransport(proxy.url)
            try:
                fill(session, 1)
                await session.flush()
                assert await server_tree(session.transport, session.id) == local_tree(session)
            finally:
                await session.aclose()
        assert proxy.count("/api/session/init") == 1, proxy.requests
        assert proxy.count("/api/session/tree/sync") == 1

    with running_server(tmp_path / "one", args=("--port", str(port))) as url:
        asyncio.run(first(url))
    with running_server(tmp_path / "two", args=("--port", str(port))) as url:  # an empty database
        asyncio.run(second(url))


def test_a_server_killed_mid_upload_is_resumed_after_restart(tmp_path: Path) -> None:
    port = free_port()
    box: list[RemoteSession] = []
    chunks = 0

    def kill_on_third_chunk(url: str, line: str) -> None:
        nonlocal chunks
        if line == "POST /api/request/chunk":
            chunks += 1
            if chunks == 3:
                kill9(url)

    async def first(url: str) -> None:
        async with TcpProxy(url) as proxy:
            proxy.before = lambda line: kill_on_third_chunk(url, line)
            session = await _session(
                proxy.url, max_request_bytes=4096, concurrency=1, retries=1, backoff=0.01
            )
            fill(session, 30, size=200)
            with pytest.raises(SyncFailed):
                await session.flush()
            await session.transport.aclose()
            box.append(session)

    async def second(url: str) -> None:
        session = box[0]
        session.transport = session.tracker.transport = ServerTransport(url, max_request_bytes=4096)
        try:
            await session.flush()
            assert await server_tree(session.transport, session.id) == local_tree(session)
        finally:
            await session.aclose()

    with running_server(tmp_path, args=("--port", str(port))) as url:
        asyncio.run(first(url))
    assert chunks == 3
    with running_server(tmp_path, args=("--port", str(port))) as url:  # the same database
        asyncio.run(second(url))


def test_a_switch_to_before_the_first_entry_reaches_the_server(tmp_path: Path) -> None:
    async def go(url: str) -> None:
        session = await _session(url)
        try:
            fill(session, 2)
            await session.flush()
            session.branch(None)
            await session.flush()
            assert await server_tree(session.transport, session.id) == local_tree(session)
        finally:
            await session.aclose()

    with running_server(tmp_path) as url:
        asyncio.run(go(url))
