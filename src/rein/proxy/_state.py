"""What every exchange of one running proxy shares: config, the upstream connection pool, the windows,
the counters and the log."""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import httpx2

from rein.ai import JsonValue
from rein.proxy._codec import Api, Json
from rein.proxy._config import ProxyConfig
from rein.proxy._metrics import ProxyMetrics
from rein.proxy._pool import transport
from rein.proxy._relay import Relay
from rein.proxy._routes import RouteTable
from rein.proxy._routes_client import RoutedClient
from rein.proxy._sessions import Sessions
from rein.proxy._status import Status
from rein.proxy._steer import StreamSteering
from rein.ttsr import HoldWindow, RuleMatch, Source, TtsrManager, TtsrState, hold_windows

Log = Callable[[dict[str, JsonValue]], None]

CORRECTION = (
    "The user already saw the start of your reply, including the part that breaks this rule: continue "
    "from exactly where it stopped, and begin by correcting that part."
)
CONTINUE = "The user already saw the start of your reply: continue from exactly where it stopped."


@dataclass(frozen=True, slots=True, kw_only=True)
class Request:
    """A client request the proxy checks: its API, JSON body (and raw bytes, sent as is first)."""

    api: Api
    url: str
    headers: list[tuple[str, str]]
    body: Json
    raw: bytes
    session: str | None = None
    """`x-rein-session`: the client's session, for the repeat policy across requests."""
    cwd: str | None = None
    """`x-rein-cwd`: the client's working directory, where steering finds its rules."""


def stderr_log(record: dict[str, JsonValue]) -> None:
    """One JSON object per line on stderr."""
    print(json.dumps({"at": round(time.time(), 3), **record}), file=sys.stderr, flush=True)


@dataclass(slots=True)
class Shared:
    config: ProxyConfig
    client: httpx2.AsyncClient
    log: Log = stderr_log
    status: Status = field(default_factory=Status)
    sessions: Sessions = field(default_factory=Sessions)
    active: set[Relay] = field(default_factory=set)
    """The relays of the exchanges streaming now (for `chars_held.now`)."""
    metrics: ProxyMetrics = field(default_factory=ProxyMetrics)
    """`GET /metrics`; add yours with `metrics.counter(...)` (see `rein.proxy._metrics`)."""
    windows: Mapping[Source, HoldWindow] = field(init=False)
    steering: StreamSteering = field(init=False)

    def __post_init__(self) -> None:
        self.windows = hold_windows(self.manager().plan, self.config.max_hold)
        self.steering = StreamSteering.of(self.config.steering, self.config.root, self.config.home)
        if isinstance(self.client, RoutedClient):  # its fallbacks are counted where the others are
            self.client.fallbacks = self.status.route_fallbacks

    def manager(self, state: TtsrState | None = None) -> TtsrManager:
        """A fresh rules manager for one request (or one lane of it), restored from its session's
        injection records (see `Sessions`)."""
        config = self.config
        manager = TtsrManager(config.rules, config.settings, root=config.root, eager=True)
        if state is not None:
            manager.restore(state)
        return manager

    def injection(self, rendered: str, *, shown: bool, late: bool) -> str:
        """The hidden message of a retry: the rule, and what to do about what the client already has."""
        if late:
            return f"{rendered}\n\n{CORRECTION}"
        return f"{rendered}\n\n{CONTINUE}" if shown else rendered

    def fired(self, api: str, match: RuleMatch, *, attempt: int, late: bool, action: str) -> None:
        """Count and log one firing."""
        self.status.firings[match.name] += 1
        if late:
            self.status.late[match.name] += 1
        self.log({
            "event": "fired", "api": api, "rule": match.name, "source": match.source, "tool": match.tool_name,
            "attempt": attempt, "late": late, "action": action, "excerpt": match.excerpt,
        })  # fmt: skip

    def headers(self) -> list[tuple[bytes, bytes]]:
        """Sent with every reply the proxy checked: the window and the late policy in force."""
        text = self.windows.get("text", HoldWindow())
        return [
            (b"x-rein-hold-chars", str(max(text.span, text.line)).encode()),
            (b"x-rein-late-policy", self.config.late_policy.encode()),
        ]


def new_client(config: ProxyConfig, log: Log = stderr_log) -> httpx2.AsyncClient:
    timeout = httpx2.Timeout(config.read_timeout, connect=config.connect_timeout)
    limits = httpx2.Limits(max_connections=1000, max_keepalive_connections=100)
    if config.routes:  # the upstream is chosen per request, by model (rein.proxy._routes_client)
        table = RouteTable(config.upstream, config.routes)
        return RoutedClient(table, log, timeout=timeout, transport=transport(limits), follow_redirects=False)
    return httpx2.AsyncClient(timeout=timeout, transport=transport(limits), follow_redirects=False)
