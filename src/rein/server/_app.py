"""The HTTP app of `rein serve`: Starlette (small, ASGI, no validation framework: the protocol's
bodies are checked by hand in `_validate`, field by field, with the fork's error codes), one route
table that both serves the routes and writes `/openapi.json`.

Every request but `/health` goes through one gate: the bearer token gives the owner, the owner's
rate limit is taken, a POST body is read within the size limit and parsed. A refusal is a
`ProtocolError` answered as `{"error", "code", "details"}` and logged as one line on stderr (never
the body). POST targets are one table, `path -> handler(request, owner, body)`, shared by the routes
and by the chunk endpoint, whose completed requests dispatch into it.
"""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import asynccontextmanager

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from rein.server import _handlers as h
from rein.server._chunks import Assembled, ChunkReceiver
from rein.server._config import ServerConfig, is_loopback
from rein.server._errors import ProtocolError, error_response
from rein.server._limits import RateLimiter, owner_of, read_body
from rein.server._openapi import Operation, document
from rein.server._runs import cancel_runs
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
from rein.session.remote._protocol import CHUNK_ENDPOINT

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
HEALTH = _op("GET", "/health", "Liveness.", answer=ANY, public=True)
OPENAPI = _op("GET", "/openapi.json", "This document.", answer=ANY)
OPERATIONS = (*(op for _, op in POSTS.values()), *(op for _, op in GETS), CHUNK, HEALTH, OPENAPI)


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
            ProtocolError(409, "WRITER_FENCED", f"the session is being written elsewhere, retry: {err}"),
        )
    except StoreError as err:
        return _refuse(request, ProtocolError(500, "INTERNAL_ERROR", f"store failure: {err}"))
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
            return JSONResponse(result)
        handler, _ = POSTS[result.target]
        return await handler(request, owner, parse_body(result.body.encode("utf-8")))

    return await _guarded(request, answer)


async def _health(request: Request) -> Response:
    return JSONResponse({"status": "ok"})


async def _openapi(request: Request) -> Response:
    return await _guarded(request, lambda owner: _document())


async def _document() -> Response:
    return JSONResponse(document(OPERATIONS))


async def _http_error(request: Request, exc: Exception) -> Response:
    status = exc.status_code if isinstance(exc, HTTPException) else 500
    message = "Not found" if status == 404 else "Method not allowed" if status == 405 else "Internal error"
    _log(request, status, "INVALID_REQUEST", message)
    return JSONResponse({"error": message, "code": "INVALID_REQUEST"}, status_code=status)


def create_app(config: ServerConfig, store: Store | None = None) -> Starlette:
    """The app. Without `store`, the lifespan opens `config.db` (SQLite under `config.home` when
    empty) and closes it on shutdown. `app.state` carries `config`, `store`, `service` (the
    SessionService), `chunks`, `limiter`, `engines` (None until the stream handlers make them), and
    the web page's `csrf` token, event `buses` and `web_runs` (`rein.server.web`). Every request
    passes `SecurityMiddleware` first (Host, Origin and CSRF checks)."""

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        opened = store is None
        app.state.store = (
            store
            if store is not None
            else await open_store(config.db or str(default_sqlite_path(config.home)))
        )
        app.state.service = SessionService(app.state.store, config.holder)
        app.state.chunks = ChunkReceiver(app.state.store, config.max_pending_chunk_bytes)
        try:
            yield
        finally:
            await cancel_runs(app)  # a run's journal stays `running` and expires; nothing half-written
            await app.state.web_runs.close()
            if opened:
                await app.state.store.close()

    routes: list[BaseRoute] = [
        Route(op.path, _post(handler), methods=["POST"]) for handler, op in POSTS.values()
    ]
    routes += [Route(op.path, _get(handler), methods=[op.method]) for handler, op in GETS]
    routes += [
        Route(CHUNK.path, _chunk, methods=["POST"]),
        Route(HEALTH.path, _health, methods=["GET"]),
        Route(OPENAPI.path, _openapi, methods=["GET"]),
    ]
    routes += web_routes(_guarded)
    csrf = new_csrf_token()
    security = Middleware(SecurityMiddleware, csrf=csrf, loopback=is_loopback(config.host))
    app = Starlette(
        routes=routes,
        lifespan=lifespan,
        exception_handlers={HTTPException: _http_error},
        middleware=[security],
    )
    app.state.config = config
    app.state.csrf = csrf
    app.state.buses = Buses()
    app.state.web_runs = RunHost(app, app.state.buses)
    app.state.limiter = RateLimiter(config.rate_per_minute)
    app.state.engines = None
    return app
