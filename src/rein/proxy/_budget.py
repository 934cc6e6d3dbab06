"""Budgets in the proxy: the timebox (`rein.timebox`) per `x-rein-session` and per API key.

Before a checked request is forwarded, `admit` reads the counts of its session and its key (the key
hashed, see `_budget_store`): when one has reached a limit the client gets a 429 in the API's error
shape naming it, and nothing goes upstream; from 80 percent of the worst dimension on, the request
goes upstream with a hidden reminder (a user message worded as the timebox's nudge). After the reply,
`Gate.settle` adds the tokens upstream reported and their price. Both run on the store's own thread,
so the event loop only waits for them; with no budget configured the gate costs nothing.

    gate = await admit(app.budgets, request, codec, reply)   # None: refused, the 429 is sent
    ...; gate.settle()
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import sqlite3
import time
from collections.abc import Callable, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from fractions import Fraction
from typing import TypeVar

from rein.ai import JsonValue
from rein.proxy._budget_config import DIMENSIONS, BudgetConfig, Limits, Scope
from rein.proxy._budget_store import BudgetStore, Ident, Used, Verdict, read_all
from rein.proxy._budget_usage import Meter, MeteredCodec, price_of
from rein.proxy._codec import Api, Codec, Json, as_items
from rein.proxy._reply import ClientReply
from rein.proxy._state import Log, Request
from rein.timebox import CRITICAL_AT, NUDGE_AT, format_limit, format_time, format_tokens

REFUSED = 429
WRAP_UP = (
    "Wrap up now: finish or safely pause the step you are on, start no new work, tell the user what is "
    "done and what is left, and stop."
)
WHOSE: Mapping[Scope, str] = {"session": "this session", "key": "this API key"}
T = TypeVar("T")


def _amount(dimension: str, value: float) -> str:
    match dimension:
        case "tokens":
            return f"{format_tokens(int(value))} tokens"
        case "requests":
            return f"{int(value)} request" + ("" if int(value) == 1 else "s")
        case "spend_usd":
            return f"${value:.2f}"
        case _:
            return format_limit(int(value * 60_000))


def _values(limits: Limits, used: Used, now: float) -> list[tuple[str, float, float]]:
    """(dimension, used, limit) for each limited dimension; requests count the one being admitted."""
    elapsed = 0.0 if used.started is None else (now - used.started) / 60
    current = {
        "tokens": used.tokens,
        "requests": used.requests + 1,
        "spend_usd": used.spend_usd,
        "minutes": elapsed,
    }
    return [
        (name, current[name], limit) for name in DIMENSIONS if (limit := getattr(limits, name)) is not None
    ]


def refusal(scope: Scope, limits: Limits, used: Used, now: float) -> str | None:
    """`session budget of 100000 tokens used: 100213`, for the first dimension spent; None when none is."""
    for name, current, limit in _values(limits, used, now):
        value = current - (name == "requests")  # the one being admitted is not counted yet
        if value < limit:
            continue
        if name == "tokens":
            return f"{scope} budget of {int(limit)} tokens used: {int(value)}"
        if name == "requests":
            return f"{scope} budget of {_amount(name, limit)} used: {int(value)}"
        if name == "spend_usd":
            return f"{scope} budget of ${limit:.2f} used: ${value:.2f}"
        return (
            f"{scope} budget of {format_limit(int(limit * 60_000))} used: {format_time(int(value * 60_000))}"
        )
    return None


def worst(limits: Limits, used: Used, now: float) -> Fraction:
    return max(
        (Fraction(v) / Fraction(limit) for _, v, limit in _values(limits, used, now)), default=Fraction(0)
    )


def reminder(scope: Scope, limits: Limits, used: Used, now: float) -> str:
    """The hidden note, as the timebox's warning block words it."""
    values = _values(limits, used, now)
    critical = worst(limits, used, now) >= CRITICAL_AT
    heading = "CRITICAL BUDGET WARNING" if critical else "IMPORTANT BUDGET WARNING"
    summary = ", ".join(_amount(name, limit) for name, _, limit in values)
    left = "; ".join(
        f"{_amount(name, max(0.0, limit - v))} left of {_amount(name, limit)}" for name, v, limit in values
    )
    return (
        f"{heading}\nThe user gave {WHOSE[scope]} a budget ({summary}) and it is nearly spent: {left} "
        f"(the current request counts as used).\n{WRAP_UP}"
    )


