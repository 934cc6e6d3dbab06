"""The repeat policy across requests: `x-rein-session` names a session whose injection records the
proxy keeps; without it every request is its own session. Within a request a rule fires on every
attempt."""

from __future__ import annotations

from pathlib import Path

import pytest

from rein.ai import TextContent
from rein.ai.testing import Reply, SseServer, chat_reply
from rein.proxy._sessions import Sessions
from rein.ttsr import InjectionRecord, TtsrState
from tests.ai.helpers import run
from tests.proxy.conftest import start_proxy
from tests.proxy.test_app import WORD, text_of


def test_sessions_record_turns_and_injections() -> None:
    sessions = Sessions(clock=lambda: 5.0, limit=2)
    assert sessions.state(None) == TtsrState()
    sessions.finish("a", ["r", "r"])
    sessions.finish("a", [])
    assert sessions.state("a") == TtsrState(
        turns=2, records=(InjectionRecord(rule="r", turn=0, at=5.0, count=2),)
    )
    sessions.finish(None, ["r"])  # no session: nothing kept
    sessions.finish("b", [])
    sessions.finish("c", [])
    assert sessions.state("a") == TtsrState()  # the least recently used is forgotten past the limit


@pytest.mark.slow
def test_a_named_session_spends_a_once_rule_and_an_unnamed_one_does_not(tmp_path: Path) -> None:
    async def scenario() -> None:
        bad = Reply(steps=chat_reply(TextContent(text="forbidden words")))
        good = Reply(steps=chat_reply(TextContent(text="clean")))
        async with SseServer([bad, good, bad, bad, good]) as server:
            async with start_proxy(server.url, tmp_path, rules={"word": WORD}) as proxy:
                session = {"extra_headers": {"x-rein-session": "s1"}}
                assert await text_of(proxy, **session) == "clean"  # fired and retried
                assert await text_of(proxy, **session) == "forbidden words"  # `once`: spent in s1
                assert await text_of(proxy) == "clean"  # a request of its own: fires again
            assert len(server.requests) == 5
            assert [r["action"] for r in proxy.records("fired")] == ["retry", "retry"]

    run(scenario(), timeout=40)
