"""Routes: the real `rein proxy` in front of several local upstreams, with the real openai and anthropic
SDKs: a request goes where its model's route says, with the route's own key or the client's; a route
that fails before its reply began (503, a closed connection, a stream broken before its first byte, a
hang past the route's timeout) hands the request to the next; once a byte is in, nothing falls back.
The route table's parts (the model of a body, URLs rebased, the settings' errors) are tested alone."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path

import httpx2
import pytest
from anthropic import AsyncAnthropic
from openai import APIError, AsyncOpenAI, InternalServerError

from rein.ai import JsonValue, TextContent
from rein.ai.testing import Cut, Hang, Reply, SseServer, anthropic_http_error, anthropic_reply, chat_reply
from rein.ai.testing.sse_server import Request
from rein.proxy import ProxyConfigError, Route, load_routes
from rein.proxy._routes import RouteTable, model_of
from rein.proxy._upstream import rebase, upstream_url
from tests.ai.helpers import run
from tests.cli.helpers import run_rein
from tests.proxy.conftest import RunningProxy, start_proxy

KEY = "sk-route-b-own-key"


def chat(text: str) -> Callable[[Request], Reply]:
    """An OpenAI-compatible upstream answering `text`, streamed or not as asked."""

    def answer(request: Request) -> Reply:
        if isinstance(request.body, dict) and request.body.get("stream") is True:
            return Reply(steps=chat_reply(TextContent(text=text)))
        message: JsonValue = {"role": "assistant", "content": text}
        choice: JsonValue = {"index": 0, "finish_reason": "stop", "message": message}
        return Reply(
            body={"id": "c1", "object": "chat.completion", "created": 1, "model": "m", "choices": [choice]}
        )

    return answer


def failing(request: Request) -> Reply:
    """The upstream that fails, each model its own way."""
    body = request.body
    model = body.get("model") if isinstance(body, dict) else None
    match model:
        case "fb-503":
            return Reply(status=503, body={"error": {"message": "overloaded", "type": "server_error"}})
        case "fb-close":
            raise ValueError("close the connection without an answer")
        case "fb-cut":
            return Reply(steps=[Cut()])  # a status, then the connection drops before the first byte
        case "fb-hang":
            return Reply(hang_before_headers=True)
        case "fb-silent":
            return Reply(steps=[Hang()])  # a status, then nothing
        case "fb-mid":
            return Reply(steps=[*chat_reply(TextContent(text="partial answer that breaks"))[:3], Cut()])
        case "claude-fb":
            return anthropic_http_error(529, "overloaded_error", "Overloaded")
    return Reply(status=503, body={"error": {"message": "down", "type": "server_error"}})


ROUTES = """
[[proxy.route]]
model = "fb-*"
upstream = "{f}"
timeout = 1

[[proxy.route]]
model = "fb-*"
upstream = "{a}"

[[proxy.route]]
model = "claude-fb*"
upstream = "{f}"

[[proxy.route]]
model = "claude-*"
upstream = "{b}"
key_env = "REIN_TEST_ROUTE_KEY"

