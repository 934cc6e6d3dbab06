"""The HTTP app of `rein serve`: Starlette (small, ASGI; the protocol's bodies are pydantic models,
`_shapes`, checked by `_validate` with the fork's error codes), one route table that both serves the
routes and writes `/openapi.json`.

Every request but `/health` goes through one gate: the bearer token gives the owner, the owner's
rate limit is taken, a POST body is read within the size limit and parsed. A refusal is a
`ProtocolError` answered as `{"error", "code", "details"}` and logged as one line on stderr (never
the body). POST targets are one table, `path -> handler(request, owner, body)`, shared by the routes
and by the chunk endpoint, whose completed requests dispatch into it.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import asynccontextmanager

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from rein.protocol import CHUNK_ENDPOINT
from rein.server import _handlers as h
from rein.server._chunks import Assembled, ChunkReceiver
from rein.server._config import ServerConfig, is_loopback
from rein.server._errors import ProtocolError, error_response, store_failure
from rein.server._json_response import JsonResponse
from rein.server._leases import RunLeases
from rein.server._limits import RateLimiter, owner_of, read_body
from rein.server._maintenance import Maintenance, announce
from rein.server._metrics import CONTENT_TYPE, Metrics
from rein.server._observe import ObserveMiddleware, Readiness
from rein.server._openapi import Operation, document, ref
from rein.server._receive import receive
from rein.server._run_journal import cancel_runs
from rein.server._service import SessionService
from rein.server._validate import Body, parse_body
from rein.server.store import (
    RevisionConflict,
    Store,
    StoreError,
    WriterFenced,
    default_sqlite_path,
    open_store,
)
from rein.server.web import Buses, RunHost, SecurityMiddleware, new_csrf_token, web_routes

PostHandler = Callable[[Request, str, Body], Awaitable[Response]]
GetHandler = Callable[[Request, str], Awaitable[Response]]
ANY: dict[str, object] = {"type": "object"}


def _op(method: str, path: str, summary: str, body: str | None = None, **more: object) -> Operation:
    return Operation(method=method, path=path, summary=summary, body=body, **more)  # type: ignore[arg-type]


SESSION = "/api/session"
POSTS: Mapping[str, tuple[PostHandler, Operation]] = {
    op.path: (handler, op)
    for handler, op in (
        (
            h.session_init,
            _op("POST", f"{SESSION}/init", "Create a session if missing; set its context.", "Init"),
        ),
        (h.session_update, _op("POST", f"{SESSION}/update", "Set a session's static context.", "Update")),
        (
            h.session_sync,
            _op("POST", f"{SESSION}/sync", "Legacy: the tree becomes these messages.", "Messages"),
        ),
        (
            h.session_append,
            _op("POST", f"{SESSION}/append", "Legacy: append messages at the leaf.", "Messages"),
        ),
        (h.tree_sync, _op("POST", f"{SESSION}/tree/sync", "Replace the whole tree.", "Tree")),
        (h.tree_append, _op("POST", f"{SESSION}/tree/append", "Append new entries (idempotent).", "Tree")),
        (h.tree_switch, _op("POST", f"{SESSION}/tree/switch", "Move the leaf to a known entry.", "Switch")),
        (
            h.compact,
            _op("POST", f"{SESSION}/compact", "Compact the branch here.", "Compact", answer=ANY, stream=True),
        ),
        (h.stream, _op("POST", "/api/stream", "Run one model turn; SSE.", "Stream", answer=ANY, stream=True)),
        (
            receive,
            _op("POST", "/api/receive", "Save a file or folder (`send`).", "Receive", answer=ref("Received")),
        ),
    )
}
"""Every POST target, also the targets a chunked request may complete into."""

HISTORY_QUERY = ("from", "entriesFrom", "revision", "baseTreeHash")
GETS: tuple[tuple[GetHandler, Operation], ...] = (
    (h.sessions, _op("GET", "/api/sessions", "The caller's sessions.", answer=ANY)),
    (
        h.history,
        _op("GET", f"{SESSION}/{{session_id}}/history", "Tree or delta.", answer=ANY, query=HISTORY_QUERY),
    ),
    (h.run, _op("GET", f"{SESSION}/{{session_id}}/runs/{{run_id}}", "A stream run's record.", answer=ANY)),
    (h.delete, _op("DELETE", f"{SESSION}/{{session_id}}", "Delete a session.", answer=ANY)),
)

CHUNK = _op("POST", CHUNK_ENDPOINT, "A piece of a large request.", "Chunk", answer=ANY, stream=True)
HEALTH = _op("GET", "/health", "Liveness: the process answers (no store access).", answer=ANY, public=True)
READY = _op("GET", "/ready", "Readiness: 503 while draining or the store is away.", answer=ANY, public=True)
METRICS = _op("GET", "/metrics", "Prometheus metrics.", answer={"type": "string"}, media="text/plain")
OPENAPI = _op("GET", "/openapi.json", "This document.", answer=ANY)
OPERATIONAL = (HEALTH, READY, METRICS, OPENAPI)
OPERATIONS = (*(op for _, op in POSTS.values()), *(op for _, op in GETS), CHUNK, *OPERATIONAL)


def _log(request: Request, status: int, code: str, message: str) -> None:
    print(
        f"rein serve: {request.method} {request.url.path} -> {status} {code}: {message}",
        file=sys.stderr,
        flush=True,
    )


def _refuse(request: Request, err: ProtocolError) -> Response:
    _log(request, err.status, err.code, err.message)
    retry = err.details.get("retryAfter") if err.details else None
    return error_response(err, {"Retry-After": str(retry)} if retry is not None else None)


async def _guarded(request: Request, answer: Callable[[str], Awaitable[Response]]) -> Response:
    """Authenticate, rate-limit, run `answer(owner)`; translate every failure into an error body."""
    try:
        owner = owner_of(request.app.state.config, request.headers)
        request.app.state.limiter.check(owner)
        return await answer(owner)
    except ProtocolError as err:
        return _refuse(request, err)
    except (RevisionConflict, WriterFenced) as err:
        return _refuse(
            request,
            ProtocolError(
                409,
                "WRITER_FENCED",
                f"the session is being written elsewhere, retry: {err}",
                {"retryAfter": 1},
            ),
        )
    except StoreError as err:  # 503 + Retry-After: the database is away, the client retries
        return _refuse(request, store_failure(err))
    except Exception as err:  # the edge: a bug answers 500 and a line on stderr, not a dropped connection
        return _refuse(request, ProtocolError(500, "INTERNAL_ERROR", f"{type(err).__name__}: {err}"))


async def _body(request: Request) -> Body:
    return parse_body(await read_body(request, request.app.state.config.max_request_bytes))


def _post(handler: PostHandler) -> Callable[[Request], Awaitable[Response]]:
    async def endpoint(request: Request) -> Response:
        async def answer(owner: str) -> Response:
            return await handler(request, owner, await _body(request))

        return await _guarded(request, answer)

    return endpoint


def _get(handler: GetHandler) -> Callable[[Request], Awaitable[Response]]:
    async def endpoint(request: Request) -> Response:
        return await _guarded(request, lambda owner: handler(request, owner))

    return endpoint


async def _chunk(request: Request) -> Response:
    async def answer(owner: str) -> Response:
        receiver: ChunkReceiver = request.app.state.chunks
        result = await receiver.receive(owner, await _body(request))
        if not isinstance(result, Assembled):
            return JsonResponse(result)
        handler, _ = POSTS[result.target]
        return await handler(request, owner, parse_body(result.body.encode("utf-8")))

    return await _guarded(request, answer)


async def _health(request: Request) -> Response:
    return JsonResponse({"status": "ok"})


async def _ready(request: Request) -> Response:
    """For a load balancer: stop sending here while draining (SIGTERM) or while the store is away."""
    if request.app.state.draining:
        return JsonResponse({"status": "draining"}, status_code=503)
    readiness: Readiness = request.app.state.readiness
    problem = await readiness.problem(request.app.state.store)
    if problem is not None:
        return JsonResponse({"status": f"store unavailable: {problem}"}, status_code=503)
    return JsonResponse({"status": "ready"})


async def _metrics(request: Request) -> Response:
    metrics: Metrics = request.app.state.metrics
    return await _guarded(request, lambda owner: _text(metrics.render()))


async def _text(body: bytes) -> Response:
    return Response(body, media_type=CONTENT_TYPE)


async def _openapi(request: Request) -> Response:
    return await _guarded(request, lambda owner: _document())


async def _document() -> Response:
    return JsonResponse(document(OPERATIONS))


async def _http_error(request: Request, exc: Exception) -> Response:
    status = exc.status_code if isinstance(exc, HTTPException) else 500
    message = "Not found" if status == 404 else "Method not allowed" if status == 405 else "Internal error"
    _log(request, status, "INVALID_REQUEST", message)
    return JsonResponse({"error": message, "code": "INVALID_REQUEST"}, status_code=status)


def create_app(config: ServerConfig, store: Store | None = None) -> Starlette:
    """The app. Without `store`, the lifespan opens `config.db` (SQLite under `config.home` when
    empty) and closes it on shutdown. `app.state` carries `config`, `store`, `service` (the
    SessionService), `chunks`, `limiter`, `engines` (None until the stream handlers make them), and
    the web page's `csrf` token, event `buses` and `web_runs` (`rein.server.web`), `metrics`
    (`/metrics`), `readiness` and `draining` (`/ready`). Every request is counted and timed
    (`ObserveMiddleware`), then passes `SecurityMiddleware` (Host, Origin and CSRF checks)."""

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        opened = store is None
        app.state.store = (
            store
            if store is not None
            else await open_store(config.db or str(default_sqlite_path(config.home)))
        )
        app.state.service = SessionService(app.state.store, config.holder, metrics=app.state.metrics)
        app.state.chunks = ChunkReceiver(
            app.state.store,
            config.max_pending_chunk_bytes,
            config.max_pending_chunk_bytes_per_user,
            app.state.metrics,
        )
        app.state.csrf = await app.state.store.secret("csrf", new_csrf_token())
        app.state.leases = RunLeases(
            app.state.store, config.holder, config.run_lease_seconds * 1000, app.state.metrics
        )
        app.state.buses.start(app.state.store, app.state.metrics)
        maintenance = Maintenance(app)
        await maintenance.step()  # listening before the first request; lapsed runs swept at start
        housekeeping = asyncio.ensure_future(maintenance.run())
        try:
            yield
        finally:
            housekeeping.cancel()
            await asyncio.gather(housekeeping, return_exceptions=True)
            # runs are handed over: `interrupted` now, with their reply so far, and the pages told
            announce(app.state.buses, await cancel_runs(app))
            await app.state.web_runs.close()
            await app.state.buses.stop()
            if opened:
                await app.state.store.close()

    routes: list[BaseRoute] = [
        Route(op.path, _post(handler), methods=["POST"]) for handler, op in POSTS.values()
    ]
    routes += [Route(op.path, _get(handler), methods=[op.method]) for handler, op in GETS]
    routes += [
        Route(CHUNK.path, _chunk, methods=["POST"]),
        Route(HEALTH.path, _health, methods=["GET"]),
        Route(READY.path, _ready, methods=["GET"]),
        Route(METRICS.path, _metrics, methods=["GET"]),
        Route(OPENAPI.path, _openapi, methods=["GET"]),
    ]
    routes += web_routes(_guarded)
    security = Middleware(SecurityMiddleware, loopback=is_loopback(config.host))
    metrics = Metrics()
    observe = Middleware(ObserveMiddleware, metrics=metrics, routes=routes)  # first: sees refusals too
    app = Starlette(
        routes=routes,
        lifespan=lifespan,
        exception_handlers={HTTPException: _http_error},
        middleware=[observe, security],
    )
    app.state.config = config
    app.state.metrics = metrics
    app.state.readiness = Readiness()
    app.state.draining = False  # set by `rein serve` on SIGTERM: `/ready` answers 503 from then on
    app.state.csrf = new_csrf_token()  # until the lifespan reads the store's: the same on every process
    app.state.buses = Buses()
    app.state.web_runs = RunHost(app, app.state.buses)
    app.state.limiter = RateLimiter(config.rate_per_minute)
    app.state.engines = None
    return app
