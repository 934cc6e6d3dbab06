"""`ServerProvider` against a real `rein serve --provider faux` (whose default script echoes the last
user text): the Provider contract, transient messages, a dropped stream recovered by its run id, and a
post-stream sync failure recovered by the next flush without a second model call."""

from __future__ import annotations

import asyncio
import json
import time
from contextlib import ExitStack
from pathlib import Path

import pytest

from rein.agent import to_llm
from rein.ai import AssistantMessage, Context, MessageBuilder, Model, UserMessage, message_to_json
from rein.session._convert import view_messages
from rein.session.remote import (
    SERVER_MODEL,
    ProxyReader,
    RemoteSession,
    ServerProvider,
    ServerTransport,
    SyncFailed,
    open_remote,
)
from tests.server.helpers import free_port, kill9, running_server
from tests.session.remote.helpers import local_tree, server_tree, user
from tests.session.remote.proxy import TcpProxy

MODEL = Model(provider="server", id=SERVER_MODEL)


def _context(session: RemoteSession, *transient: str) -> Context:
    own, _ = view_messages(session.tree.active_path(), session.context())
    extra = tuple(UserMessage.of(text) for text in transient)
    return Context(system_prompt="be brief", messages=(*to_llm(own), *extra))


async def _ask(session: RemoteSession, text: str, provider: ServerProvider | None = None) -> AssistantMessage:
    session.append_message(user(text))
    reply = await (provider or ServerProvider(session)).stream(MODEL, _context(session)).result()
    session.append_message(dict(message_to_json(reply)))
    return reply


def test_proxy_events_build_the_reply_and_keep_steering_verdicts() -> None:
    reader = ProxyReader(MessageBuilder(provider="server", model="m"))
    events: list[dict[str, object]] = [
        {"type": "start"},
        {"type": "toolcall_start", "contentIndex": 0, "id": "c1", "toolName": "bash"},
        {"type": "toolcall_delta", "contentIndex": 0, "delta": '{"command": "rm -rf /"}'},
        {"type": "toolcall_end", "contentIndex": 0, "toolCall": {}},
        {
            "type": "done",
            "reason": "toolUse",
            "usage": {"input": 3, "output": 4, "cacheRead": 1, "cacheWrite": 0},
            "steering": [{"toolCallId": "c1", "decision": "block", "reason": "[steering:rm@default] no"}],
        },
    ]
    out = [e for event in events for e in reader.event(event)]
    final = out[-1]
    assert [e.type for e in out] == ["toolcall_start", "toolcall_delta", "toolcall_end", "done"]
    assert final.type == "done"
    message = final.message
    assert message.stop_reason == "tool_use" and message.usage.input == 3 and message.usage.cache_read == 1
    assert message.tool_calls[0].arguments == {"command": "rm -rf /"}
    assert reader.steering == {"c1": "[steering:rm@default] no"}


@pytest.mark.slow
def test_a_reply_streams_and_transient_messages_stay_out_of_the_tree(tmp_path: Path) -> None:
    async def go(url: str) -> None:
        session = await open_remote(url, None, "/work")
        try:
            reply = await _ask(session, "hello")
            assert reply.text == "You said: hello" and reply.stop_reason == "stop"
            session.append_message(user("second"))
            hinted = await ServerProvider(session).stream(MODEL, _context(session, "a hint")).result()
            assert hinted.text == "You said: a hint"  # the ephemeral message reached the model
            await session.flush()
            ids, _, _ = await server_tree(session.transport, session.id)
            assert len(ids) == 3  # two questions and one reply; the hint is no entry
            # A context that is not the branch plus a tail goes whole, as an overlay.
            overlay = Context(system_prompt="be brief", messages=(UserMessage.of("only this"),))
            replaced = await ServerProvider(session).stream(MODEL, overlay).result()
            assert replaced.text == "You said: only this"
        finally:
            await session.aclose()

    with running_server(tmp_path) as url:
        asyncio.run(go(url))


@pytest.mark.slow
def test_a_stream_that_is_not_an_event_stream_fails_with_its_excerpt(tmp_path: Path) -> None:
    async def go(url: str) -> None:
        session = await open_remote(url, None, "/work")
        async with TcpProxy(url) as proxy:
            try:
                session.append_message(user("hi"))
                session.static_context = {"systemPrompt": "be brief", "tools": []}
                await session.flush()
                proxy.html = True
                direct = session.transport
                session.transport = ServerTransport(proxy.url, retries=0)
                context = Context(system_prompt="be brief", messages=(UserMessage.of("hi"),))
                final = await ServerProvider(session).stream(MODEL, context).result()
                await session.transport.aclose()
                session.transport = direct
            finally:
                await session.aclose()
        assert final.stop_reason == "error" and final.error_message is not None
        assert final.error_message.startswith("server (provider_stream): HTTP 200; content-type: text/html;")
        assert "expected text/event-stream" in final.error_message and "Please sign in" in final.error_message

    with running_server(tmp_path) as url:
        asyncio.run(go(url))


