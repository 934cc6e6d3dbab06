"""Budgets in the proxy: per `x-rein-session` and per API key, tokens, requests, spend and minutes. The
real openai and anthropic SDKs talk to the proxy served by uvicorn in this process (a real socket), in
front of the local SSE server whose replies report usage; the counts live in a SQLite file."""

from __future__ import annotations

import asyncio
import contextlib
import json
import socket
from collections.abc import AsyncIterator
from pathlib import Path

import anthropic
import openai
import pytest
import uvicorn
from anthropic.types import MessageParam
from openai.types.chat import ChatCompletionMessageParam

from rein.ai import JsonValue, TextContent, Usage
from rein.ai.testing import Reply, SseServer, anthropic_reply, chat_reply, responses_reply
from rein.proxy import BudgetConfig, Limits, Price, ProxyApp, ProxyConfig, ProxyConfigError, budget_config
from rein.proxy._budget import refusal, reminder
from rein.proxy._budget_store import Used, read_all
from rein.proxy._budget_usage import BUILTIN_PRICES, price_of, tokens_of
from rein.proxy._codec import Json
from tests.ai.helpers import run
from tests.cli.helpers import run_rein
from tests.proxy.conftest import start_proxy

KEY = "sk-secret-key-0123456789"
WARNING = "BUDGET WARNING"
ASK: list[ChatCompletionMessageParam] = [{"role": "user", "content": "go"}]
ASK_CLAUDE: list[MessageParam] = [{"role": "user", "content": "go"}]


class Logged(list[dict[str, JsonValue]]):
    def __call__(self, record: dict[str, JsonValue]) -> None:
        self.append(record)

    def events(self, name: str) -> list[dict[str, JsonValue]]:
        return [record for record in self if record.get("event") == name]


@contextlib.asynccontextmanager
async def serving(config: ProxyConfig, log: Logged) -> AsyncIterator[str]:
    """The proxy under uvicorn on a free port; its origin."""
    app = ProxyApp(config, log=log)
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(64)
    sock.setblocking(False)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on", access_log=False))
    task = asyncio.ensure_future(server.serve(sockets=[sock]))
    while not server.started:
        assert not task.done(), task.exception()
        await asyncio.sleep(0.01)
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        server.should_exit = True
        await task
        sock.close()


def config_of(upstream: str, state: Path, **limits: Limits | dict[str, Price]) -> ProxyConfig:
    session, key = limits.get("session", Limits()), limits.get("key", Limits())
    assert isinstance(session, Limits) and isinstance(key, Limits)
    prices = limits.get("prices", BUILTIN_PRICES)
    assert isinstance(prices, dict)
    budget = BudgetConfig(session=session, key=key, state=state, prices=prices)
    return ProxyConfig(upstream=upstream, budget=budget)


def openai_sdk(url: str, session: str | None = "s1") -> openai.AsyncOpenAI:
    headers = {"x-rein-session": session} if session else {}
    return openai.AsyncOpenAI(
        base_url=f"{url}/v1", api_key=KEY, max_retries=0, timeout=20, default_headers=headers
    )


async def chat_text(url: str) -> str:
    async with openai_sdk(url) as client:
        stream = await client.chat.completions.create(model="gpt-test", messages=ASK, stream=True)
        chunks = [chunk async for chunk in stream]
    assert all(chunk.choices for chunk in chunks)  # the usage chunk the proxy asked for is not passed on
    return "".join(chunk.choices[0].delta.content or "" for chunk in chunks)


def sent(server: SseServer, index: int) -> str:
    return json.dumps(server.requests[index].body)


def test_a_session_is_reminded_past_80_percent_and_refused_at_100(tmp_path: Path) -> None:
    async def scenario() -> None:
        reply = Reply(steps=chat_reply(TextContent(text="ok"), usage=(20, 10, 0)))  # 30 tokens each
        log = Logged()
        async with SseServer([reply] * 4) as server:
            config = config_of(server.url, tmp_path / "b.sqlite3", session=Limits(tokens=100))
            async with serving(config, log) as url:
                for _ in range(4):
                    assert await chat_text(url) == "ok"
                with pytest.raises(openai.RateLimitError) as caught:
                    await chat_text(url)
            assert len(server.requests) == 4  # the refused request never went upstream
            assert [WARNING in sent(server, i) for i in range(4)] == [False, False, False, True]
            body = server.requests[3].body
            assert isinstance(body, dict) and body["stream_options"] == {"include_usage": True}
            messages = body["messages"]
            assert isinstance(messages, list) and messages[0] == {"role": "user", "content": "go"}
            assert "10 tokens left of 100" in json.dumps(messages[-1])
        assert "session budget of 100 tokens used: 120" in caught.value.message
        assert caught.value.body == {
            "message": "rein proxy: session budget of 100 tokens used: 120",
            "type": "rate_limit_error",
            "param": None,
            "code": "rein_budget_exceeded",
        }
        assert [r["scope"] for r in log.events("budget-nudge")] == ["session"]
        assert len(log.events("budget-refused")) == 1

    run(scenario(), timeout=30)


