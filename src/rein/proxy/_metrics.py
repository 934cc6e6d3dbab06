"""The proxy's Prometheus metrics (`GET /metrics`), shared by every worker of `--workers N`.

One `ProxyMetrics` per app (`shared.metrics`), one registry each, so two apps in one process (the tests)
never share counters. Three sources feed it, none of them per chunk:

- `/rein/status`'s counters (`Status`: ints and per-rule `Counter`s) are copied in by `publish()`: when
  `/metrics` or `/rein/status` is asked, every second with more than one worker, and at shutdown. A field
  added to `Status` is exported with no other change (`rein_proxy_<field>_total`, label `key`; name it in
  `_COUNTED` for a better name, help and label);
- each request's API and HTTP status, counted when it ends (`answered`);
- each stream's added latency and held characters, observed when it ends (`stream_ended`).

Budget use is read from the budgets' SQLite file when `/metrics` is asked (`budget_use`). Adding a
metric of your own (route fallbacks, ...): ask for it where you count, per request or per event, never
per chunk; the first call creates it, later ones return the same one.

    fallbacks = shared.metrics.counter("rein_proxy_route_fallbacks", "Requests sent on.", ["upstream"])
    fallbacks.labels(failed).inc()
    shared.metrics.gauge("rein_proxy_sessions", "Sessions with state in memory.").set(len(sessions))
    shared.metrics.histogram("rein_proxy_steer_seconds", "Steering check time.").observe(seconds)

Names follow Prometheus's conventions: `rein_proxy_` first, `_total` added to counters by the library,
units in the name (`_seconds`, `_chars`). With workers (`PROMETHEUS_MULTIPROC_DIR` set before the worker
starts, by `rein.proxy._workers`), values live in files there and `/metrics` sums every worker's; a gauge
says how workers' values combine (`mode`: `livesum` by default, `max`, `min`, `mostrecent`, ...).
"""

from __future__ import annotations

import asyncio
import dataclasses
import os
from bisect import bisect_left
from collections import Counter as Tally
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import partial
from typing import Literal, TypeVar

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, Metric, generate_latest
from prometheus_client.exposition import CONTENT_TYPE_LATEST
from prometheus_client.multiprocess import MultiProcessCollector, mark_process_dead

from rein.ai import JsonValue
from rein.proxy._budget_store import Used
from rein.proxy._relay import Relay
from rein.proxy._status import Seen, Status

CONTENT_TYPE = CONTENT_TYPE_LATEST
PUBLISH_SECONDS = 1.0
"""How often a worker copies its counters out when there are several (what others see lags by this)."""
LATENCY = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)
HELD = (0, 16, 32, 64, 128, 256, 512, 1024, 4096)
_latency_bucket = partial(bisect_left, LATENCY)
GaugeMode = Literal["all", "liveall", "min", "livemin", "max", "livemax", "sum", "livesum", "mostrecent"]

_COUNTED: dict[str, tuple[str, str, str]] = {
    "streams": ("rein_proxy_streams", "Streamed replies relayed.", ""),
    "retries": ("rein_proxy_retries", "Requests sent again after a rule fired in held text.", ""),
    "firings": ("rein_proxy_firings", "Interrupting rule matches, by rule.", "rule"),
    "late": ("rein_proxy_late_firings", "Firings on text the client had already received, by rule.", "rule"),
    "reminders": ("rein_proxy_reminders", "Matches of rules that do not interrupt, by rule.", "rule"),
    "ended": ("rein_proxy_ended_early", "Replies ended early (end-stream policy, retries exhausted).", ""),
    "upstream_errors": ("rein_proxy_upstream_errors", "Upstream failures: unreachable or an error.", ""),
    "client_aborts": ("rein_proxy_client_aborts", "Clients that left before their reply ended.", ""),
    "steering_blocks": ("rein_proxy_steering_blocks", "Tool calls steering refused, by rule.", "rule"),
    "route_fallbacks": (
        "rein_proxy_route_fallbacks",
        "Requests sent on to the next route, by the upstream that failed.",
        "upstream",
    ),
}
"""`Status` fields as metrics: name (without `_total`), help, label of a per-key `Counter` field."""
_NOT_COUNTED = frozenset({"started", "requests", "active", "held_peak"})
"""Fields exported otherwise: requests when answered (with their status), the rest as gauges."""

M = TypeVar("M", Counter, Gauge, Histogram)


class _Histogram(Histogram):
    def observe_counts(self, counts: Mapping[int, int], total: float) -> None:
        """Many observations at once: `counts` per bucket index (as `bisect_left` over the bounds
        numbers them; one past the last bound is +Inf), one lock per bucket, not one per observation."""
        self._raise_if_not_observable()  # type: ignore[no-untyped-call]
        self._sum.inc(total)
        for index, count in counts.items():
            self._buckets[index].inc(count)