[[proxy.route]]
model = "only-f"
upstream = "{f}"
"""


class Upstreams:
    def __init__(self, a: SseServer, b: SseServer, f: SseServer, default: SseServer) -> None:
        self.a, self.b, self.f, self.default = a, b, f, default


@asynccontextmanager
async def routed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[tuple[Upstreams, RunningProxy]]:
    """A, B (Anthropic), F (failing) and the default upstream, and a proxy with `ROUTES` in its settings
    and `gpt-4.1*` routed to A by flag."""
    monkeypatch.setenv("REIN_TEST_ROUTE_KEY", KEY)
    async with AsyncExitStack() as stack:
        a = await stack.enter_async_context(SseServer(route=chat("from A")))
        b = await stack.enter_async_context(
            SseServer(route=lambda request: Reply(steps=anthropic_reply(TextContent(text="from B"))))
        )
        f = await stack.enter_async_context(SseServer(route=failing))
        default = await stack.enter_async_context(SseServer(route=chat("from the default")))
        settings = tmp_path / "project" / ".rein" / "settings.toml"
        settings.parent.mkdir(parents=True)
        settings.write_text(ROUTES.format(a=a.url, b=b.url, f=f.url), encoding="utf-8")
        args = ["--route", f"gpt-4.1*={a.url}/v1"]
        proxy = await stack.enter_async_context(start_proxy(f"{default.url}/v1", tmp_path, args=args))
        yield Upstreams(a, b, f, default), proxy


def openai(proxy: RunningProxy) -> AsyncOpenAI:
    return AsyncOpenAI(base_url=f"{proxy.url}/v1", api_key="sk-client", max_retries=0, timeout=20)


async def streamed(proxy: RunningProxy, model: str) -> str:
    async with openai(proxy) as client:
        stream = await client.chat.completions.create(
            model=model, messages=[{"role": "user", "content": "go"}], stream=True
        )
        return "".join([c.choices[0].delta.content or "" async for c in stream if c.choices])


async def anthropic_text(proxy: RunningProxy, model: str) -> str:
    async with (
        AsyncAnthropic(base_url=proxy.url, api_key="sk-ant-client", max_retries=0, timeout=20) as client,
        client.messages.stream(
            model=model, max_tokens=64, messages=[{"role": "user", "content": "go"}]
        ) as stream,
    ):
        message = await stream.get_final_message()
    return "".join(block.text for block in message.content if block.type == "text")


def models(server: SseServer) -> list[JsonValue]:
    return [r.body.get("model") if isinstance(r.body, dict) else None for r in server.requests]


@pytest.mark.slow
def test_each_model_goes_to_its_route_with_its_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    async def scenario() -> None:
        async with routed(tmp_path, monkeypatch) as (up, proxy):
            assert await streamed(proxy, "gpt-4.1-mini") == "from A"
            assert await anthropic_text(proxy, "claude-sonnet-4") == "from B"
            assert await streamed(proxy, "llama-3") == "from the default"
            async with httpx2.AsyncClient() as client:
                listed = await client.get(
                    f"{proxy.url}/v1/models", headers={"authorization": "Bearer sk-client"}
                )
            assert listed.status_code == 200
            records = proxy.records("route-fallback")
        assert models(up.a) == ["gpt-4.1-mini"] and up.a.requests[0].path == "/v1/chat/completions"
        assert up.a.requests[0].headers["authorization"] == "Bearer sk-client"  # the client's key passes
        assert models(up.b) == ["claude-sonnet-4"] and up.b.requests[0].path == "/v1/messages"
        assert up.b.requests[0].headers["x-api-key"] == KEY  # the route's own key, not the client's
        assert "sk-ant-client" not in json.dumps(dict(up.b.requests[0].headers))
        assert [r.path for r in up.default.requests] == ["/v1/chat/completions", "/v1/models"]
        assert models(up.default)[0] == "llama-3" and up.f.requests == [] and records == []

    run(scenario(), timeout=60)


@pytest.mark.slow
def test_a_route_failing_before_its_reply_began_hands_over_to_the_next(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    failures = {
        "fb-503": "HTTP 503",
        "fb-close": "RemoteProtocolError",
        "fb-cut": "RemoteProtocolError",
        "fb-hang": "TimeoutError",
        "fb-silent": "TimeoutError",
    }

    async def scenario() -> None:
        async with routed(tmp_path, monkeypatch) as (up, proxy):
            for model in failures:
                assert await streamed(proxy, model) == "from A", model
            async with openai(proxy) as client:  # not streamed: the same
                whole = await client.chat.completions.create(
                    model="fb-503", messages=[{"role": "user", "content": "go"}]
                )
            assert whole.choices[0].message.content == "from A"
            assert await anthropic_text(proxy, "claude-fb") == "from B"
            records = proxy.records("route-fallback")
            f_to_a, f_to_b = (up.f.url, up.a.url), (up.f.url, up.b.url)
            async with httpx2.AsyncClient() as http:  # counted where the proxy's other counters are
                status = (await http.get(f"{proxy.url}/rein/status")).json()
                metrics = (await http.get(f"{proxy.url}/metrics")).text
            fallbacks = status["route_fallbacks"]
            assert sum(fallbacks.values()) == len(failures) + 2, fallbacks
            assert all(upstream.startswith(up.f.url) for upstream in fallbacks), fallbacks
            assert f'rein_proxy_route_fallbacks_total{{upstream="{next(iter(fallbacks))}"}} 7.0' in metrics
            with pytest.raises(InternalServerError):  # the last matching route's 503 reaches the client
                await streamed(proxy, "only-f")
        assert models(up.f) == [*failures, "fb-503", "claude-fb", "only-f"]
        assert models(up.a) == [*failures, "fb-503"]
        assert models(up.b) == ["claude-fb"]
        assert [(r["model"], r["reason"]) for r in records] == [
            *failures.items(),
            ("fb-503", "HTTP 503"),
            ("claude-fb", "HTTP 529"),
        ]
        assert {(r["from"], r["to"]) for r in records} == {f_to_a, f_to_b}

    run(scenario(), timeout=90)


@pytest.mark.slow
def test_no_fallback_once_the_reply_began(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    async def scenario() -> None:
        async with routed(tmp_path, monkeypatch) as (up, proxy):
            got: list[str] = []
            async with openai(proxy) as client:
                stream = await client.chat.completions.create(
                    model="fb-mid", messages=[{"role": "user", "content": "go"}], stream=True
                )
                with pytest.raises(APIError):
                    async for chunk in stream:
                        got.append(chunk.choices[0].delta.content or "" if chunk.choices else "")
            records = proxy.records("route-fallback")
        assert "".join(got) and "partial answer that breaks".startswith("".join(got))
        assert models(up.f) == ["fb-mid"] and up.a.requests == [] and records == []

    run(scenario(), timeout=60)


@pytest.mark.slow
def test_bad_routes_are_one_line_errors_naming_the_setting(tmp_path: Path) -> None:
    home, project = tmp_path / "home", tmp_path / "project"
    (project / ".rein").mkdir(parents=True)
    home.mkdir()
    settings = project / ".rein" / "settings.toml"
    text = '[[proxy.route]]\nmodel = "m*"\nupstream = "http://x"\nkey_env = "REIN_NO_SUCH_KEY"\n'
    settings.write_text(text, encoding="utf-8")
    for args, message in [
        ([], "rein proxy: [[proxy.route]] 1 key_env 'REIN_NO_SUCH_KEY': not set in the environment"),
        (["--route", "gpt-4*"], "rein proxy: --route 'gpt-4*': write GLOB=URL"),  # flags are read first
    ]:
        result = run_rein("proxy", "--upstream", "http://x", *args, cwd=project, home=home)
        assert result.returncode == 2 and result.stderr.startswith(message), result.stderr
        assert result.stderr.strip().count("\n") == 0


def test_routes_from_flags_then_settings_in_order_each_checked() -> None:
    table = [
        {"model": "claude-*", "upstream": "https://api.anthropic.com/", "key_env": "K", "api": "anthropic"},
        {"model": "*", "upstream": "http://127.0.0.1:8080/v1", "timeout": 2},
    ]
    routes = load_routes(["gpt-4.1*=https://api.openai.com/v1"], table, {"K": "secret"})
    assert [(r.model, r.upstream) for r in routes] == [
        ("gpt-4.1*", "https://api.openai.com/v1"),
        ("claude-*", "https://api.anthropic.com"),
        ("*", "http://127.0.0.1:8080/v1"),
    ]
    assert routes[1].key == "secret" and "secret" not in repr(routes[1]) and routes[2].timeout == 2.0
    for bad, message in [
        ([{"model": "m", "upstream": "http://x", "uptream": 1}], "[[proxy.route]] 1: unknown key 'uptream'"),
        ([{"upstream": "http://x"}], "[[proxy.route]] 1 model: a glob"),
        ([{"model": "m"}], "[[proxy.route]] 1 upstream: the API's base URL is required"),
        (
            [{"model": "m", "upstream": "http://x", "api": "gemini"}],
            "api 'gemini': use one of openai, anthropic",
        ),
        ([{"model": "m", "upstream": "http://x", "timeout": 0}], "timeout 0: seconds, more than 0"),
        ([{"model": "m", "upstream": "http://x?a=1"}], "a base URL takes no query"),
    ]:
        with pytest.raises(ProxyConfigError) as caught:
            load_routes([], bad, {})
        assert message in str(caught.value) and "\n" not in str(caught.value)


def test_a_routes_own_key_in_the_header_of_its_api() -> None:
    bearer = Route(model="*", upstream="http://x", key="k")
    assert bearer.auth("http://x/v1/chat/completions") == ("authorization", "Bearer k")
    assert bearer.auth("http://x/v1/messages") == ("x-api-key", "k")
    assert Route(model="*", upstream="http://x", key="k", api="openai").auth("http://x/v1/messages") == (
        "authorization",
        "Bearer k",
    )
    assert Route(model="*", upstream="http://x").auth("http://x/v1/messages") is None


def test_the_model_of_a_body_without_parsing_it_whole() -> None:
    assert model_of(b'{"messages": [], "model": "gpt-4.1-mini", "stream": true}') == "gpt-4.1-mini"
    assert model_of(b'{"model":"a\\"b"}') == 'a"b'
    text_mentions = json.dumps({"messages": [{"content": '"model": "evil"'}], "model": "real"}).encode()
    assert model_of(text_mentions) == "real"
    nested = json.dumps({"metadata": {"model": "inner"}, "model": "outer"}).encode()
    assert model_of(nested) == "outer"
    assert model_of(json.dumps({"metadata": {"model": "inner"}, "x": 1}).encode()) == "inner"
    assert model_of(b'{"messages": []}') is None and model_of(b"not json") is None


def test_candidates_in_table_order_else_the_default() -> None:
    a, b, c = (
        Route(model=g, upstream=u)
        for g, u in [("gpt-*", "http://a"), ("*", "http://b"), ("claude-*", "http://c")]
    )
    table = RouteTable("http://d/v1", (a, b, c))
    assert table.candidates("gpt-4.1") == (a, b) and table.candidates("claude-x") == (b, c)
    assert RouteTable("http://d", (a,)).candidates("llama") == (
        table.default.__class__(model="*", upstream="http://d"),
    )
    assert table.candidates(None) == (table.default,)


def test_a_url_built_for_the_default_is_rebased_for_a_route() -> None:
    for default, path in [
        ("http://d/v1", "/v1/chat/completions"),
        ("http://d", "/v1/messages"),
        ("http://d/api", "/x"),
    ]:
        built = upstream_url(default, path, "a=1")
        raw = built.removeprefix("http://d")
        default_path = default.removeprefix("http://d")
        for route in ("http://r/v1", "http://r", "https://r/openai/v1"):
            assert rebase(raw, default_path, route) == upstream_url(route, path, "a=1"), (
                default,
                path,
                route,
            )