def test_a_key_budget_with_the_anthropic_sdk_and_the_key_never_stored(tmp_path: Path) -> None:
    async def scenario() -> None:
        reply = Reply(steps=anthropic_reply(TextContent(text="hi"), usage=(12, 34, 0)))  # 46 tokens
        state = tmp_path / "state" / "b.sqlite3"
        async with SseServer([reply] * 3) as server:
            config = config_of(server.url, state, key=Limits(tokens=100))
            async with serving(config, Logged()) as url:
                client = anthropic.AsyncAnthropic(base_url=url, api_key=KEY, max_retries=0, timeout=20)
                async with client:
                    for _ in range(3):
                        stream = client.messages.stream(
                            model="claude-test", max_tokens=9, messages=ASK_CLAUDE
                        )
                        async with stream as events:
                            assert await events.get_final_text() == "hi"
                    with pytest.raises(anthropic.RateLimitError) as caught:
                        await client.messages.create(model="claude-test", max_tokens=9, messages=ASK_CLAUDE)
                    files = {path: path.read_bytes() for path in state.parent.iterdir()}
            assert [WARNING in sent(server, i) for i in range(3)] == [False, False, True]
            last = server.requests[2].body
            assert isinstance(last, dict)
            note = json.dumps(last["messages"][-1])  # type: ignore[index]
            assert note.startswith('{"role": "user", "content": [{"type": "text", "text": "IMPORTANT BUDGET')
            assert "8 tokens left of 100 tokens" in note
        assert caught.value.body == {
            "type": "error",
            "error": {
                "type": "rate_limit_error",
                "message": "rein proxy: key budget of 100 tokens used: 138",
            },
        }
        assert files and all(
            KEY.encode() not in data and KEY[3:].encode() not in data for data in files.values()
        )
        [used] = read_all(state)
        assert (used.scope, used.requests, used.tokens, len(used.ident)) == ("key", 3, 138, 64)

    run(scenario(), timeout=30)


def test_counts_survive_a_restart_on_the_same_file(tmp_path: Path) -> None:
    whole: JsonValue = {
        "id": "c1", "object": "chat.completion", "created": 1, "model": "gpt-test",
        "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "ok"}}],
        "usage": {"prompt_tokens": 3, "completion_tokens": 4, "total_tokens": 7},
    }  # fmt: skip

    async def ask(url: str) -> str | None:
        async with openai_sdk(url) as client:
            done = await client.chat.completions.create(model="gpt-test", messages=ASK)
            return done.choices[0].message.content

    async def scenario() -> None:
        state = tmp_path / "b.sqlite3"
        async with SseServer([Reply(body=whole)] * 3) as server:
            config = config_of(server.url, state, session=Limits(requests=3, tokens=1000))
            async with serving(config, Logged()) as url:
                assert [await ask(url), await ask(url)] == ["ok", "ok"]
            assert [(u.requests, u.tokens) for u in read_all(state)] == [(2, 14)]
            async with serving(config, Logged()) as url:  # a new app, a new process's worth of state
                assert await ask(url) == "ok"
                with pytest.raises(openai.RateLimitError, match="session budget of 3 requests used: 3"):
                    await ask(url)
            assert len(server.requests) == 3
            assert WARNING in sent(server, 2) and WARNING not in sent(server, 1)

    run(scenario(), timeout=30)