def error_body(api: Api, message: str, kind: str = "rate_limit_error") -> bytes:
    """An error in the API's own shape (on a 429 both SDKs raise `RateLimitError`)."""
    error: dict[str, JsonValue] = {"type": kind, "message": message}
    if api == "messages":
        return json.dumps({"type": "error", "error": error}).encode()
    code = "rein_budget_exceeded" if kind == "rate_limit_error" else "rein_budget_unavailable"
    return json.dumps({"error": {**error, "param": None, "code": code}}).encode()


def with_note(api: Api, body: Json, note: str) -> Json:
    """`body` with `note` as a user message at the end (before a trailing assistant prefill)."""
    key = "input" if api == "responses" else "messages"
    items = as_items(body.get(key))
    message: JsonValue = {
        "role": "user",
        "content": note if api != "messages" else [{"type": "text", "text": note}],
    }
    last = items[-1] if items else None
    at = len(items) - 1 if isinstance(last, dict) and last.get("role") == "assistant" else len(items)
    items.insert(at, message)
    return {**body, key: items}


class Budgets:
    """One process's door to the store: its calls run on one thread that owns the connection (made on
    first use, so a forked worker opens its own)."""

    def __init__(self, config: BudgetConfig, log: Log) -> None:
        self.config = config
        self.log = log
        self._thread: ThreadPoolExecutor | None = None
        self._store: BudgetStore | None = None
        self._unpriced: set[str] = set()
        self.spend_limited = config.session.spend_usd is not None or config.key.spend_usd is not None

    def submit(self, call: Callable[[BudgetStore], T]) -> Future[T]:
        """Queue `call(store)` on the store's thread (calls run in the order they were queued)."""
        if self._thread is None:
            self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="rein-budget")
        return self._thread.submit(self._call, call)

    async def run(self, call: Callable[[BudgetStore], T]) -> T:
        return await asyncio.wrap_future(self.submit(call))

    def _call(self, call: Callable[[BudgetStore], T]) -> T:
        if self._store is None:
            self._store = BudgetStore(self.config.state)
        return call(self._store)

    def use(self) -> list[Used]:
        """Every session's and key's counts in the file (all workers'), for metrics and status. It reads
        the file: call it off the event loop."""
        return read_all(self.config.state)

    def close(self) -> None:
        if self._thread is not None:
            self._thread.submit(self._close_store).result()
            self._thread.shutdown(wait=True)
            self._thread = None

    def _close_store(self) -> None:
        if self._store is not None:
            self._store.close()
            self._store = None

    def failed(self, done: Future[None]) -> None:
        """Log a write that failed (the count is lost; the proxy goes on)."""
        if not done.cancelled() and (error := done.exception()) is not None:
            self.log({"event": "budget-error", "message": f"cannot write {self.config.state}: {error}"})

    def unpriced(self, model: str) -> None:
        """Say once per model that its spend is not counted."""
        if model not in self._unpriced:
            self._unpriced.add(model)
            self.log({"event": "budget-unpriced", "model": model, "message": "no price: spend not counted"})


