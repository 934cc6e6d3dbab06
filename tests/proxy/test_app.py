"""The proxy's own behaviour, whatever the format (shown on Chat Completions with the openai SDK): the
late policies, retries exhausted, `x-rein-rules: off`, pass-through of other paths, upstream errors, a
client abort closing upstream at once, `/rein/status`, and the start-up errors of `rein proxy`."""

from __future__ import annotations

import json
from pathlib import Path

import httpx2
import pytest
from openai import AsyncOpenAI, UnprocessableEntityError

from rein.ai import JsonValue, TextContent
from rein.ai.testing import Hang, Reply, SseServer, chat_reply, openai_http_error
from tests.ai.helpers import run
from tests.cli.helpers import run_rein
from tests.proxy.conftest import RunningProxy, start_proxy

pytestmark = pytest.mark.slow

LONG = "---\ncondition: 'begin[a-z ]*end'\n---\nNo begin-to-end phrases.\n"
WORD = "---\ncondition: forbidden\n---\nNever write the word.\n"
ASK: JsonValue = [{"role": "user", "content": "go"}]
PHRASE = "begin and a great many words before the end. More."


def completion(content: str) -> JsonValue:
    """A non-streamed Chat Completions reply."""
    message: JsonValue = {"role": "assistant", "content": content}
    return {
        "id": "c1", "object": "chat.completion", "created": 1, "model": "m",
        "choices": [{"index": 0, "finish_reason": "stop", "message": message}],
        "usage": {"prompt_tokens": 3, "completion_tokens": 4, "total_tokens": 7},
    }  # fmt: skip


def sdk(proxy: RunningProxy) -> AsyncOpenAI:
    return AsyncOpenAI(base_url=f"{proxy.url}/v1", api_key="sk-test", max_retries=0, timeout=20)


async def text_of(proxy: RunningProxy, **extra: object) -> str:
    async with sdk(proxy) as client:
        stream = await client.chat.completions.create(
            model="m",
            messages=[{"role": "user", "content": "go"}],
            stream=True,
            **extra,  # type: ignore[call-overload]
        )
        return "".join([c.choices[0].delta.content or "" async for c in stream if c.choices])


def body(server: SseServer, index: int) -> dict[str, JsonValue]:
    found = server.requests[index].body
    assert isinstance(found, dict)
    return found


def late_run(tmp_path: Path, policy: str, replies: list[Reply]) -> tuple[str, SseServer, RunningProxy]:
    async def scenario() -> tuple[str, SseServer, RunningProxy]:
        async with SseServer(replies) as server:
            args = ["--max-hold", "8", "--late-policy", policy]
            async with start_proxy(server.url, tmp_path, rules={"long": LONG}, args=args) as proxy:
                return await text_of(proxy), server, proxy

    return run(scenario(), timeout=40)


def test_late_match_append_correction_keeps_what_was_shown_and_retries(tmp_path: Path) -> None:
    replies = [Reply(steps=chat_reply(TextContent(text=PHRASE), chunk=4)),
               Reply(steps=chat_reply(TextContent(text=" Correction: no such phrase.")))]  # fmt: skip
    text, server, proxy = late_run(tmp_path, "append-correction", replies)
    shown = text.removesuffix(" Correction: no such phrase.")
    assert shown != text and PHRASE.startswith(shown) and "end" not in shown
    retry = body(server, 1)["messages"]
    assert isinstance(retry, list) and retry[1] == {"role": "assistant", "content": shown}
    assert "begin by correcting" in json.dumps(retry[2])
    fired = proxy.records("fired")
    assert [(r["rule"], r["late"], r["action"]) for r in fired] == [("long", True, "append-correction")]


def test_late_match_end_stream_ends_the_reply_there(tmp_path: Path) -> None:
    text, server, proxy = late_run(
        tmp_path, "end-stream", [Reply(steps=chat_reply(TextContent(text=PHRASE)))]
    )
    assert PHRASE.startswith(text) and "end" not in text and len(server.requests) == 1
    assert proxy.records("fired")[0]["action"] == "end-stream"


def test_late_match_pass_lets_it_through_and_says_so(tmp_path: Path) -> None:
    text, server, proxy = late_run(tmp_path, "pass", [Reply(steps=chat_reply(TextContent(text=PHRASE)))])
    assert text == PHRASE and len(server.requests) == 1
    assert proxy.records("fired")[0]["action"] == "pass"


def test_streamed_retries_exhausted_end_the_reply_without_the_violation(tmp_path: Path) -> None:
    async def scenario() -> None:
        replies = [Reply(steps=chat_reply(TextContent(text="say forbidden now"))) for _ in range(2)]
        async with SseServer(replies) as server:
            args = ["--max-retries", "0"]
            async with start_proxy(server.url, tmp_path, rules={"word": WORD}, args=args) as proxy:
                text = await text_of(proxy)
                assert "forbidden" not in text and len(server.requests) == 1
                assert proxy.status()["ended_early"] == 1

    run(scenario(), timeout=40)