def test_spend_comes_from_the_price_table_and_an_unknown_model_is_said_once(tmp_path: Path) -> None:
    prices = {"gpt-test": Price(input=10_000.0, output=20_000.0)}  # (30, 15) tokens: $0.30 + $0.30

    async def ask(url: str, model: str) -> None:
        async with openai_sdk(url, session=model) as client:
            stream = await client.responses.create(model=model, input="go", stream=True)
            assert [e.type async for e in stream][-1] == "response.completed"

    async def scenario() -> None:
        log = Logged()
        replies = [Reply(steps=responses_reply(TextContent(text="ok"), usage=(30, 15, 0)))] * 4
        async with SseServer(replies) as server:
            config = config_of(
                server.url, tmp_path / "b.sqlite3", session=Limits(spend_usd=1.0), prices=prices
            )
            async with serving(config, log) as url:
                await ask(url, "gpt-test")
                await ask(url, "gpt-test")
                with pytest.raises(openai.RateLimitError, match=r"session budget of \$1.00 used: \$1.20"):
                    await ask(url, "gpt-test")
                await ask(url, "unpriced-model")
                await ask(url, "unpriced-model")
        spend = {u.ident: (u.requests, round(u.spend_usd, 6)) for u in read_all(tmp_path / "b.sqlite3")}
        assert spend == {"gpt-test": (2, 1.2), "unpriced-model": (2, 0.0)}
        assert [r["model"] for r in log.events("budget-unpriced")] == ["unpriced-model"]

    run(scenario(), timeout=30)


