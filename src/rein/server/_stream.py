"""`POST /api/stream`: one model reply for a session, streamed as the fork's proxy events over SSE.

The body (the fork's, plus rein's fields): `sessionId`; `runId` (optional: journal the run under a
lease, replay a completed one, 409 RUN_IN_PROGRESS for one running on any process, start again one
that was interrupted); `model` and `options` (pi's: the model the client names on the server's
provider, `maxTokens`, `temperature`, `reasoning`; see `_models` for the policy); `staticContext`;
`contextOverlay` (the whole context) or else the branch's messages plus `ephemeralMessages` (never
tree entries); rein's `reinEvents` (stream rules run, and a cut is announced by a `stream_retry`
event) and `cwd` (the client's directory, for steering's rule matching only).

The response is `text/event-stream`: a `: keep-alive` comment first and every 15 s, then
`data: {json}` per event. The reply runs in a background task (`_runs.spawn`), so a client that
disconnects does not stop it: the journal gets the final message and the client recovers it by runId.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import AsyncIterator, Callable, Coroutine, Mapping
from dataclasses import dataclass

from starlette.requests import Request
from starlette.responses import Response, StreamingResponse

from rein.ai import (
    AssistantMessage,
    Context,
    JsonValue,
    Message,
    Model,
    StreamOptions,
    Tool,
    UnknownProviderError,
    get_provider,
)
from rein.server._attempt import run_reply
from rein.server._config import ServerConfig
from rein.server._engines import get_engines
from rein.server._errors import ProtocolError, error_response
from rein.server._models import Label, clamp_to_window, client_label, labelled, resolve_model, stream_options
from rein.server._run_journal import Journal, run_endpoint, spawn
from rein.server._shapes import Stream
from rein.server._surrogates import model_text
from rein.server._timebox import check
from rein.server._validate import validated
from rein.server._view import SessionView
from rein.server._wire import branch_messages, pi_message, replay_events, wire_message
from rein.server.web._relay import mirror

__all__ = ["run_endpoint", "stream_endpoint"]

HEARTBEAT = ": keep-alive\n\n"
HEARTBEAT_SECONDS = 15.0
FIRST_BYTE_SECONDS = 1.0
Emit = Callable[[dict[str, JsonValue] | None], None]


@dataclass(frozen=True, slots=True, kw_only=True)
class StreamRequest:
    owner: str
    session_id: str
    run_id: str | None
    model: Model
    options: StreamOptions
    context: Context
    rein_events: bool
    cwd: str | None
    label: Label | None
    """The client's model: its replies' provider, api and cost (`_models.labelled`)."""


async def stream_endpoint(request: Request, owner: str, body: dict[str, object]) -> Response:
    try:
        prepared = await _prepare(request, owner, body)
    except ProtocolError as error:
        return error_response(error)
    if isinstance(prepared, list):
        return _sse_response(_replayed(prepared))
    label = prepared.label
    journal = Journal(request.app.state.leases, owner, prepared.session_id, prepared.run_id, label)
    if not await journal.start():
        return error_response(
            ProtocolError(409, "RUN_IN_PROGRESS", f"run {prepared.run_id!r} is already in progress")
        )
    queue: asyncio.Queue[dict[str, JsonValue] | None] = asyncio.Queue()
    buses = request.app.state.buses

    def emit(event: dict[str, JsonValue] | None) -> None:
        event = None if event is None else labelled(event, label)
        queue.put_nowait(event)
        mirror(buses, owner, prepared.session_id, event)  # the web page watches the session live

    sent = asyncio.Event()
    spawn(request.app, _run(request, prepared, journal, emit, sent))
    return _sse_response(_events(queue, sent))


async def _prepare(
    request: Request, owner: str, body: dict[str, object]
) -> StreamRequest | list[dict[str, JsonValue]]:
    """The validated request, or the events of the completed run it names (a replay)."""
    config: ServerConfig = request.app.state.config
    service = request.app.state.service
    sent = validated(Stream, body)  # the whole shape first: a refused body creates no session
    session_id, run_id = sent.session_id, sent.run_id
    model = resolve_model(sent.model, config)
    options = stream_options(sent.options, sent.model, config)
    if sent.static_context is not None:
        await service.init(owner, session_id, sent.static_context)
    view: SessionView | None = await service.get(owner, session_id)
    if view is None or view.static_context is None:
        raise ProtocolError(
            400,
            "SESSION_NO_STATIC_CONTEXT",
            "Session has no static context. Initialize with /api/session/init first.",
        )
    if run_id is not None:
        run = await request.app.state.store.run(owner, session_id, run_id)
        if run is not None and run.status == "completed" and run.message is not None:
            stored = json.loads(run.message)
            journaled = wire_message(stored, "run.message")
            if isinstance(journaled, AssistantMessage):
                events = replay_events(journaled)
                if events[-1].get("type") == "done":  # the message as journalled: labelled then
                    events[-1] = {**events[-1], "message": stored, "usage": stored.get("usage")}
                return events
    overlay = _messages(sent.context_overlay, "contextOverlay")
    ephemeral = _messages(sent.ephemeral_messages, "ephemeralMessages")
    branch = branch_messages(view.branch())
    messages = overlay if overlay is not None else [*branch, *(ephemeral or [])]
    now = int(time.time() * 1000)
    warning = check(config.timebox, created_ms=view.row.created_ms, messages=branch, now_ms=now)
    cwd = sent.cwd
    if cwd and cwd != view.row.cwd:  # the web page lists sessions by it, and runs agents there
        await service.set_cwd(owner, session_id, cwd)
    context = _context(view.static_context, messages, warning)
    return StreamRequest(
        owner=owner,
        session_id=session_id,
        run_id=run_id,
        model=model,
        options=clamp_to_window(options, model, context),
        context=context,
        rein_events=sent.rein_events is True,
        label=client_label(sent.model),
        cwd=cwd,
    )


def _messages(value: list[object] | None, field: str) -> list[Message] | None:
    if value is None:
        return None
    return [wire_message(item, f"{field}[{i}]") for i, item in enumerate(value)]


def _context(static: Mapping[str, object], messages: list[Message], warning: str) -> Context:
    """The request's context: the static context's prompt (with the timebox's warning block from 80
    percent of the server's budget, as a local run's system prompt carries it) and tools."""
    prompt = static.get("systemPrompt")
    prompt = model_text(prompt) if isinstance(prompt, str) else None
    if warning:
        prompt = f"{prompt}\n\n{warning}" if isinstance(prompt, str) and prompt else warning
    tools: list[Tool] = []
    raw_tools = static.get("tools")
    for raw in raw_tools if isinstance(raw_tools, list) else []:
        if isinstance(raw, dict) and isinstance(raw.get("name"), str):
            parameters = raw.get("parameters")
            tools.append(
                Tool(
                    name=str(raw["name"]),
                    description=model_text(str(raw.get("description", ""))),
                    parameters=parameters
                    if isinstance(parameters, dict)
                    else {"type": "object", "properties": {}},
                )
            )
    return Context(
        system_prompt=prompt if isinstance(prompt, str) else None,
        messages=tuple(messages),
        tools=tuple(tools),
    )


async def _run(
    request: Request, prepared: StreamRequest, journal: Journal, emit: Emit, sent: asyncio.Event
) -> None:
    """The background run: the reply (with stream-rule retries), its steering verdicts, the journal.
    It starts once the first heartbeat is out (or after a second): loading the engines and the
    provider's SDK the first time holds the event loop, and the client expects a byte within 1 s."""
    app = request.app
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(sent.wait(), FIRST_BYTE_SECONDS)
    try:
        engines = get_engines(app)
        try:
            provider = get_provider(prepared.model.provider)
        except (UnknownProviderError, ImportError) as error:
            message = f"cannot load provider {prepared.model.provider!r}: {error}"
            await journal.fail(message)
            emit(_error_event(message))
            return
        reply = await run_reply(app, prepared, provider, engines, emit, journal.progress)
        await journal.finish(reply, pi_message(reply))
    except asyncio.CancelledError:
        raise
    except Exception as error:  # a store or engine failure: the client and the journal learn it
        message = f"server run failed: {error}"
        await _quietly(journal.fail(message))
        emit(_error_event(message))
    finally:
        emit(None)