def test_non_streamed_retries_exhausted_is_a_422_never_the_reply(tmp_path: Path) -> None:

    async def scenario() -> None:
        async with SseServer([Reply(body=completion("it is forbidden")) for _ in range(3)]) as server:
            args = ["--max-retries", "1"]  # the rule fires on both attempts: a retry does not spend it
            async with (
                start_proxy(server.url, tmp_path, rules={"word": WORD}, args=args) as proxy,
                sdk(proxy) as client,
            ):
                with pytest.raises(UnprocessableEntityError, match="word"):
                    await client.chat.completions.create(
                        model="m", messages=[{"role": "user", "content": "x"}]
                    )
            assert len(server.requests) == 2
            assert "Never write the word." in json.dumps(body(server, 1)["messages"])

    run(scenario(), timeout=40)


def test_rules_off_header_other_paths_and_status(tmp_path: Path) -> None:
    async def scenario() -> None:
        replies = [
            Reply(steps=chat_reply(TextContent(text="forbidden"))),
            Reply(body={"data": [{"id": "m"}]}),
        ]
        async with (
            SseServer(replies) as server,
            start_proxy(server.url, tmp_path, rules={"word": WORD}) as proxy,
        ):
            text = await text_of(proxy, extra_headers={"x-rein-rules": "off"})
            assert text == "forbidden"
            async with httpx2.AsyncClient() as client:
                models = await client.get(f"{proxy.url}/v1/models?x=1", headers={"authorization": "Bearer k"})
            assert models.json() == {"data": [{"id": "m"}]}
            status = proxy.status()
        assert [r.path for r in server.requests] == ["/v1/chat/completions", "/v1/models?x=1"]
        assert server.requests[1].headers["authorization"] == "Bearer k"
        assert "x-rein-rules" not in server.requests[0].headers
        requests = status["requests"]
        assert isinstance(requests, dict) and requests == {"bypassed": 1, "passthrough": 1}

    run(scenario(), timeout=40)


def test_upstream_error_before_anything_sent_reaches_the_client_as_is(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with (
            SseServer([openai_http_error(400, "bad model")]) as server,
            start_proxy(server.url, tmp_path, rules={"word": WORD}) as proxy,
            httpx2.AsyncClient() as client,
        ):
            answer = await client.post(
                f"{proxy.url}/v1/chat/completions",
                json={"model": "m", "messages": ASK, "stream": True},
            )
        assert answer.status_code == 400 and "bad model" in answer.text

    run(scenario(), timeout=40)


def test_unreachable_upstream_is_a_502(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with start_proxy("http://127.0.0.1:9", tmp_path) as proxy, httpx2.AsyncClient() as client:
            answer = await client.post(f"{proxy.url}/v1/messages", json={"model": "m", "messages": ASK})
        assert answer.status_code == 502 and "upstream" in answer.text

    run(scenario(), timeout=40)


def test_a_client_abort_closes_upstream_at_once(tmp_path: Path) -> None:
    first = chat_reply(TextContent(text="a long story that goes on and on"))[:-3]

    async def scenario() -> None:
        async with (
            SseServer([Reply(steps=[*first, Hang()])]) as server,
            start_proxy(server.url, tmp_path, rules={"word": WORD}) as proxy,
        ):
            async with sdk(proxy) as client:
                stream = await client.chat.completions.create(
                    model="m", messages=[{"role": "user", "content": "go"}], stream=True
                )
                async for chunk in stream:
                    if chunk.choices and chunk.choices[0].delta.content:
                        break
                await stream.close()
            await server.wait_disconnects(1, timeout=5)
            assert proxy.status()["client_aborts"] == 1

    run(scenario(), timeout=40)


def test_bad_start_options_are_one_line_errors(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    for args, message in [
        (["--upstream", "ftp://x"], "not an http(s) URL"),
        (["--upstream", "http://x", "--late-policy", "maybe"], "--late-policy 'maybe'"),
        (["--upstream", "http://x", "--rules", str(tmp_path / "none")], "not a directory"),
    ]:
        result = run_rein("proxy", *args, cwd=tmp_path, home=home)
        assert result.returncode == 2
        assert result.stderr.strip().count("\n") == 0 and message in result.stderr


def test_a_streamed_request_answered_whole_is_checked_whole(tmp_path: Path) -> None:
    """An upstream that ignores `stream: true` does not get its reply past the rules."""

    async def scenario() -> None:
        async with (
            SseServer([Reply(body=completion("forbidden")), Reply(body=completion("fine"))]) as server,
            start_proxy(server.url, tmp_path, rules={"word": WORD}) as proxy,
            httpx2.AsyncClient() as client,
        ):
            answer = await client.post(
                f"{proxy.url}/v1/chat/completions", json={"model": "m", "messages": ASK, "stream": True}
            )
            assert "Never write the word." in json.dumps(body(server, 1)["messages"])
        assert answer.status_code == 200 and answer.json()["choices"][0]["message"]["content"] == "fine"

    run(scenario(), timeout=40)


def test_a_success_the_proxy_cannot_read_is_refused_not_passed(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with (
            SseServer([Reply(steps=chat_reply(TextContent(text="forbidden")))]) as server,
            start_proxy(server.url, tmp_path, rules={"word": WORD}) as proxy,
            httpx2.AsyncClient() as client,
        ):
            answer = await client.post(
                f"{proxy.url}/v1/chat/completions", json={"model": "m", "messages": ASK}
            )
        assert answer.status_code == 502 and "forbidden" not in answer.text
        assert "not a JSON object" in answer.json()["error"]["message"]

    run(scenario(), timeout=40)