def test_no_session_and_no_key_means_nothing_to_count(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with SseServer([Reply(steps=chat_reply(TextContent(text="ok")))] * 2) as server:
            config = config_of(server.url, tmp_path / "b.sqlite3", session=Limits(requests=1))
            async with serving(config, Logged()) as url:
                for _ in range(2):  # no x-rein-session: no session budget applies
                    async with openai_sdk(url, session=None) as client:
                        stream = await client.chat.completions.create(model="m", messages=ASK, stream=True)
                        assert [c async for c in stream]
            assert "stream_options" not in sent(server, 1)
        assert read_all(tmp_path / "b.sqlite3") == []

    run(scenario(), timeout=30)


def test_refusals_name_the_first_spent_dimension() -> None:
    limits = Limits(tokens=100, requests=5, spend_usd=2.5, minutes=30)
    fresh = Used(scope="key", ident="h", requests=1, tokens=10, spend_usd=0.1, started=1000.0)
    assert refusal("key", limits, fresh, now=1000.0) is None
    late = Used(scope="key", ident="h", requests=1, tokens=10, spend_usd=0.1, started=1000.0 - 31 * 60 - 2)
    assert refusal("key", limits, late, now=1000.0) == "key budget of 30m used: 31m 2s"
    spent = Used(scope="session", ident="s", requests=5, tokens=0, spend_usd=2.51, started=1000.0)
    assert refusal("session", limits, spent, now=1000.0) == "session budget of 5 requests used: 5"
    text = reminder(
        "session", Limits(tokens=100_000), Used(scope="session", ident="s", tokens=96_000), now=0.0
    )
    assert text.startswith("CRITICAL BUDGET WARNING\nThe user gave this session a budget (100k tokens)")
    assert "4k tokens left of 100k" in text


def test_usage_in_each_api_and_prices_by_model() -> None:
    chat: Json = {
        "prompt_tokens": 100,
        "completion_tokens": 7,
        "prompt_tokens_details": {"cached_tokens": 60},
    }
    assert tokens_of("chat", chat) == Usage(input=40, output=7, cache_read=60)
    responses: Json = {
        "input_tokens": 10,
        "output_tokens": 5,
        "input_tokens_details": {"cached_tokens": None},
    }
    assert tokens_of("responses", responses) == Usage(input=10, output=5)
    messages: Json = {
        "input_tokens": 3,
        "output_tokens": 9,
        "cache_read_input_tokens": 50,
        "cache_creation_input_tokens": 8,
    }
    assert tokens_of("messages", messages).total == 70
    assert price_of("gpt-4.1-mini-2025-04-14", BUILTIN_PRICES) is BUILTIN_PRICES["gpt-4.1-mini"]
    assert price_of("claude-opus-4-5-20251101", BUILTIN_PRICES) is BUILTIN_PRICES["claude-opus-4-5"]
    assert price_of("gpt-4.10", BUILTIN_PRICES) is None
    mine = {"local-*": Price(input=1.0, output=2.0)}
    assert price_of("local-qwen", mine) is mine["local-*"]
    cost = BUILTIN_PRICES["claude-sonnet-4"].cost(Usage(input=1_000_000, cache_read=1_000_000))
    assert cost == pytest.approx(3.3)


def test_settings_and_flags_make_the_config(tmp_path: Path) -> None:
    home = tmp_path / "home"
    assert budget_config({}, home=home) is None
    proxy: dict[str, object] = {
        "budget": {"session": {"tokens": 1000, "minutes": 30}, "key": {"spend_usd": 5}},
        "prices": {"my-model": {"input": 1, "output": 2.5}},
    }
    config = budget_config(proxy, flags=["session.tokens=500", "key.requests=9"], home=home)
    assert config is not None
    assert config.session == Limits(tokens=500, minutes=30) and config.key == Limits(requests=9, spend_usd=5)
    assert config.prices["my-model"] == Price(input=1.0, output=2.5) and "gpt-4.1" in config.prices
    assert config.state == home / ".rein/proxy/budgets.sqlite3"
    bad = {
        "session.tokens=lots": (
            "--budget 'session.tokens=lots': tokens must be a whole number more than 0, not 'lots'"
        ),
        "team.tokens=5": "--budget 'team.tokens=5': write SCOPE.NAME=VALUE, SCOPE one of session, key",
        "key.dollars=5": (
            "--budget 'key.dollars=5': unknown budget 'dollars' (known: tokens, requests, spend_usd, minutes)"
        ),
    }
    for flag, message in bad.items():
        with pytest.raises(ProxyConfigError) as caught:
            budget_config({}, flags=[flag], home=home)
        assert str(caught.value) == message
    with pytest.raises(ProxyConfigError, match=r"\[proxy.budget.session\] requests must be a whole number"):
        budget_config({"budget": {"session": {"requests": 2.5}}}, home=home)
    with pytest.raises(ProxyConfigError, match="must be a table with input and output"):
        budget_config({"budget": {"key": {"tokens": 5}}, "prices": {"m": {"input": 1}}}, home=home)


@pytest.mark.slow
def test_rein_proxy_takes_budget_flags(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with SseServer([Reply(steps=chat_reply(TextContent(text="ok")))]) as server:
            args = ["--budget", "session.requests=1", "--state", str(tmp_path / "b.sqlite3")]
            async with start_proxy(server.url, tmp_path, args=args) as proxy:
                assert await chat_text(proxy.url) == "ok"
                with pytest.raises(openai.RateLimitError, match="session budget of 1 request used: 1"):
                    await chat_text(proxy.url)
            assert [r["event"] for r in proxy.records() if str(r["event"]).startswith("budget")] == [
                "budget-nudge",
                "budget-refused",
            ]

    run(scenario(), timeout=40)
    args = ("proxy", "--upstream", "http://127.0.0.1:9", "--budget", "key.tokens=-3")
    done = run_rein(*args, cwd=tmp_path, home=tmp_path / "home")
    assert done.returncode == 2
    assert "rein proxy: --budget 'key.tokens=-3': tokens must be a whole number more than 0" in done.stderr


def test_two_workers_count_into_one_file(tmp_path: Path) -> None:
    async def scenario() -> None:
        replies = [Reply(steps=chat_reply(TextContent(text="ok")))] * 3
        async with SseServer(replies) as server:
            config = config_of(server.url, tmp_path / "b.sqlite3", key=Limits(requests=3))
            async with serving(config, Logged()) as one, serving(config, Logged()) as two:
                assert [await chat_text(one), await chat_text(two), await chat_text(one)] == ["ok"] * 3
                with pytest.raises(openai.RateLimitError, match="key budget of 3 requests used: 3"):
                    await chat_text(two)
        [used] = read_all(tmp_path / "b.sqlite3")
        assert (used.requests, used.tokens) == (3, 90)

    run(scenario(), timeout=30)


def test_a_state_file_that_cannot_be_opened_refuses_rather_than_skips(tmp_path: Path) -> None:
    async def scenario() -> None:
        log = Logged()
        async with SseServer([Reply(steps=chat_reply(TextContent(text="ok")))]) as server:
            config = config_of(server.url, tmp_path, session=Limits(tokens=10))  # a directory
            async with serving(config, log) as url:
                with pytest.raises(openai.InternalServerError, match="rein proxy: budgets unavailable"):
                    await chat_text(url)
            assert server.requests == []
        assert [r["event"] for r in log] == ["budget-error"]

    run(scenario(), timeout=30)
