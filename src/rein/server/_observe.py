"""What a load balancer and a scraper see of a process: request metrics and readiness.

`ObserveMiddleware` counts every HTTP request by method, route and status, and times it to the start
of its response (a stream's first byte, not its end: an SSE run lasts minutes). `Readiness` probes the
store for `GET /ready`.

    Middleware(ObserveMiddleware, metrics=app.state.metrics, routes=routes)
    problem = await Readiness().problem(store)       # None: the store answered

The route label is the route's template (`/api/session/{session_id}/history`), never the raw path, so
the number of label values stays bounded whatever clients send: a path no route matches is `other`,
a method outside the HTTP ones is `OTHER`. A request refused before routing (the security middleware)
is still labelled with the route it was aimed at.
"""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import Sequence

from starlette.routing import BaseRoute, Match, Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from rein.server._metrics import Metrics
from rein.server.store import Store, StoreError

METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})
OTHER = "other"
NO_RESPONSE = "none"
"""The status of a request that ended without a response (the client went away first)."""
READY_TIMEOUT = 2.0
"""How long `/ready` waits for the store: a probe must not hang on a database that stopped answering."""


def route_of(scope: Scope, routes: Sequence[BaseRoute]) -> str:
    """The template of the route `scope` was routed to, or matches; `other` for none."""
    route = scope.get("route")
    if route is None:  # not routed (refused earlier, or no route): match as the router would
        route = next((r for r in routes if r.matches(scope)[0] is not Match.NONE), None)
    return route.path if isinstance(route, Route) else OTHER


class ObserveMiddleware:
    """Counts into `metrics.requests` and times into `metrics.latency`; outermost but for Starlette's
    error middleware, so it also sees the requests the security middleware refuses."""

    def __init__(self, app: ASGIApp, *, metrics: Metrics, routes: Sequence[BaseRoute]) -> None:
        self.app, self.metrics, self.routes = app, metrics, routes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        status = NO_RESPONSE

        async def observed(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = str(message["status"])
                elapsed = time.perf_counter() - started
                self.metrics.latency.labels(route_of(scope, self.routes)).observe(elapsed)
            await send(message)

        try:
            await self.app(scope, receive, observed)
        except Exception:
            if status == NO_RESPONSE:
                status = "500"  # Starlette's error middleware, outside this one, answers it
            raise
        finally:
            method = scope.get("method", "")
            self.metrics.requests.labels(
                method if method in METHODS else OTHER.upper(), route_of(scope, self.routes), status
            ).inc()


class Readiness:
    """`/ready`'s store probe: one `ping` at a time, shared by the probes that arrive meanwhile (the
    route needs no token: a flood of it must not take the store's connections), bounded by `timeout`.
    A change of state is one line on stderr, with the store's error; the answer names only its kind."""

    def __init__(self, timeout: float = READY_TIMEOUT) -> None:
        self.timeout = timeout
        self._probe: asyncio.Task[str | None] | None = None
        self._last: str | None = None

    async def problem(self, store: Store) -> str | None:
        """None when the store answered in time, else why not (`ConnectionRefusedError`, ...)."""
        if self._probe is None or self._probe.done():
            self._probe = asyncio.ensure_future(self._ping(store))
        return await asyncio.shield(self._probe)  # a probe whose client left still ends for the others

    async def _ping(self, store: Store) -> str | None:
        problem: str | None = None
        detail = ""
        try:
            await asyncio.wait_for(store.ping(), self.timeout)
        except TimeoutError:
            problem = detail = f"no answer in {self.timeout:g} s"
        except StoreError as error:  # the message names the database: stderr only, not the open route
            problem, detail = type(error.__cause__ or error).__name__, str(error)
        if problem != self._last:
            state = "ready again" if problem is None else f"not ready: the store does not answer: {detail}"
            print(f"rein serve: {state}", file=sys.stderr, flush=True)
        self._last = problem
        return problem
