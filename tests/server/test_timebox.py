"""The timebox of server-side runs (`rein serve --timebox`): the engine's own decisions over the
session's branch: quiet below 80 percent, the warning block from there, the stream refused when spent."""

from __future__ import annotations

from pathlib import Path

import httpx2
import pytest

from rein.ai import AssistantMessage, TextContent, Usage, UserMessage
from rein.server._config import ConfigError, load_config
from rein.server._errors import ProtocolError
from rein.server._timebox import check, parse_timebox
from tests.server.helpers import running_server
from tests.server.test_stream import FAUX, STATIC, events, user_entry


def reply(tokens: int) -> AssistantMessage:
    return AssistantMessage(
        content=(TextContent(text="ok"),), usage=Usage(input=tokens), provider="faux", model="faux-1"
    )


def test_below_eighty_percent_a_request_carries_nothing() -> None:
    spec = parse_timebox("turns:10")
    assert check(spec, created_ms=0, messages=[UserMessage.of("a"), reply(5)], now_ms=1) == ""
    assert check(None, created_ms=0, messages=[UserMessage.of("a")] * 50, now_ms=10**12) == ""


def test_from_eighty_percent_the_warning_block_goes_with_each_request() -> None:
    spec = parse_timebox("10m tokens:1000")
    warning = check(spec, created_ms=0, messages=[UserMessage.of("a"), reply(850)], now_ms=60_000)
    assert "TIMEBOX WARNING" in warning
    late = check(spec, created_ms=0, messages=[UserMessage.of("a")], now_ms=9 * 60_000 + 40_000)
    assert late.startswith("CRITICAL TIMEBOX WARNING")


def test_a_spent_budget_refuses_the_request_with_409() -> None:
    spec = parse_timebox("turns:2")
    with pytest.raises(ProtocolError) as refused:
        check(spec, created_ms=0, messages=[UserMessage.of("a"), reply(1), UserMessage.of("b")], now_ms=1)
    assert refused.value.status == 409 and "budget is spent" in refused.value.message


def test_a_bad_budget_is_a_one_line_config_error() -> None:
    with pytest.raises(ConfigError, match="--timebox 'soon'"):
        load_config({"timebox": "soon"}, {})
    with pytest.raises(ConfigError, match="no command on stop"):
        load_config({"timebox": "5m -- make deploy"}, {})
    assert load_config({"timebox": "5m"}, {}).timebox == parse_timebox("5m")


@pytest.mark.slow
def test_the_server_stops_a_session_at_its_turn_budget(tmp_path: Path) -> None:
    args = (*FAUX, "--timebox", "turns:2")
    with running_server(tmp_path, args=args) as url, httpx2.Client(base_url=url, timeout=30) as client:
        client.post("/api/session/init", json={"sessionId": "s1", "staticContext": STATIC})
        client.post(
            "/api/session/tree/append",
            json={"sessionId": "s1", "entries": [user_entry("u1", "one")], "leafId": "u1"},
        )
        first = client.post("/api/stream", json={"sessionId": "s1"})
        assert first.status_code == 200 and events(first.text)[-1]["type"] == "done"
        client.post(
            "/api/session/tree/append",
            json={"sessionId": "s1", "entries": [user_entry("u2", "two", "u1")], "leafId": "u2"},
        )
        refused = client.post("/api/stream", json={"sessionId": "s1"})
        assert refused.status_code == 409 and "timebox" in refused.json()["error"]
