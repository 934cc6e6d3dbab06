"""What a reply cost: its tokens as each API reports them, and its price from a table per model.

A `Meter` reads the usage of every attempt of one request: streamed, from the events that carry it
(Chat Completions' usage chunk, the Messages API's `message_start` and `message_delta`, the Responses
API's `response.completed`), and whole, from the reply's `usage`. Within one attempt a later report
replaces an earlier one (the APIs report running totals); attempts add up, cut ones included.
`MeteredCodec` wraps a request's codec so the exchanges need no change: the only per-event cost is a
substring test, and an event is parsed a second time only when it carries `"usage"`.
"""

from __future__ import annotations

import fnmatch
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from rein.ai import JsonValue, Usage
from rein.proxy._codec import Api, Codec, Json, Out, SseEvent
from rein.ttsr import MatchContext


@dataclass(frozen=True, slots=True, kw_only=True)
class Price:
    """USD per million tokens; cache reads and writes cost `input` unless set."""

    input: float
    output: float
    cache_read: float | None = None
    cache_write: float | None = None

    def cost(self, tokens: Usage) -> float:
        read = self.input if self.cache_read is None else self.cache_read
        write = self.input if self.cache_write is None else self.cache_write
        total = tokens.input * self.input + tokens.output * self.output
        return (total + tokens.cache_read * read + tokens.cache_write * write) / 1_000_000


BUILTIN_PRICES: Mapping[str, Price] = {
    "gpt-5": Price(input=1.25, output=10.0, cache_read=0.125),
    "gpt-5.1": Price(input=1.25, output=10.0, cache_read=0.125),
    "gpt-5-mini": Price(input=0.25, output=2.0, cache_read=0.025),
    "gpt-5-nano": Price(input=0.05, output=0.4, cache_read=0.005),
    "gpt-4.1": Price(input=2.0, output=8.0, cache_read=0.5),
    "gpt-4.1-mini": Price(input=0.4, output=1.6, cache_read=0.1),
    "gpt-4.1-nano": Price(input=0.1, output=0.4, cache_read=0.025),
    "gpt-4o": Price(input=2.5, output=10.0, cache_read=1.25),
    "gpt-4o-mini": Price(input=0.15, output=0.6, cache_read=0.075),
    "o3": Price(input=2.0, output=8.0, cache_read=0.5),
    "o3-mini": Price(input=1.1, output=4.4, cache_read=0.55),
    "o4-mini": Price(input=1.1, output=4.4, cache_read=0.275),
    "claude-opus-4": Price(input=15.0, output=75.0, cache_read=1.5, cache_write=18.75),
    "claude-opus-4-5": Price(input=5.0, output=25.0, cache_read=0.5, cache_write=6.25),
    "claude-sonnet-4": Price(input=3.0, output=15.0, cache_read=0.3, cache_write=3.75),
    "claude-haiku-4-5": Price(input=1.0, output=5.0, cache_read=0.1, cache_write=1.25),
    "claude-3-5-haiku": Price(input=0.8, output=4.0, cache_read=0.08, cache_write=1.0),
}
"""List prices (USD per million tokens) of common models as the providers published them in 2025;
`[proxy.prices]` adds to and overrides them."""


def price_of(model: str, prices: Mapping[str, Price]) -> Price | None:
    """The price of `model`: its own entry, else a glob entry (`my-model-*`) that matches, else the
    longest entry it extends with a `-` suffix (`gpt-4.1-mini-2025-04-14` is `gpt-4.1-mini`)."""
    if model in prices:
        return prices[model]
    globbed = [name for name in prices if "*" in name and fnmatch.fnmatchcase(model, name)]
    if globbed:
        return prices[max(globbed, key=len)]
    base = [name for name in prices if model.startswith(name + "-")]
    return prices[max(base, key=len)] if base else None


def _count(value: JsonValue) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def _cached(usage: Json, details: str) -> int:
    found = usage.get(details)
    return _count(found.get("cached_tokens")) if isinstance(found, dict) else 0


def tokens_of(api: Api, usage: Json) -> Usage:
    """One usage report in the API's own fields."""
    if api == "messages":
        return Usage(
            input=_count(usage.get("input_tokens")),
            output=_count(usage.get("output_tokens")),
            cache_read=_count(usage.get("cache_read_input_tokens")),
            cache_write=_count(usage.get("cache_creation_input_tokens")),
        )
    prompt, output = (
        ("prompt_tokens", "completion_tokens") if api == "chat" else ("input_tokens", "output_tokens")
    )
    cached = _cached(usage, f"{prompt}_details")
    return Usage(
        input=max(0, _count(usage.get(prompt)) - cached), output=_count(usage.get(output)), cache_read=cached
    )


def _usage_in(data: Json) -> Json | None:
    """The usage an event or a reply carries: at its top (chat, `message_delta`, a whole reply) or in its
    `message` (`message_start`) or `response` (`response.completed`)."""
    usage = data.get("usage")
    if isinstance(usage, dict):
        return usage
    for key in ("message", "response"):
        inner = data.get(key)
        if isinstance(inner, dict) and isinstance(usage := inner.get("usage"), dict):
            return usage
    return None


class Meter:
    """The usage of one request, attempt by attempt."""

    def __init__(self, api: Api) -> None:
        self.api = api
        self._attempts: list[Json] = []

    def next_attempt(self) -> None:
        self._attempts.append({})

    def report(self, data: Json, *, whole: bool = False) -> bool:
        """Take the usage `data` carries, if any (`whole`: a reply of its own, a new attempt)."""
        usage = _usage_in(data)
        if whole or not self._attempts:
            self.next_attempt()
        if usage is None:
            return False
        self._attempts[-1].update((k, v) for k, v in usage.items() if v is not None)
        return True

    def tokens(self) -> Usage:
        return sum((tokens_of(self.api, usage) for usage in self._attempts), Usage())


class MeteredCodec:
    """A `Codec` that reports usage to a `Meter` on the way. `hide_usage`: the proxy asked a Chat
    Completions upstream for the usage chunk the client did not ask for, so that chunk is dropped."""

    def __init__(self, inner: Codec, meter: Meter, *, hide_usage: bool = False) -> None:
        self.api: Api = inner.api
        self.inner = inner
        self.meter = meter
        self._hide_usage = hide_usage
        self._wholes: list[Json] = []

    def start_attempt(self) -> None:
        self.meter.next_attempt()
        self.inner.start_attempt()

    def feed(self, event: SseEvent) -> list[Out]:
        if '"usage"' in event.data:
            try:
                data = json.loads(event.data)
            except ValueError:
                data = None
            reported = isinstance(data, dict) and self.meter.report(data)
            if reported and self._hide_usage and isinstance(data, dict) and data.get("choices") == []:
                return []
        return self.inner.feed(event)

    def cut(self) -> None:
        self.inner.cut()

    def closing(self, error: str | None = None) -> bytes:
        return self.inner.closing(error)

    def retry_body(self, body: Json, injection: str, shown: str) -> Json:
        return self.inner.retry_body(body, injection, shown)

    def contents(self, response: Json) -> Sequence[tuple[MatchContext, str]]:
        if not any(response is seen for seen in self._wholes):  # each check of one reply counts it once
            self._wholes.append(response)
            self.meter.report(response, whole=True)
        return self.inner.contents(response)

    def summed(self, response: Json, earlier: Sequence[Json]) -> Json:
        return self.inner.summed(response, earlier)
