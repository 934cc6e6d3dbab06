"""`POST /api/session/compact`: server-side compaction, authoritative (the fork's endpoint, rein's
summarizer).

The active branch is loaded into an in-memory rein `Session`, `compact_session` runs with the server's
provider and `[compaction]` settings, and the entries it wrote (a keep marker if any, then the
compaction) are appended to the session through the service in pi's dialect. The answer is the fork's:
`success`, `compaction {summary, firstKeptEntryId, tokensBefore, details}`, `compactionEntry`, the
state summary, and `treePatch` when the body's `baseTreeHash` is the tree the compaction started from
(unless `fullResponse`), else the whole `entries` and `messages`. "Nothing to compact" is a 400 before
any response starts; after that the body goes out as SSE (`streamResponse`: `event: result` or
`event: error`) or as JSON preceded by whitespace heartbeats, as the fork does, so proxies keep a
long summary request open.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Mapping, Sequence
from pathlib import Path

from starlette.requests import Request
from starlette.responses import Response, StreamingResponse

from rein.ai import Model, StreamOptions, get_provider
from rein.server._config import ServerConfig
from rein.server._errors import ProtocolError, error_response, invalid, missing
from rein.server._view import SessionView
from rein.server._wire import wire_entries
from rein.session import CompactionEntry, Session
from rein.session._codec import encode_entry
from rein.session._pi import PI_KEYS
from rein.session.compaction import (
    Budget,
    CompactionSettings,
    NothingToCompact,
    SummaryError,
    compact_session,
    model_window,
    provider_summarize,
)
from rein.settings import load_settings

HEARTBEAT_SECONDS = 15.0
DEFAULT_WINDOW = 128_000


async def compact_endpoint(request: Request, owner: str, body: dict[str, object]) -> Response:
    service = request.app.state.service
    session_id = body.get("sessionId")
    if not isinstance(session_id, str) or not session_id:
        return error_response(missing("sessionId"))
    instructions = body.get("customInstructions")
    if instructions is not None and not isinstance(instructions, str):
        return error_response(invalid("customInstructions", "must be a string"))
    view: SessionView | None = await service.get(owner, session_id)
    if view is None:
        return error_response(ProtocolError(404, "SESSION_NOT_FOUND", f"session {session_id!r} not found"))
    started = asyncio.Event()
    work = asyncio.ensure_future(_compact(request, owner, view, body, instructions, started))
    waiting = asyncio.ensure_future(started.wait())
    await asyncio.wait({work, waiting}, return_when=asyncio.FIRST_COMPLETED)
    waiting.cancel()
    if work.done() and work.exception() is not None:
        error = work.exception()
        if isinstance(error, NothingToCompact):
            return error_response(ProtocolError(400, "INVALID_REQUEST", "Nothing to compact"))
    if body.get("streamResponse") is True:
        return StreamingResponse(
            _sse(work), media_type="text/event-stream", headers={"Cache-Control": "no-cache"}
        )
    return StreamingResponse(
        _json(work), media_type="application/json", headers={"Cache-Control": "no-cache"}
    )


async def _compact(
    request: Request,
    owner: str,
    view: SessionView,
    body: Mapping[str, object],
    instructions: str | None,
    started: asyncio.Event,
) -> dict[str, object]:
    config: ServerConfig = request.app.state.config
    service = request.app.state.service
    session = _session(view.branch(), config.cwd)
    known = {str(raw.get("id")) for raw in view.branch()}
    model = Model(provider=config.provider, id=config.model or config.provider, base_url=config.base_url)
    summarize = provider_summarize(
        get_provider(config.provider), model, StreamOptions(api_key=config.api_key)
    )

    async def announced(system: str, prompt: str, max_tokens: int) -> str:
        started.set()
        return await summarize(system, prompt, max_tokens)

    settings = CompactionSettings.from_mapping(
        load_settings(Path(config.cwd), Path(config.home), warn=lambda _m: None).get("compaction", {})
    )
    window = _window(body.get("model")) or model_window(model) or DEFAULT_WINDOW
    result = await compact_session(
        session, announced, Budget.of(window, settings), reason="manual", instructions=instructions
    )
    written = [e for e in session.tree.active_path() if e.id not in known]
    base_hash, base_count = view.row.tree_hash, view.row.entry_count
    encoded = [encode_entry(entry, PI_KEYS) for entry in written]
    for entry in encoded:
        await service.append_entry(owner, view.row.session_id, entry)
    after: SessionView = await service.get(owner, view.row.session_id)
    compaction = next(e for e in written if isinstance(e, CompactionEntry))
    compaction_json = next(e for e in encoded if e.get("type") == "compaction")
    answer: dict[str, object] = {
        "success": True,
        "compaction": {
            "summary": result.summary,
            "firstKeptEntryId": compaction.first_kept_entry_id,
            "tokensBefore": result.tokens_before,
            "details": compaction.details,
        },
        "compactionEntry": compaction_json,
        **after.summary(),
        "staticContext": after.static_context,
    }
    if body.get("fullResponse") is not True and body.get("baseTreeHash") == base_hash:
        answer["treePatch"] = {
            "baseTreeHash": base_hash,
            "entriesFrom": base_count,
            "entries": list(after.entries[base_count:]),
            "leafId": after.row.leaf_id,
            "revision": after.row.revision,
        }
    else:
        answer["entries"] = list(after.entries)
        answer["messages"] = after.messages()
    return answer


def _session(branch: Sequence[Mapping[str, object]], cwd: str) -> Session:
    """The branch as an in-memory rein session, so the summarizer reads it as a local compaction
    does. Entries that do not decode or do not join the tree are left out."""
    session = Session.in_memory(cwd)
    for entry in wire_entries(branch):
        try:
            session.append(entry)
        except ValueError:
            continue
    return session


def _window(model: object) -> int | None:
    window = model.get("contextWindow") if isinstance(model, dict) else None
    return window if isinstance(window, int) and not isinstance(window, bool) and window > 0 else None


async def _outcome(work: asyncio.Future[dict[str, object]]) -> tuple[bool, dict[str, object]]:
    try:
        return True, await work
    except NothingToCompact:
        return False, {"error": "Nothing to compact", "code": "INVALID_REQUEST"}
    except (SummaryError, Exception) as error:
        return False, {"error": f"compaction failed: {error}", "code": "INTERNAL_ERROR"}


async def _sse(work: asyncio.Future[dict[str, object]]) -> AsyncIterator[str]:
    yield ": keep-alive\n\n"
    while not work.done():
        await asyncio.wait({work}, timeout=HEARTBEAT_SECONDS)
        if not work.done():
            yield ": keep-alive\n\n"
    ok, body = await _outcome(work)
    yield f"event: {'result' if ok else 'error'}\ndata: {json.dumps(body)}\n\n"


async def _json(work: asyncio.Future[dict[str, object]]) -> AsyncIterator[str]:
    yield " \n"
    while not work.done():
        await asyncio.wait({work}, timeout=HEARTBEAT_SECONDS)
        if not work.done():
            yield " \n"
    _ok, body = await _outcome(work)
    yield json.dumps(body)
