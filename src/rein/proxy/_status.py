"""The counters `GET /rein/status` shows: requests, firings per rule, retries, held text, added latency."""

from __future__ import annotations

import time
from collections import Counter, deque
from dataclasses import dataclass, field

from rein.ai import JsonValue
from rein.proxy._codec import Codec
from rein.proxy._reply import ClientReply

SAMPLES = 1000
"""Latency samples kept (the latest), for the median and p99 figures."""


def _ms(samples: deque[float], q: float) -> float | None:
    if not samples:
        return None
    ordered = sorted(samples)
    return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000, 3)


@dataclass(slots=True)
class Seen:
    """One request as the proxy counts it when it ends: its API (or `passthrough`, `bypassed`), and the
    reply and codec of a checked one."""

    api: str = "passthrough"
    reply: ClientReply | None = None
    codec: Codec | None = None

    def ended(self) -> bool:
        """Whether the client received its reply's end (so leaving now is no abort): the whole answer,
        or the format's own end of a stream (a codec has nothing left to close once it was sent)."""
        if self.reply is not None and self.reply.finished:
            return True
        return (
            self.codec is not None
            and self.reply is not None
            and self.reply.started
            and not self.codec.closing()
        )

    def status(self) -> str:
        """The HTTP status sent, for the metrics (`none`: the client left before the answer began)."""
        return str(self.reply.status) if self.reply is not None and self.reply.status else "none"


@dataclass(slots=True)
class Status:
    started: float = field(default_factory=time.time)
    requests: Counter[str] = field(default_factory=Counter)
    """Per API (`chat`, `responses`, `messages`), `passthrough` and `bypassed` (`x-rein-rules: off`)."""
    streams: int = 0
    active: int = 0
    retries: int = 0
    firings: Counter[str] = field(default_factory=Counter)
    late: Counter[str] = field(default_factory=Counter)
    """Firings on text the client had already received, per rule."""
    reminders: Counter[str] = field(default_factory=Counter)
    """Matches of rules that do not interrupt (logged only)."""
    ended: int = 0
    """Replies ended early: `end-stream` policy or retries exhausted."""
    upstream_errors: int = 0
    client_aborts: int = 0
    steering_blocks: Counter[str] = field(default_factory=Counter)
    """Tool calls steering refused in a stream, per rule (asks included)."""
    route_fallbacks: Counter[str] = field(default_factory=Counter)
    """Requests sent on to the next route after an upstream failed before answering, per upstream."""
    held_peak: int = 0
    first_token_added: deque[float] = field(default_factory=lambda: deque(maxlen=SAMPLES))
    """Seconds between the first content arriving from upstream and its release to the client."""
    piece_delay: deque[float] = field(default_factory=lambda: deque(maxlen=SAMPLES))

    def to_json(self, held_now: int = 0) -> dict[str, JsonValue]:
        """`held_now`: characters the active exchanges hold at this moment."""
        return {
            "uptime_s": round(time.time() - self.started, 1),
            "requests": dict(self.requests),
            "streams": self.streams,
            "active": self.active,
            "retries": self.retries,
            "firings": dict(self.firings),
            "late_firings": dict(self.late),
            "reminders": dict(self.reminders),
            "ended_early": self.ended,
            "upstream_errors": self.upstream_errors,
            "client_aborts": self.client_aborts,
            "steering_blocks": dict(self.steering_blocks),
            "route_fallbacks": dict(self.route_fallbacks),
            "chars_held": {"now": held_now, "peak": self.held_peak},
            "added_latency_ms": {
                "first_token_p50": _ms(self.first_token_added, 0.5),
                "first_token_p99": _ms(self.first_token_added, 0.99),
                "held_piece_p50": _ms(self.piece_delay, 0.5),
                "held_piece_p99": _ms(self.piece_delay, 0.99),
            },
        }
