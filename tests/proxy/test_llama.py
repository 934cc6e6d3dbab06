"""`rein proxy` in front of a real OpenAI-compatible server: llama.cpp's own, with the bundled model.

The real `rein proxy` runs as a subprocess between the official openai SDK and llama-server
(started as in tests/ai/test_openai_llama_server.py). Greedy decoding (temperature 0) makes the model's
replies repeatable: asked for the capital of France it writes "Paris" a few words in, which a rule
forbids; retried with the rule injected, it writes something else. A client that leaves mid-reply makes
the proxy close its upstream request, which llama logs at its next token. Replies are kept short: the
model runs on the CPU.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from openai import AsyncOpenAI
from openai.types.chat import ChatCompletionChunk

from tests.ai.helpers import run
from tests.ai.test_openai_llama_server import (
    DISCONNECTED,
    MODEL_ID,
    STORY,
    LlamaServer,
    llama_server,
    logged,
    read_log,
)
from tests.proxy.conftest import RunningProxy, start_proxy

pytestmark = [pytest.mark.local, pytest.mark.slow]

TIMEOUT = 30.0
QUESTION = "Which city is the capital of France?"  # asked "What is ...", this model rambles in French
WORD = "Paris"
RULE = f"---\ncondition: {WORD}\n---\nDo not name the city. Say only: I cannot say.\n"
REQUEST_LINE = "| processing task"
"""What llama-server logs when a slot takes a request (it logs no access line for a 200)."""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LlamaServer]:
    with llama_server(tmp_path_factory.mktemp("llama") / "server.log") as running:
        yield running


def client(base_url: str) -> AsyncOpenAI:
    return AsyncOpenAI(base_url=base_url, api_key="not-needed", max_retries=0, timeout=TIMEOUT)


async def streamed(base_url: str, prompt: str, max_tokens: int) -> tuple[str, list[ChatCompletionChunk]]:
    """The reply's text and every chunk, streamed with the SDK (which parses each one)."""
    chunks: list[ChatCompletionChunk] = []
    async with client(base_url) as sdk:
        stream = await sdk.chat.completions.create(
            model=MODEL_ID,
            messages=[{"role": "user", "content": prompt}],
            max_tokens=max_tokens,
            temperature=0.0,
            stream=True,
        )
        async for chunk in stream:
            chunks.append(chunk)
    text = "".join(choice.delta.content or "" for chunk in chunks for choice in chunk.choices)
    return text, chunks


def test_a_rule_that_fires_in_the_window_is_cut_and_retried_unseen(
    server: LlamaServer, tmp_path: Path
) -> None:
    async def scenario() -> tuple[str, str, list[ChatCompletionChunk], RunningProxy, int]:
        direct, _ = await streamed(server.base_url, QUESTION, 40)
        requests = read_log(server.log).count(REQUEST_LINE)
        async with start_proxy(server.base_url, tmp_path, rules={"no-paris": RULE}) as proxy:
            text, chunks = await streamed(f"{proxy.url}/v1", QUESTION, 40)
            status = proxy.status()
            assert status["retries"] == 1, status
            assert status["firings"] == {"no-paris": 1}, status
            assert status["late_firings"] == {}, status
        return direct, text, chunks, proxy, requests

    direct, text, chunks, proxy, requests = run(scenario(), TIMEOUT)
    at = direct.find(WORD)
    assert at > 0, f"the model no longer writes {WORD!r} here; pick another rule: {direct!r}"
    # The client saw the first attempt up to the window before the match (it streamed), never the match;
    # the retry continued from there.
    seen = next((n for n, (a, b) in enumerate(zip(direct, text, strict=False)) if a != b), len(text))
    assert 0 < seen < at + len(WORD), (seen, direct, text)
    assert WORD not in text, text
    # One valid stream: one id, the role first, one finish reason, at the end.
    assert {chunk.id for chunk in chunks} == {chunks[0].id}
    assert chunks[0].choices[0].delta.role == "assistant"
    finishes = [choice.finish_reason for chunk in chunks for choice in chunk.choices if choice.finish_reason]
    assert finishes in (["stop"], ["length"]), finishes
    assert chunks[-1].choices[0].finish_reason == finishes[0]
    # Upstream: the cut request, then the retry with the rule injected.
    assert read_log(server.log).count(REQUEST_LINE) == requests + 2
    [fired] = proxy.records("fired")
    assert (fired["rule"], fired["action"], fired["late"], fired["attempt"]) == (
        "no-paris",
        "retry",
        False,
        0,
    )
    assert str(fired["excerpt"]).endswith(WORD), fired
    [request] = proxy.records("request")
    assert (request["attempts"], request["outcome"]) == (2, "completed"), request


def test_a_client_abort_cancels_the_upstream_at_once(server: LlamaServer, tmp_path: Path) -> None:
    disconnects = read_log(server.log).count(DISCONNECTED)

    async def scenario() -> tuple[str, float]:
        async with start_proxy(server.base_url, tmp_path, rules={"no-paris": RULE}) as proxy:
            async with client(f"{proxy.url}/v1") as sdk:
                stream = await sdk.chat.completions.create(
                    model=MODEL_ID,
                    messages=[{"role": "user", "content": STORY}],
                    max_tokens=256,  # many seconds on this CPU, were it not cancelled
                    temperature=0.0,
                    stream=True,
                )
                first = ""
                async for chunk in stream:
                    first = "".join(choice.delta.content or "" for choice in chunk.choices)
                    if first:
                        break
                aborted = time.monotonic()
                await stream.close()
            await logged(server, DISCONNECTED, disconnects + 1, within=5.0)
            ended = time.monotonic() - aborted
            deadline = time.monotonic() + 5.0
            while proxy.status()["client_aborts"] != 1:
                assert time.monotonic() < deadline, proxy.status()
                await asyncio.sleep(0.05)
        return first, ended

    first, ended = run(scenario(), TIMEOUT)
    assert first, "a first piece of text arrived before the abort"
    assert ended < 1.0, f"llama saw the client go {ended:.2f}s after the abort"
