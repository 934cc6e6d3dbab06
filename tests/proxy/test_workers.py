"""The real `rein proxy` as operators run it: `--workers N` serving one port with shared counters, and a
graceful stop (SIGTERM: new connections refused, a stream in flight finishes whole, exit 0; past
`--shutdown-timeout` what is left is cut and the proxy still exits 0)."""

from __future__ import annotations

import asyncio
import signal
import time
from pathlib import Path

import httpx2
import pytest
from openai import APIConnectionError, AsyncOpenAI
from prometheus_client.parser import text_string_to_metric_families

from rein.ai import JsonValue, TextContent
from rein.ai.testing import Event, Hang, Pause, Reply, SseServer, chat_reply
from tests.ai.helpers import run
from tests.proxy.conftest import RULE, RunningProxy, start_proxy

pytestmark = pytest.mark.slow

TEXT = "One two three four five six seven eight nine ten."


def slow_reply(pause: float) -> Reply:
    """The text in small chunks with `pause` seconds before each."""
    steps: list[Event | Pause] = []
    for event in chat_reply(TextContent(text=TEXT)):
        steps += [Pause(seconds=pause), event]
    return Reply(steps=steps)


def sdk(proxy: RunningProxy) -> AsyncOpenAI:
    return AsyncOpenAI(base_url=f"{proxy.url}/v1", api_key="k", max_retries=0, timeout=30)


async def stream_text(proxy: RunningProxy, started: asyncio.Event | None = None) -> tuple[str, list[str]]:
    """The streamed text and finish reasons; `started` is set at the first content."""
    async with sdk(proxy) as client:
        stream = await client.chat.completions.create(
            model="m", messages=[{"role": "user", "content": "go"}], stream=True
        )
        text, finishes = "", list[str]()
        async for chunk in stream:
            for choice in chunk.choices:
                text += choice.delta.content or ""
                finishes += [choice.finish_reason] if choice.finish_reason else []
                if text and started is not None:
                    started.set()
        return text, finishes


def worker_pids(proxy: RunningProxy) -> list[int]:
    """The proxy's worker processes (not multiprocessing's resource tracker)."""
    pid = proxy.process.pid
    found = [int(p) for p in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    return [p for p in found if b"spawn_main" in Path(f"/proc/{p}/cmdline").read_bytes()]


async def refused(proxy: RunningProxy, within: float) -> bool:
    """Whether connecting is refused within `within` seconds."""
    deadline = time.monotonic() + within
    async with httpx2.AsyncClient(timeout=1) as http:
        while time.monotonic() < deadline:
            try:
                await http.get(f"{proxy.url}/rein/status")
            except httpx2.ConnectError:
                return True
            except httpx2.TimeoutException:
                pass
            await asyncio.sleep(0.1)
    return False


async def exit_code(proxy: RunningProxy, within: float) -> int:
    return await asyncio.wait_for(asyncio.to_thread(proxy.process.wait), within)


def test_workers_share_one_port_and_their_counters(tmp_path: Path) -> None:
    streams = 10

    async def scenario() -> None:
        violating = chat_reply(TextContent(text="It is forbidden, you see."))
        clean = chat_reply(TextContent(text=TEXT))
        replies = [Reply(steps=violating), Reply(steps=clean)] + [
            slow_reply(0.05) for _ in range(streams - 1)
        ]
        async with (
            SseServer(replies) as server,
            start_proxy(server.url, tmp_path, rules={"w": RULE}, args=["--workers", "2"]) as proxy,
        ):
            assert "2 workers" in proxy.log()
            texts = await asyncio.gather(*(stream_text(proxy) for _ in range(streams)))
            assert all(text.endswith(TEXT) for text, _ in texts), texts
            assert len(worker_pids(proxy)) == 2
            deadline = time.monotonic() + 10
            while True:  # each worker publishes its counters every second
                status = proxy.status()
                done = (status["streams"], status["requests"], status["active"])
                if done == (streams, {"chat": streams}, 0):
                    break
                assert time.monotonic() < deadline, status
                await asyncio.sleep(0.2)
            # whichever worker answers, it reports every worker's counts
            seen: list[JsonValue] = [proxy.status() for _ in range(8)]
            async with httpx2.AsyncClient() as http:
                metrics = (await http.get(f"{proxy.url}/metrics")).text
        for one in seen:
            assert isinstance(one, dict)
            assert (one["streams"], one["retries"], one["firings"], one["workers"]) == (
                streams,
                1,
                {"w": 1},
                2,
            )
            assert (one["active"], one["client_aborts"]) == (0, 0)
        samples = {
            (s.name, tuple(sorted(s.labels.items()))): s.value
            for family in text_string_to_metric_families(metrics)
            for s in family.samples
        }
        assert samples[("rein_proxy_requests_total", (("api", "chat"), ("status", "200")))] == streams
        assert samples[("rein_proxy_held_chars_count", ())] == streams

    run(scenario(), timeout=90)


@pytest.mark.parametrize("workers", [1, 2])
def test_sigterm_lets_a_stream_in_flight_finish_whole(tmp_path: Path, workers: int) -> None:
    async def scenario() -> None:
        async with (
            SseServer([slow_reply(0.15)]) as server,
            start_proxy(server.url, tmp_path, args=["--workers", str(workers)]) as proxy,
        ):
            started = asyncio.Event()
            stream = asyncio.ensure_future(stream_text(proxy, started))
            await asyncio.wait_for(started.wait(), 20)
            proxy.process.send_signal(signal.SIGTERM)
            assert await refused(proxy, within=1.5), "still accepting after SIGTERM"
            assert not stream.done()
            text, finishes = await stream
            assert (text, finishes) == (TEXT, ["stop"])
            assert await exit_code(proxy, within=15) == 0
        assert "open streams have 30 s to finish" in proxy.log()

    run(scenario(), timeout=60)


def test_past_the_shutdown_timeout_the_rest_is_cut_and_the_exit_is_0(tmp_path: Path) -> None:
    head = chat_reply(TextContent(text=TEXT))[:4]

    async def scenario() -> None:
        async with (
            SseServer([Reply(steps=[*head, Hang()])]) as server,
            start_proxy(server.url, tmp_path, args=["--shutdown-timeout", "1"]) as proxy,
        ):
            started = asyncio.Event()
            stream = asyncio.ensure_future(stream_text(proxy, started))
            await asyncio.wait_for(started.wait(), 20)
            stopped = time.monotonic()
            proxy.process.send_signal(signal.SIGTERM)
            assert await exit_code(proxy, within=15) == 0
            assert time.monotonic() - stopped < 5
            with pytest.raises(APIConnectionError):
                await stream
            await server.wait_disconnects(1, timeout=5)  # the upstream stream was closed too
        assert "open streams have 1 s to finish" in proxy.log()

    run(scenario(), timeout=60)
