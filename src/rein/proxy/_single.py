"""One non-streamed request through the proxy: nothing reaches the client before the whole reply was
checked, so a hit simply means asking again with the rule injected; the client gets the first reply
that passes, its usage summed with the rejected ones'. Past `max_retries` it gets an error (HTTP 422,
in the API's error shape), never the violating reply."""

from __future__ import annotations

import json

import httpx2

from rein.ai import JsonValue
from rein.proxy._codec import Api, Codec, Json
from rein.proxy._reply import ClientReply
from rein.proxy._state import Request, Shared
from rein.proxy._steer import Blocked
from rein.proxy._steer_exchange import record_refusal, steer_whole
from rein.proxy._upstream import response_headers
from rein.ttsr import RuleMatch, TtsrManager

VIOLATION = 422


def error_body(api: Api, message: str) -> bytes:
    error: dict[str, JsonValue] = {"type": "rein_rule_violation", "message": message}
    body: JsonValue = {"type": "error", "error": error} if api == "messages" else {"error": error}
    return json.dumps(body).encode()


async def single_exchange(
    shared: Shared, request: Request, codec: Codec, reply: ClientReply, first: httpx2.Response | None = None
) -> str:
    """Answer `request`; returns the outcome for the log. `first`: upstream's answer to the first attempt,
    already read (a streamed request answered whole)."""
    manager = shared.manager(shared.sessions.state(request.session))
    injected: list[str] = []
    try:
        return await _attempts(shared, request, codec, reply, manager, injected, first)
    finally:
        shared.sessions.finish(request.session, injected)


async def _attempts(
    shared: Shared,
    request: Request,
    codec: Codec,
    reply: ClientReply,
    manager: TtsrManager,
    injected: list[str],
    first: httpx2.Response | None,
) -> str:
    earlier: list[Json] = []
    injections: list[str] = []
    content = request.raw
    fired: list[RuleMatch] = []
    blocked: Blocked | None = None
    for attempt in range(shared.config.max_retries + 1):
        try:
            if first is None:
                upstream = await shared.client.post(request.url, headers=request.headers, content=content)
            else:
                upstream, first = first, None
        except httpx2.HTTPError as error:
            shared.status.upstream_errors += 1
            message = json.dumps({"error": {"type": "upstream_error", "message": repr(error)}}).encode()
            await reply.whole(502, [(b"content-type", b"application/json")], message)
            return "upstream unreachable"
        headers = response_headers(upstream.headers.items(), decoded=True)
        try:
            data = upstream.json() if upstream.status_code < 400 else None
        except ValueError:
            data = None
        if upstream.status_code < 400 and not isinstance(data, dict):
            # fail closed: a success the proxy cannot read is not passed on unchecked
            shared.status.upstream_errors += 1
            refusal = f"upstream answered {upstream.status_code} with a body that is not a JSON object"
            await reply.whole(502, [(b"content-type", b"application/json")], error_body(request.api, refusal))
            return "refused: unreadable upstream answer"
        if not isinstance(data, dict):
            await reply.whole(upstream.status_code, headers, upstream.content)
            return f"upstream {upstream.status_code}"
        manager.reset()
        fired = [
            match
            for context, text in codec.contents(data)
            for match in manager.check_delta(text, context, final=True)
            if match.interrupt
        ]
        for match in fired:
            shared.fired(request.api, match, attempt=attempt, late=False, action="retry")
        blocked = None if fired else await steer_whole(shared, request, codec, data)
        if blocked is not None and shared.steering.mode == "error":
            record_refusal(shared, request.api, blocked, attempt=attempt, action="error")
            refusal = blocked.message()
            await reply.whole(
                VIOLATION, [(b"content-type", b"application/json")], error_body(request.api, refusal)
            )
            return f"refused: steering {blocked.rule}"
        if blocked is not None:
            record_refusal(shared, request.api, blocked, attempt=attempt, action="retry")
        if not fired and blocked is None:
            body = upstream.content if not earlier else json.dumps(codec.summed(data, earlier)).encode()
            headers.append((b"x-rein-retries", str(attempt).encode()))
            await reply.whole(upstream.status_code, headers, body)
            return "completed" if not attempt else f"completed after {attempt} retries"
        injected += [match.name for match in fired]
        earlier.append(data)
        injections.append(manager.render_interrupt(fired) if blocked is None else blocked.injection())
        if attempt < shared.config.max_retries:
            shared.status.retries += 1
            content = json.dumps(codec.retry_body(request.body, "\n\n".join(injections), "")).encode()
    names = ", ".join(sorted({m.name for m in fired}))
    shared.status.ended += 1
    refusal = f"the reply still broke rule(s) {names} after {shared.config.max_retries} retries"
    if blocked is not None:
        refusal = f"{blocked.message()} (after {shared.config.max_retries} retries)"
    await reply.whole(VIOLATION, [(b"content-type", b"application/json")], error_body(request.api, refusal))
    return "refused: retries exhausted"
