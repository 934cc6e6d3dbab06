"""The page's JSON API under `/web/api` (the contract: /tmp/briefs/web_contract.md, docs/web.md).
Every handler runs behind the app's guard (bearer token -> owner, rate limit, errors as
`{"error", "code"}`); the CSRF and origin checks ran before, in `_security`.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from rein import __version__
from rein.builtins.approval import approve_mode
from rein.checkpoints import CheckpointError
from rein.server._config import ServerConfig
from rein.server._errors import ProtocolError, invalid, missing
from rein.server._json_response import JsonResponse
from rein.server._limits import read_body
from rein.server._plan import leaf_error
from rein.server._service import SessionService
from rein.server._validate import Body, parse_body
from rein.server._view import SessionView
from rein.server.web._bus import sse_response
from rein.server.web._checkpoints import changes, find, repo_for
from rein.server.web._host import RunHost
from rein.server.web._listing import summary
from rein.server.web._relay import Buses
from rein.server.web._render import DEFAULT_LIMIT, branch_note, conversation, counters
from rein.server.web._restore import files_answer
from rein.server.web._rules import rules_body
from rein.server.web._session import ServerSession
from rein.server.web._tree import tree_html
from rein.settings import SettingsFileError, load_settings

Answer = Callable[[str], Awaitable[Response]]
Guard = Callable[[Request, Answer], Awaitable[Response]]
"""The app's `_guarded`: authenticate, rate-limit, run the answer, translate failures."""
Get = Callable[[Request, str], Awaitable[Response]]
Post = Callable[[Request, str, Body], Awaitable[Response]]
API = "/web/api"
SESSION = f"{API}/sessions/{{session_id}}"


def _service(request: Request) -> SessionService:
    service: SessionService = request.app.state.service
    return service


def _host(request: Request) -> RunHost:
    host: RunHost = request.app.state.web_runs
    return host


def _sid(request: Request) -> str:
    return str(request.path_params["session_id"])


async def _view(request: Request, owner: str) -> SessionView:
    view = await _service(request).get(owner, _sid(request))
    if view is None:
        raise ProtocolError(404, "SESSION_NOT_FOUND", f"session {_sid(request)!r} not found")
    return view


def _cwd(request: Request, view: SessionView) -> str:
    config: ServerConfig = request.app.state.config
    return view.row.cwd or str(Path(config.cwd).resolve())


def _int(request: Request, name: str, default: int | None) -> int | None:
    value = request.query_params.get(name)
    if value is None or value == "":
        return default
    if not (value.isascii() and value.isdigit()) or len(value) > 15:  # "²".isdigit() is True
        raise invalid(name, "must be a non-negative integer")
    return int(value)


def _text(body: Body, name: str = "text") -> str:
    value = body.get(name)
    if value is None:
        raise missing(name)
    if not isinstance(value, str) or not value.strip():
        raise invalid(name, "must be a non-empty string")
    return value


def _approve(config: ServerConfig) -> str:
    """The approval mode runs in the server's directory get (`--approve`, else its settings)."""
    try:
        settings = load_settings(Path(config.cwd), config.home, warn=lambda _message: None)
        return approve_mode(settings, config.approve)
    except (SettingsFileError, ValueError):
        return "deny"  # as a run there fails closed


async def info(request: Request, owner: str) -> Response:
    config: ServerConfig = request.app.state.config
    return JsonResponse({
        "version": __version__, "cwd": str(Path(config.cwd).resolve()), "provider": config.provider,
        "model": config.model or config.provider, "approve": _approve(config), "auth": True,
    })  # fmt: skip


async def sessions(request: Request, owner: str) -> Response:
    live = await _host(request).live_sessions(owner)
    views = await _service(request).sessions(owner)
    rows = [summary(view, running=view.row.session_id in live) for view in views]
    return JsonResponse({"sessions": rows})


async def create(request: Request, owner: str, body: Body) -> Response:
    config: ServerConfig = request.app.state.config
    cwd = body.get("cwd")
    if cwd is None or cwd == "":
        cwd = str(Path(config.cwd).resolve())
    if not isinstance(cwd, str) or not Path(cwd).is_dir():
        raise invalid("cwd", "must name an existing directory")
    sid = str(uuid.uuid4())
    service = _service(request)
    await service.init(owner, sid, None)
    await service.set_cwd(owner, sid, str(Path(cwd).resolve()))
    return JsonResponse({"id": sid}, status_code=201)


async def session(request: Request, owner: str) -> Response:
    view = await _view(request, owner)
    branch = view.branch()
    page = conversation(
        branch,
        limit=_int(request, "limit", DEFAULT_LIMIT) or DEFAULT_LIMIT,
        before=_int(request, "before", None),
    )
    host, sid = _host(request), view.row.session_id
    running = host.running(owner, sid) or await host.elsewhere(owner, sid) is not None
    question = await host.question(owner, sid)
    return JsonResponse({
        "id": view.row.session_id, "cwd": view.row.cwd, "leafId": view.row.leaf_id,
        "revision": view.row.revision, "entryCount": view.row.entry_count, "branchLength": len(branch),
        "shownFrom": page.shown_from, "hasEarlier": page.shown_from > 0, "html": page.html,
        "counters": counters(branch), "branch": branch_note(view.entries, branch),
        "run": {"state": "running" if running else "idle", "question": question},
        "eventSeq": await request.app.state.buses.seq(owner, sid),
    })  # fmt: skip


async def tree(request: Request, owner: str) -> Response:
    view = await _view(request, owner)
    return JsonResponse({"leafId": view.row.leaf_id, "html": tree_html(view.entries, view.row.leaf_id)})


async def rules(request: Request, owner: str) -> Response:
    view = await _view(request, owner)
    config: ServerConfig = request.app.state.config
    return JsonResponse(rules_body(_cwd(request, view), config.home, view.entries))