class ProxyMetrics:
    """See the module docstring."""

    def __init__(self) -> None:
        self.folder = os.environ.get("PROMETHEUS_MULTIPROC_DIR") or None
        """Where workers keep their values (None: one process, values in memory)."""
        self.registry = CollectorRegistry(auto_describe=True)
        self._metrics: dict[str, Counter | Gauge | Histogram] = {}
        self._published: dict[tuple[str, str], int] = {}
        blank = Status()
        for spec in dataclasses.fields(blank):  # every counter shows from the start, 0 until counted
            name, documentation, label = _named(spec.name)
            default: object = getattr(blank, spec.name)
            if spec.name not in _NOT_COUNTED and isinstance(default, int | Tally):
                self.counter(name, documentation, [label] if isinstance(default, Tally) else [])
        self.requests = self.counter(
            "rein_proxy_requests", "Requests answered, by API and HTTP status.", ["api", "status"]
        )
        self.active = self.gauge("rein_proxy_active_streams", "Streams being relayed now.")
        self.gauge("rein_proxy_workers", "Processes serving the proxy's port.").set(1)
        self.held_now = self.gauge("rein_proxy_chars_held", "Characters held back now, over all streams.")
        self.held_peak = self.gauge(
            "rein_proxy_chars_held_peak", "The most characters held back at once.", mode="max"
        )
        self.held = self.histogram(
            "rein_proxy_held_chars", "The most characters each stream held back at once.", buckets=HELD
        )
        self.first_token = self.histogram(
            "rein_proxy_first_token_added_seconds",
            "Time the first content waited in the proxy (first token added), per stream.",
        )
        self.piece_delay = self.histogram(
            "rein_proxy_held_piece_seconds", "Time each piece of checked content waited in the proxy."
        )

    def counter(self, name: str, documentation: str, labels: Sequence[str] = ()) -> Counter:
        return self._get(Counter, name, lambda: Counter(name, documentation, labels, registry=self.registry))

    def gauge(
        self, name: str, documentation: str, labels: Sequence[str] = (), mode: GaugeMode = "livesum"
    ) -> Gauge:
        return self._get(
            Gauge,
            name,
            lambda: Gauge(name, documentation, labels, registry=self.registry, multiprocess_mode=mode),
        )

    def histogram(
        self, name: str, documentation: str, labels: Sequence[str] = (), buckets: Sequence[float] = LATENCY
    ) -> Histogram:
        return self._get(
            Histogram,
            name,
            lambda: _Histogram(name, documentation, labels, registry=self.registry, buckets=buckets),
        )

    def _get(self, kind: type[M], name: str, make: Callable[[], M]) -> M:
        found = self._metrics.get(name)
        if found is None:
            found = self._metrics[name] = make()
        if not isinstance(found, kind):
            raise TypeError(f"metric {name} is a {type(found).__name__}, not a {kind.__name__}")
        return found

    def answered(self, seen: Seen) -> None:
        """Count one request when it ends."""
        self.requests.labels(seen.api, seen.status()).inc()

    def stream_ended(self, relay: Relay) -> None:
        """Observe one stream's added latency and held characters (in one go: nothing per chunk)."""
        self.held.observe(relay.held_peak)
        if relay.first_content_at is not None and relay.first_release_at is not None:
            self.first_token.observe(relay.first_release_at - relay.first_content_at)
        if relay.delays:
            histogram = self.piece_delay
            assert isinstance(histogram, _Histogram)
            histogram.observe_counts(Tally(map(_latency_bucket, relay.delays)), sum(relay.delays))

    def budget_use(self, used: Iterable[Used]) -> None:
        """Budget use as the budgets' file has it (every worker's, so the latest read wins): per scope
        (`session`, `key`), the ids counted and their requests, tokens and spend summed."""
        ids = self.gauge(
            "rein_proxy_budget_ids", "Sessions or API keys with budget use.", ["scope"], "mostrecent"
        )
        total = self.gauge(
            "rein_proxy_budget_used",
            "Budget use summed over ids, by dimension.",
            ["scope", "dimension"],
            "mostrecent",
        )
        for scope in ("session", "key"):
            mine = [one for one in used if one.scope == scope]
            ids.labels(scope).set(len(mine))
            total.labels(scope, "requests").set(sum(one.requests for one in mine))
            total.labels(scope, "tokens").set(sum(one.tokens for one in mine))
            total.labels(scope, "spend_usd").set(sum(one.spend_usd for one in mine))

    def publish(self, status: Status, held_now: int) -> None:
        """Copy what `status` counted since the last call into the metrics."""
        for spec in dataclasses.fields(status):
            if spec.name in _NOT_COUNTED:
                continue
            value: object = getattr(status, spec.name)
            if isinstance(value, int):
                self._add(spec.name, "", value)
            elif isinstance(value, Tally):
                for key, count in list(value.items()):
                    self._add(spec.name, str(key), count)
        self.active.set(status.active)
        self.held_now.set(held_now)
        self.held_peak.set(status.held_peak)

    def _add(self, field: str, key: str, value: int) -> None:
        delta = value - self._published.get((field, key), 0)
        if delta <= 0:
            return
        self._published[(field, key)] = value
        name, documentation, label = _named(field)
        if key:
            self.counter(name, documentation, [label]).labels(key).inc(delta)
        else:
            self.counter(name, documentation).inc(delta)

    def close(self) -> None:
        """This worker stops: its live gauges (active streams, chars held, workers) leave the sums."""
        if self.folder is not None:
            mark_process_dead(os.getpid(), self.folder)  # type: ignore[no-untyped-call]

    async def every(self, publish: Callable[[], None]) -> None:
        """Call `publish` each `PUBLISH_SECONDS` until cancelled (workers: so the others see this one's)."""
        while True:
            await asyncio.sleep(PUBLISH_SECONDS)
            publish()

    def _source(self) -> CollectorRegistry:
        """This app's registry, or with workers one that reads every worker's files."""
        if self.folder is None:
            return self.registry
        registry = CollectorRegistry()
        MultiProcessCollector(registry, path=self.folder)  # type: ignore[no-untyped-call]
        return registry

    def collect(self) -> Iterable[Metric]:
        """Every metric, summed over the workers when there are several."""
        return self._source().collect()

    def render(self) -> bytes:
        """The text exposition format, for `GET /metrics`."""
        return generate_latest(self._source())

    def status(self, status: Status, held_now: int) -> dict[str, JsonValue]:
        """`/rein/status`: this process's counters, or with workers every worker's (from the metrics,
        latency percentiles estimated from the histograms' buckets)."""
        if self.folder is None:
            return status.to_json(held_now)
        return merged(self.collect(), status.started)


