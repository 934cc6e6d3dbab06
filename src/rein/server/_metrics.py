"""The server's Prometheus metrics (`GET /metrics`): one registry per app, so two apps in one process
(the tests) never share counters.

    metrics = Metrics()                     # app.state.metrics
    metrics.fenced_retries.inc()
    metrics.render()                        # the text exposition format

Names follow Prometheus's conventions: `_total` for counters, `_seconds`/`_bytes` units.
"""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.exposition import CONTENT_TYPE_LATEST

CONTENT_TYPE = CONTENT_TYPE_LATEST


class Metrics:
    """Every metric the server keeps."""

    def __init__(self) -> None:
        self.registry = registry = CollectorRegistry(auto_describe=True)
        self.requests = Counter(
            "rein_http_requests", "HTTP requests answered.", ["method", "route", "status"], registry=registry
        )
        self.latency = Histogram(
            "rein_http_request_seconds",
            "Time to the response's start (a stream's first byte), by route.",
            ["route"],
            registry=registry,
            buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0),
        )
        self.runs_active = Gauge("rein_runs_active", "Runs this process is running now.", registry=registry)
        self.runs = Counter("rein_runs", "Runs ended, by outcome.", ["outcome"], registry=registry)
        self.run_leases = Gauge("rein_run_leases_held", "Run leases this process holds.", registry=registry)
        self.runs_interrupted = Counter(
            "rein_runs_interrupted",
            "Runs of dead processes this process marked interrupted.",
            registry=registry,
        )
        self.fenced_retries = Counter(
            "rein_fenced_retries", "Commits retried after another writer got there first.", registry=registry
        )
        self.fenced_refusals = Counter(
            "rein_fenced_refusals", "Writes answered 409 after the retry deadline.", registry=registry
        )
        self.pending_chunk_bytes = Gauge(
            "rein_pending_chunk_bytes",
            "Bytes of chunked uploads not yet complete (all users).",
            registry=registry,
        )
        self.events = Counter("rein_run_events", "Run events published.", registry=registry)

    def render(self) -> bytes:
        return generate_latest(self.registry)