async def _quietly(work: Coroutine[object, object, None]) -> None:
    try:
        await work
    except Exception:
        return


def _error_event(message: str) -> dict[str, JsonValue]:
    zero: dict[str, JsonValue] = {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}
    usage: dict[str, JsonValue] = {
        "input": 0,
        "output": 0,
        "cacheRead": 0,
        "cacheWrite": 0,
        "totalTokens": 0,
        "cost": zero,
    }
    return {"type": "error", "reason": "error", "errorMessage": message, "usage": usage}


def _sse_response(events: AsyncIterator[str]) -> StreamingResponse:
    return StreamingResponse(
        events,
        media_type="text/event-stream",
        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
    )


async def _replayed(events: list[dict[str, JsonValue]]) -> AsyncIterator[str]:
    yield HEARTBEAT
    for event in events:
        yield f"data: {json.dumps(event)}\n\n"


async def _events(
    queue: asyncio.Queue[dict[str, JsonValue] | None], sent: asyncio.Event
) -> AsyncIterator[str]:
    yield HEARTBEAT
    sent.set()  # resumed: the server has written the heartbeat
    while True:
        try:
            event = await asyncio.wait_for(queue.get(), HEARTBEAT_SECONDS)
        except TimeoutError:
            yield HEARTBEAT
            continue
        if event is None:
            return
        yield f"data: {json.dumps(event)}\n\n"