def merged(families: Iterable[Metric], started: float) -> dict[str, JsonValue]:
    """`/rein/status` rebuilt from the metrics of every worker."""
    samples: dict[str, list[tuple[dict[str, str], float]]] = {}
    for family in families:
        for sample in family.samples:
            samples.setdefault(sample.name, []).append((sample.labels, sample.value))
    total = Status(started=started)
    for api_status, value in samples.get("rein_proxy_requests_total", []):
        total.requests[api_status["api"]] += int(value)
    for spec in dataclasses.fields(total):
        if spec.name in _NOT_COUNTED:
            continue
        name, _, label = _named(spec.name)
        found = samples.get(f"{name}_total", [])
        current: object = getattr(total, spec.name)
        if isinstance(current, int):
            setattr(total, spec.name, int(sum(value for _, value in found)))
        elif isinstance(current, Tally):
            for labels, value in found:
                current[labels[label]] += int(value)
    total.active = int(_one(samples, "rein_proxy_active_streams"))
    total.held_peak = int(_one(samples, "rein_proxy_chars_held_peak"))
    data = total.to_json(int(_one(samples, "rein_proxy_chars_held")))
    data["workers"] = int(_one(samples, "rein_proxy_workers"))
    first = _buckets(samples, "rein_proxy_first_token_added_seconds")
    piece = _buckets(samples, "rein_proxy_held_piece_seconds")
    data["added_latency_ms"] = {
        "first_token_p50": quantile_ms(first, 0.5),
        "first_token_p99": quantile_ms(first, 0.99),
        "held_piece_p50": quantile_ms(piece, 0.5),
        "held_piece_p99": quantile_ms(piece, 0.99),
    }
    return data


def _named(field: str) -> tuple[str, str, str]:
    return _COUNTED.get(field, (f"rein_proxy_{field}", f"`{field}` of /rein/status.", "key"))


def _one(samples: dict[str, list[tuple[dict[str, str], float]]], name: str) -> float:
    return sum(value for _, value in samples.get(name, []))


def _buckets(samples: dict[str, list[tuple[dict[str, str], float]]], name: str) -> list[tuple[float, float]]:
    """(upper bound, cumulative count) of a histogram, in order."""
    found: dict[float, float] = {}
    for labels, value in samples.get(f"{name}_bucket", []):
        bound = float(labels["le"])
        found[bound] = found.get(bound, 0.0) + value
    return sorted(found.items())


def quantile_ms(buckets: Sequence[tuple[float, float]], q: float) -> float | None:
    """The `q` quantile in ms, interpolated in its bucket as Prometheus's `histogram_quantile` does."""
    if not buckets or buckets[-1][1] <= 0:
        return None
    rank = q * buckets[-1][1]
    lower, below = 0.0, 0.0
    for bound, count in buckets:
        if count >= rank:
            if bound == float("inf"):
                return round(lower * 1000, 3)
            inside = count - below
            share = (rank - below) / inside if inside else 1.0
            return round((lower + (bound - lower) * share) * 1000, 3)
        lower, below = bound, count
    return round(lower * 1000, 3)