@dataclass(slots=True, kw_only=True)
class Gate:
    """One admitted request: what to forward (`request`, `codec`), and its usage to settle after."""

    request: Request
    codec: Codec
    budgets: Budgets | None = None
    idents: tuple[Ident, ...] = ()
    meter: Meter | None = None

    def settle(self) -> None:
        """Queue the write of the usage upstream reported: not awaited, so the reply is never held for
        it nor a client leaving able to cancel it; the store's one thread writes in order, so this
        process's next admission reads it."""
        budgets, meter = self.budgets, self.meter
        if budgets is None or meter is None:
            return
        tokens = meter.tokens()
        model = self.request.body.get("model")
        price = price_of(model, budgets.config.prices) if isinstance(model, str) else None
        if price is None and tokens.total and budgets.spend_limited:
            budgets.unpriced(str(model))
        spend = price.cost(tokens) if price is not None else 0.0
        if tokens.total or spend:
            idents = self.idents
            done = budgets.submit(lambda store: store.settle(idents, tokens.total, spend))
            done.add_done_callback(budgets.failed)


def api_key(headers: list[tuple[str, str]]) -> str | None:
    for name, value in headers:
        lower = name.lower()
        if lower == "authorization" and value[:7].lower() == "bearer ":
            return value[7:].strip() or None
        if lower in ("x-api-key", "api-key") and value.strip():
            return value.strip()
    return None


async def admit(budgets: Budgets | None, request: Request, codec: Codec, reply: ClientReply) -> Gate | None:
    """Admit `request` against its session's and key's budgets (see the module docstring)."""
    if budgets is None:
        return Gate(request=request, codec=codec)
    config, key = budgets.config, api_key(request.headers)
    now = time.time()
    idents: list[Ident] = []
    notes: dict[Ident, str] = {}
    refused: list[str] = []

    def decide(used: Mapping[Ident, Used]) -> Verdict:
        for ident, counts in used.items():
            limits = config.limits(ident[0])
            if (message := refusal(ident[0], limits, counts, now)) is not None:
                refused.append(message)
                return Verdict(refused=True)
            if worst(limits, counts, now) >= NUDGE_AT:
                notes[ident] = reminder(ident[0], limits, counts, now)
        return Verdict(refused=False, nudge=frozenset(i for i in notes if not used[i].nudged))

    def run(store: BudgetStore) -> Verdict:
        if config.session.limited and request.session is not None:
            idents.append(("session", request.session))
        if config.key.limited and key is not None:
            idents.append(("key", store.key_id(key)))
        return store.admit(idents, now, decide) if idents else Verdict(refused=False)

    try:
        verdict = await budgets.run(run)
    except sqlite3.Error as error:  # fail closed: a budget that cannot be read is not skipped
        message = f"rein proxy: budgets unavailable ({budgets.config.state}: {error})"
        budgets.log({"event": "budget-error", "message": message})
        await reply.whole(
            503, [(b"content-type", b"application/json")], error_body(request.api, message, "api_error")
        )
        return None
    for ident in verdict.nudge:
        budgets.log({"event": "budget-nudge", "scope": ident[0], "id": _shown(ident), "note": notes[ident]})
    if verdict.refused:
        budgets.log({"event": "budget-refused", "api": request.api, "message": refused[0]})
        headers = [(b"content-type", b"application/json"), (b"x-should-retry", b"false")]
        await reply.whole(REFUSED, headers, error_body(request.api, f"rein proxy: {refused[0]}"))
        return None
    if not idents:
        return Gate(request=request, codec=codec)
    body = request.body
    if notes:
        body = with_note(request.api, body, "\n\n".join(notes.values()))
    hide = False
    if request.api == "chat" and body.get("stream") is True:
        options = body.get("stream_options")
        if not (isinstance(options, dict) and options.get("include_usage") is True):
            body = {
                **body,
                "stream_options": {**(options if isinstance(options, dict) else {}), "include_usage": True},
            }
            hide = True
    if body is not request.body:
        request = dataclasses.replace(request, body=body, raw=json.dumps(body, ensure_ascii=False).encode())
    meter = Meter(request.api)
    return Gate(
        request=request,
        codec=MeteredCodec(codec, meter, hide_usage=hide),
        budgets=budgets,
        idents=tuple(idents),
        meter=meter,
    )


def _shown(ident: Ident) -> str:
    """A session's id; a key's hash, shortened (enough to tell keys apart in a log)."""
    return ident[1] if ident[0] == "session" else ident[1][:12]