async def events(request: Request, owner: str) -> Response:
    await _view(request, owner)
    buses: Buses = request.app.state.buses
    if buses.closed:
        raise ProtocolError(503, "INTERNAL_ERROR", "the server is stopping")
    # an EventSource that reconnects (to this process or another) says where it was
    resumed = request.headers.get("last-event-id", "")
    after = int(resumed) if resumed.isascii() and resumed.isdigit() and len(resumed) < 16 else None
    if after is None:
        after = _int(request, "after", 0) or 0
    sid = _sid(request)
    return sse_response(buses.of(owner, sid), await buses.attach(owner, sid, after), after)


async def prompt(request: Request, owner: str, body: Body) -> Response:
    await _host(request).prompt(owner, _sid(request), _text(body))
    return JsonResponse({"state": "running"}, status_code=202)


async def steer(request: Request, owner: str, body: Body) -> Response:
    await _host(request).steer(owner, _sid(request), _text(body))
    return JsonResponse({"state": "running"}, status_code=202)


async def follow_up(request: Request, owner: str, body: Body) -> Response:
    await _host(request).follow_up(owner, _sid(request), _text(body))
    return JsonResponse({"state": "running"}, status_code=202)


async def abort(request: Request, owner: str, body: Body) -> Response:
    if await _host(request).abort_any(owner, _sid(request)):
        return JsonResponse({"state": "running"}, status_code=202)
    return JsonResponse({"state": "idle"})


async def answer(request: Request, owner: str, body: Body) -> Response:
    question = body.get("questionId")
    if not isinstance(question, str) or not question:
        raise missing("questionId")
    value = body.get("value")
    if value is not None and not isinstance(value, str):
        raise invalid("value", "must be a string or null")
    await _host(request).answer(owner, _sid(request), question, value)
    return JsonResponse({"answered": question})


async def switch(request: Request, owner: str, body: Body) -> Response:
    entry = body.get("entryId")
    if not isinstance(entry, str) or not entry:
        raise missing("entryId")
    restore = body.get("restoreFiles", False)
    if not isinstance(restore, bool):
        raise invalid("restoreFiles", "must be true or false")
    await _view(request, owner)
    return JsonResponse(await _host(request).switch(owner, _sid(request), entry, restore=restore))


async def files_at(request: Request, owner: str) -> Response:
    """What continuing from an entry with its files would change: the page asks before `switch`."""
    view = await _view(request, owner)
    entry, host, sid = str(request.path_params["entry_id"]), _host(request), view.row.session_id
    if entry not in view.index:
        raise leaf_error(entry)
    if host.running(owner, sid) or await host.elsewhere(owner, sid) is not None:
        raise ProtocolError(409, "RUN_IN_PROGRESS", f"session {sid!r} has a run going: abort it first")
    cwd, config = _cwd(request, view), request.app.state.config
    store = ServerSession(_service(request), owner, view, cwd)
    return JsonResponse(await asyncio.to_thread(files_answer, store, repo_for(config, cwd), entry))


async def checkpoint(request: Request, owner: str) -> Response:
    """A turn's file changes: each file's unified diff from the project's shadow repository."""
    view = await _view(request, owner)
    ident = str(request.path_params["checkpoint_id"])
    found = find(view.entries, ident)
    if found is None:
        raise ProtocolError(404, "INVALID_REQUEST", f"no checkpoint {ident!r} in this session")
    config: ServerConfig = request.app.state.config
    try:
        return JsonResponse(await asyncio.to_thread(changes, repo_for(config, _cwd(request, view)), found))
    except CheckpointError as error:
        raise ProtocolError(500, "INTERNAL_ERROR", f"checkpoint {ident!r}: {error}") from None


async def undo(request: Request, owner: str, body: Body) -> Response:
    ident = body.get("checkpointId")
    if not isinstance(ident, str) or not ident:
        raise missing("checkpointId")
    await _view(request, owner)
    return JsonResponse(await _host(request).undo(owner, _sid(request), ident))


GETS: tuple[tuple[str, Get], ...] = (
    (f"{API}/info", info),
    (f"{API}/sessions", sessions),
    (SESSION, session),
    (f"{SESSION}/tree", tree),
    (f"{SESSION}/rules", rules),
    (f"{SESSION}/events", events),
    (f"{SESSION}/checkpoints/{{checkpoint_id}}", checkpoint),
    (f"{SESSION}/entries/{{entry_id}}/files", files_at),
)
POSTS: tuple[tuple[str, Post], ...] = (
    (f"{API}/sessions", create),
    (f"{SESSION}/prompt", prompt),
    (f"{SESSION}/steer", steer),
    (f"{SESSION}/follow-up", follow_up),
    (f"{SESSION}/abort", abort),
    (f"{SESSION}/answer", answer),
    (f"{SESSION}/switch", switch),
    (f"{SESSION}/undo", undo),
)


def api_routes(guard: Guard) -> list[BaseRoute]:
    def get(handler: Get) -> Callable[[Request], Awaitable[Response]]:
        async def endpoint(request: Request) -> Response:
            return await guard(request, lambda owner: handler(request, owner))

        return endpoint

    def post(handler: Post) -> Callable[[Request], Awaitable[Response]]:
        async def endpoint(request: Request) -> Response:
            async def answer(owner: str) -> Response:
                limit = request.app.state.config.max_request_bytes
                return await handler(request, owner, parse_body(await read_body(request, limit)))

            return await guard(request, answer)

        return endpoint

    routes: list[BaseRoute] = [Route(path, get(handler), methods=["GET"]) for path, handler in GETS]
    routes += [Route(path, post(handler), methods=["POST"]) for path, handler in POSTS]
    return routes
