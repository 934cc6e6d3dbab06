"""The handlers of the session routes: each validates its body as its shape (`_shapes`), calls the service,
and answers the fork's body. POST handlers share one signature, `(request, owner, body)`, so a
chunked request completes into the same handler as a plain one.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response

from rein.server import _validate as check
from rein.server._errors import ProtocolError
from rein.server._json_response import JsonResponse
from rein.server._service import SessionService
from rein.server._shapes import Init, Messages, Switch, Tree, Update
from rein.server._validate import Body, validated
from rein.server._view import SessionView


def _service(request: Request) -> SessionService:
    service: SessionService = request.app.state.service
    return service


async def _summary(request: Request, owner: str, sid: str) -> JsonResponse:
    view = await _service(request).get(owner, sid)
    if view is None:  # deleted between the write and this read
        raise ProtocolError(404, "SESSION_NOT_FOUND", "session not found")
    return JsonResponse(view.summary())


async def session_init(request: Request, owner: str, body: Body) -> Response:
    """rein's clients also send `cwd`, the session's directory (kept as metadata: no revision)."""
    init = validated(Init, body)
    await _service(request).init(owner, init.session_id, init.static_context)
    if init.cwd:
        await _service(request).set_cwd(owner, init.session_id, init.cwd)
    return await _summary(request, owner, init.session_id)


async def session_update(request: Request, owner: str, body: Body) -> Response:
    update = validated(Update, body)
    await _service(request).init(owner, update.session_id, update.static_context)
    return await _summary(request, owner, update.session_id)


async def session_sync(request: Request, owner: str, body: Body) -> Response:
    sent = validated(Messages, body)
    view = await _service(request).replace_messages(
        owner, sent.session_id, sent.messages, sent.static_context
    )
    return JsonResponse(view.summary())


async def session_append(request: Request, owner: str, body: Body) -> Response:
    sent = validated(Messages, body)
    view = await _service(request).append_messages(owner, sent.session_id, sent.messages, sent.static_context)
    return JsonResponse(view.summary())


async def tree_sync(request: Request, owner: str, body: Body) -> Response:
    tree = validated(Tree, body)
    view = await _service(request).replace_tree(
        owner, tree.session_id, tree.entries, tree.leaf_id, tree.static_context
    )
    return JsonResponse(view.summary())


async def tree_append(request: Request, owner: str, body: Body) -> Response:
    tree = validated(Tree, body)
    view = await _service(request).append(
        owner, tree.session_id, tree.entries, tree.leaf_id, tree.static_context
    )
    return JsonResponse(view.summary())


async def tree_switch(request: Request, owner: str, body: Body) -> Response:
    switch = validated(Switch, body)
    return JsonResponse((await _service(request).switch(owner, switch.session_id, switch.leaf_id)).summary())


async def compact(request: Request, owner: str, body: Body) -> Response:
    from rein.server._compact import compact_endpoint  # lazy: the summarizer loads only when used

    return await compact_endpoint(request, owner, body)


async def stream(request: Request, owner: str, body: Body) -> Response:
    from rein.server._stream import stream_endpoint  # lazy: the providers load only when used

    return await stream_endpoint(request, owner, body)


async def run(request: Request, owner: str) -> Response:
    from rein.server._stream import run_endpoint

    sid = check.session_id(request.path_params["session_id"])
    return await run_endpoint(request, owner, sid, str(request.path_params["run_id"]))


async def sessions(request: Request, owner: str) -> Response:
    return JsonResponse({"sessions": [view.listing() for view in await _service(request).sessions(owner)]})


async def delete(request: Request, owner: str) -> Response:
    sid = check.session_id(request.path_params["session_id"])
    await _service(request).delete(owner, sid)
    return JsonResponse({"deleted": sid})


async def history(request: Request, owner: str) -> Response:
    """The session's full state, or only the entries after `entriesFrom` (a `treePatch`) when the
    caller's prefix still matches: `entriesFrom` within the tree, `revision` not ahead of the
    server's, and `baseTreeHash` (if given) the hash of the first `entriesFrom` entries."""
    sid = check.session_id(request.path_params["session_id"])
    params = request.query_params
    start = check.query_int(params, "from") or 0
    entries_from = check.query_int(params, "entriesFrom")
    revision = check.query_int(params, "revision")
    base = params.get("baseTreeHash")
    view = await _service(request).get(owner, sid)
    if view is None:
        raise ProtocolError(404, "SESSION_NOT_FOUND", "session not found")
    body = history_body(view, start)
    if (
        entries_from is not None
        and entries_from <= view.row.entry_count
        and (revision is None or revision <= view.row.revision)
        and (base is None or base == view.prefix_hash(entries_from))
    ):
        patch: dict[str, object] = {"entriesFrom": entries_from}
        if revision is not None:
            patch["baseRevision"] = revision
        patch.update(
            entries=list(view.entries[entries_from:]), leafId=view.row.leaf_id, revision=view.row.revision
        )
        body["treePatch"] = patch
    else:
        body["entries"] = list(view.entries)
    return JsonResponse(body)


def history_body(view: SessionView, start: int) -> dict[str, object]:
    body: dict[str, object] = {"sessionId": view.row.session_id}
    if view.static_context is not None:
        body["staticContext"] = view.static_context
    messages = view.messages()
    return {
        **body,
        **view.summary(),
        "messageCount": len(messages),
        "baseMessageCount": start,
        "messages": messages[start:],
    }
