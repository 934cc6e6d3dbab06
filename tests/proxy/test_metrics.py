"""`GET /metrics`: `/rein/status`'s counters as Prometheus metrics, copied in without double counting,
requests by API and status, the latency histograms (observed per stream, in one go), the status rebuilt
from the metrics (as workers see it), and the real proxy's `/metrics` after a rule fired."""

from __future__ import annotations

import asyncio
from pathlib import Path

import httpx2
import pytest
from openai import AsyncOpenAI
from prometheus_client.parser import text_string_to_metric_families

from rein.ai import TextContent
from rein.ai.testing import Reply, SseServer, chat_reply
from rein.proxy._budget_store import Used
from rein.proxy._metrics import LATENCY, ProxyMetrics, merged, quantile_ms
from rein.proxy._relay import Relay
from rein.proxy._status import Status
from tests.ai.helpers import run
from tests.proxy.conftest import RULE, start_proxy

CHAT = ("rein_proxy_requests_total", (("api", "chat"), ("status", "200")))
PASSED = ("rein_proxy_requests_total", (("api", "passthrough"), ("status", "500")))


def values(text: bytes) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """Every sample of an exposition: (name, sorted labels) to value."""
    found: dict[tuple[str, tuple[tuple[str, str], ...]], float] = {}
    for family in text_string_to_metric_families(text.decode()):
        for sample in family.samples:
            found[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return found


def counted() -> Status:
    status = Status()
    status.streams, status.retries, status.client_aborts, status.active, status.held_peak = 3, 2, 1, 1, 40
    status.firings.update({"no-foo": 2})
    status.late.update({"no-foo": 1})
    status.steering_blocks.update({"rm": 1})
    return status


def test_publish_copies_status_counters_once() -> None:
    metrics, status = ProxyMetrics(), counted()
    metrics.publish(status, held_now=7)
    metrics.publish(status, held_now=7)  # nothing new: nothing added
    status.retries += 1
    status.firings["no-bar"] += 1
    metrics.publish(status, held_now=0)
    found = values(metrics.render())
    assert found[("rein_proxy_retries_total", ())] == 3
    assert found[("rein_proxy_streams_total", ())] == 3
    assert found[("rein_proxy_client_aborts_total", ())] == 1
    assert found[("rein_proxy_firings_total", (("rule", "no-foo"),))] == 2
    assert found[("rein_proxy_firings_total", (("rule", "no-bar"),))] == 1
    assert found[("rein_proxy_late_firings_total", (("rule", "no-foo"),))] == 1
    assert found[("rein_proxy_steering_blocks_total", (("rule", "rm"),))] == 1
    assert found[("rein_proxy_active_streams", ())] == 1
    assert found[("rein_proxy_chars_held", ())] == 0
    assert found[("rein_proxy_chars_held_peak", ())] == 40


def test_metrics_others_add_are_created_once_and_rendered() -> None:
    metrics = ProxyMetrics()
    for _ in range(2):
        metrics.counter("rein_proxy_example_handovers", "Requests sent on.", ["route"]).labels("b").inc()
    metrics.gauge("rein_proxy_budget_used_ratio", "Budget used.", ["budget"]).labels("tokens").set(0.5)
    found = values(metrics.render())
    assert found[("rein_proxy_example_handovers_total", (("route", "b"),))] == 2
    assert found[("rein_proxy_budget_used_ratio", (("budget", "tokens"),))] == 0.5
    with pytest.raises(TypeError, match="rein_proxy_example_handovers is a Counter"):
        metrics.gauge("rein_proxy_example_handovers", "again")


def test_a_stream_is_observed_in_one_go_as_one_observation_each_would() -> None:
    delays = [0.0001, 0.0004, 0.003, 0.003, 0.02, 0.7, 5.0, LATENCY[3]]
    ticks = iter([1.0, 1.004])
    relay = Relay(lambda: pytest.fail("no rules here"), {}, clock=lambda: next(ticks))
    relay.first_content_at, relay.first_release_at = 1.0, 1.004
    relay.delays = delays
    relay.held_peak = 20
    batched, single = ProxyMetrics(), ProxyMetrics()
    batched.stream_ended(relay)
    for delay in delays:
        single.piece_delay.observe(delay)
    single.first_token.observe(0.004)
    single.held.observe(20)
    batch, one = values(batched.render()), values(single.render())
    pieces = {key: value for key, value in one.items() if key[0].startswith("rein_proxy_held_piece_seconds_")}
    assert pieces and all(batch[key] == pytest.approx(value) for key, value in pieces.items()), batch
    assert batch[("rein_proxy_held_piece_seconds_count", ())] == len(delays)
    assert batch[("rein_proxy_first_token_added_seconds_count", ())] == 1
    assert batch[("rein_proxy_held_chars_bucket", (("le", "32.0"),))] == 1
    assert batch[("rein_proxy_held_chars_bucket", (("le", "16.0"),))] == 0


def test_the_status_rebuilt_from_metrics_matches_the_counters() -> None:
    metrics, status = ProxyMetrics(), counted()
    status.requests.update({"chat": 2})
    metrics.publish(status, held_now=5)
    for api, code in (("chat", "200"), ("chat", "429")):
        metrics.requests.labels(api, code).inc()
    relay = Relay(lambda: pytest.fail("no rules here"), {})
    relay.first_content_at, relay.first_release_at, relay.delays = 0.0, 0.002, [0.002] * 10
    metrics.stream_ended(relay)
    rebuilt = merged(metrics.collect(), status.started)
    expected = status.to_json(5)
    for key in ("requests", "streams", "active", "retries", "firings", "late_firings", "client_aborts"):
        assert rebuilt[key] == expected[key], key
    assert rebuilt["steering_blocks"] == {"rm": 1}
    assert rebuilt["chars_held"] == {"now": 5, "peak": 40}
    latency = rebuilt["added_latency_ms"]
    assert isinstance(latency, dict)
    first = latency["first_token_p50"]
    assert isinstance(first, float) and 1.0 < first <= 2.5  # within the 1 to 2.5 ms bucket


def test_budget_use_is_summed_per_scope_and_replaced_on_each_read() -> None:
    metrics = ProxyMetrics()
    used = [
        Used(scope="session", ident="a", requests=2, tokens=100, spend_usd=0.5),
        Used(scope="session", ident="b", requests=1, tokens=50, spend_usd=0.25),
        Used(scope="key", ident="k", requests=3, tokens=150, spend_usd=0.75),
    ]
    metrics.budget_use(used)
    metrics.budget_use(used)  # a second scrape reads the same file: the same figures, not twice them
    found = values(metrics.render())
    assert found[("rein_proxy_budget_ids", (("scope", "session"),))] == 2
    assert found[("rein_proxy_budget_used", (("dimension", "tokens"), ("scope", "session")))] == 150
    assert found[("rein_proxy_budget_used", (("dimension", "spend_usd"), ("scope", "session")))] == 0.75
    assert found[("rein_proxy_budget_used", (("dimension", "requests"), ("scope", "key")))] == 3


def test_quantiles_interpolate_within_a_bucket() -> None:
    buckets = [(0.001, 0.0), (0.002, 10.0), (float("inf"), 10.0)]
    assert quantile_ms(buckets, 0.5) == 1.5
    assert quantile_ms(buckets, 1.0) == 2.0
    assert quantile_ms([(0.001, 0.0), (float("inf"), 4.0)], 0.5) == 1.0  # past the last bound: that bound
    assert quantile_ms([], 0.5) is None
    assert quantile_ms([(0.001, 0.0), (float("inf"), 0.0)], 0.5) is None


@pytest.mark.slow
def test_the_running_proxy_serves_metrics(tmp_path: Path) -> None:
    async def scenario() -> None:
        replies = [
            Reply(steps=chat_reply(TextContent(text="It is forbidden, you see."))),
            Reply(steps=chat_reply(TextContent(text="I will not say it."))),
        ]
        async with (
            SseServer(replies) as server,
            start_proxy(server.url, tmp_path, rules={"w": RULE}) as proxy,
        ):
            async with AsyncOpenAI(base_url=f"{proxy.url}/v1", api_key="k", max_retries=0) as client:
                stream = await client.chat.completions.create(
                    model="m", messages=[{"role": "user", "content": "go"}], stream=True
                )
                text = "".join([c.choices[0].delta.content or "" async for c in stream if c.choices])
            assert "forbidden" not in text and text.endswith("I will not say it.")
            async with httpx2.AsyncClient() as http:
                missing = await http.post(f"{proxy.url}/v1/models")  # no reply left upstream: its 500
                for _ in range(50):  # a request is counted once the proxy finished its side
                    answer = await http.get(f"{proxy.url}/metrics")
                    found = values(answer.content)
                    if found.get(PASSED) and found.get(CHAT):
                        break
                    await asyncio.sleep(0.05)
        assert answer.headers["content-type"].startswith("text/plain; version=")
        assert (found[CHAT], found[PASSED], missing.status_code) == (1, 1, 500)
        assert found[("rein_proxy_retries_total", ())] == 1
        assert found[("rein_proxy_firings_total", (("rule", "w"),))] == 1
        assert found[("rein_proxy_streams_total", ())] == 1
        assert found[("rein_proxy_client_aborts_total", ())] == 0
        assert found[("rein_proxy_first_token_added_seconds_count", ())] == 1
        assert found[("rein_proxy_held_piece_seconds_count", ())] >= 1
        assert found[("rein_proxy_held_chars_count", ())] == 1

    run(scenario(), timeout=40)