@pytest.mark.slow
def test_a_dropped_stream_is_recovered_by_its_run_id(tmp_path: Path) -> None:
    question = "tell me a long story " + "word " * 80

    async def go(url: str) -> None:
        async with TcpProxy(url) as proxy:
            proxy.cut_stream_after = 400  # the headers and a few deltas, then the connection drops
            session = await open_remote(proxy.url, None, "/work")
            try:
                events: list[str] = []
                session.append_message(user(question))
                stream = ServerProvider(session).stream(MODEL, _context(session))
                async for event in stream:
                    events.append(event.type)
                reply = await stream.result()
            finally:
                await session.aclose()
        assert "text_delta" in events  # some of the reply came before the drop
        assert reply.stop_reason == "stop", reply.error_message
        assert reply.text == f"You said: {question}"  # the whole reply, from the run journal
        assert proxy.count("/api/stream") == 1  # no second model call
        assert proxy.count(f"/api/session/{session.id}/runs/") >= 1

    with running_server(tmp_path) as url:
        asyncio.run(go(url))


@pytest.mark.slow
def test_a_run_whose_server_died_ends_the_recovery_as_interrupted(tmp_path: Path) -> None:
    """The server dies mid-reply and comes back: the run's lease lapses, the run is interrupted, and
    the client's recovery ends at once with a stream error the loop retries (not a 60 s wait)."""
    port = free_port()
    script = tmp_path / "faux-script.json"
    script.write_text(json.dumps({"delay": 0.02, "chunkSize": 4, "replies": [[{"text": "word " * 400}]]}))
    args = ("--provider", "faux", "--port", str(port), "--run-lease-seconds", "1")
    env = {"REIN_FAUX_SCRIPT": str(script)}

    async def go(url: str, later: ExitStack) -> float:
        session = await open_remote(url, None, "/work")
        died = 0.0
        try:
            session.append_message(user("go"))
            deltas = 0
            stream = ServerProvider(session, recovery_timeout=60).stream(MODEL, _context(session))
            async for event in stream:
                deltas += event.type == "text_delta"
                if deltas == 20 and not died:
                    kill9(url)
                    died = time.monotonic()
                    later.enter_context(running_server(tmp_path, env=env, args=args))
            reply = await stream.result()
        finally:
            await session.aclose()
        assert reply.stop_reason == "error" and reply.error_message is not None
        assert "interrupted" in reply.error_message, reply.error_message
        return time.monotonic() - died

    with ExitStack() as later, running_server(tmp_path, env=env, args=args) as url:
        took = asyncio.run(go(url, later))
    assert took < 10  # the lease (1 s) and a sweep, not the client's 60 s recovery deadline


@pytest.mark.slow
def test_a_failed_sync_after_a_reply_detaches_it_and_the_next_flush_recovers(tmp_path: Path) -> None:
    port = free_port()
    box: list[RemoteSession] = []

    async def first(url: str) -> None:
        session = await open_remote(
            url, None, "/work", transport=ServerTransport(url, retries=1, backoff=0.01)
        )
        await _ask(session, "one")
        await session.flush()
        await _ask(session, "two")
        question = session.tree.get(session.leaf_id or "")
        assert question is not None
        kill9(url)
        with pytest.raises(SyncFailed) as caught:
            await session.flush()
        reply_id = caught.value.detached
        assert reply_id is not None and reply_id in session.tree  # kept in the tree ...
        assert session.leaf_id == question.parent_id  # ... but off the active branch
        await session.transport.aclose()
        box.append(session)

    async def second(url: str) -> None:
        session = box[0]
        async with TcpProxy(url) as proxy:
            session.transport = session.tracker.transport = ServerTransport(proxy.url)
            try:
                await session.flush()
                assert await server_tree(session.transport, session.id) == local_tree(session)
                assert box[0].tree.get(str(caught_reply(session))) is not None
            finally:
                await session.aclose()
        assert proxy.count("/api/stream") == 0  # recovered without calling the model again
        assert proxy.count("/api/session/tree/append") == 1

    with running_server(tmp_path, args=("--port", str(port))) as url:
        asyncio.run(first(url))
    with running_server(tmp_path, args=("--port", str(port))) as url:
        asyncio.run(second(url))


def caught_reply(session: RemoteSession) -> str:
    replies = [e.id for e in session.tree if getattr(e, "message", {}).get("role") == "assistant"]
    return replies[-1]
