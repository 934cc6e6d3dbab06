"""The proxy as a plain ASGI app: three API paths checked, `/rein/status`, everything else passed through.

A checked path is a POST to `.../chat/completions`, `.../responses` or `.../messages` with a JSON
object body; anything else (other paths and methods, a body that is not JSON, `x-rein-rules: off`) is
forwarded unchanged, both ways, streamed. A client that goes away cancels its exchange, which closes the
upstream connection at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Awaitable, Callable, MutableMapping
from typing import cast

import httpx2

from rein.ai import JsonValue
from rein.proxy._budget import Budgets, admit
from rein.proxy._chat import ChatCodec
from rein.proxy._codec import Api, Codec, Json
from rein.proxy._config import ProxyConfig
from rein.proxy._exchange import StreamExchange
from rein.proxy._messages import MessagesCodec
from rein.proxy._metrics import CONTENT_TYPE
from rein.proxy._reply import ClientReply, Message, Send
from rein.proxy._responses import ResponsesCodec
from rein.proxy._single import single_exchange
from rein.proxy._state import Log, Request, Shared, new_client, stderr_log
from rein.proxy._status import Seen
from rein.proxy._upstream import request_headers, response_headers, upstream_url

Scope = MutableMapping[str, object]
Receive = Callable[[], Awaitable[Message]]

CODECS: dict[Api, Callable[[Json], Codec]] = {
    "chat": ChatCodec,
    "responses": ResponsesCodec,
    "messages": MessagesCodec,
}
SUFFIXES: tuple[tuple[str, Api], ...] = (
    ("/chat/completions", "chat"),
    ("/responses", "responses"),
    ("/messages", "messages"),
)
STATUS_PATH = "/rein/status"
METRICS_PATH = "/metrics"


def api_of(method: str, path: str) -> Api | None:
    if method != "POST":
        return None
    return next((api for suffix, api in SUFFIXES if path.rstrip("/").endswith(suffix)), None)


class ProxyApp:
    """`ProxyApp(config)` is the ASGI callable; its upstream client opens and closes with the lifespan
    (or with the first request, for a server run without one)."""

    def __init__(self, config: ProxyConfig, *, log: Log = stderr_log) -> None:
        self.config = config
        self._log = log
        self._shared: Shared | None = None
        self.budgets = None if config.budget is None else Budgets(config.budget, log)
        """Budget use for metrics: `self.budgets.use()` (None: no budget configured)."""

    @property
    def shared(self) -> Shared:
        if self._shared is None:
            self._shared = Shared(self.config, new_client(self.config, self._log), self._log)
        return self._shared

    async def aclose(self) -> None:
        if self._shared is not None:
            await self._shared.client.aclose()
            self._shared = None
        if self.budgets is not None:
            self.budgets.close()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        if scope["type"] != "http":
            return
        method, path = str(scope["method"]), str(scope["path"])
        if method == "GET" and path in (STATUS_PATH, METRICS_PATH):
            await self._report(path, send)
            return
        body = await _read_body(receive)
        if body is None:
            return
        seen, shared = Seen(), self.shared  # kept: a shutdown may close the app before this ends
        task = asyncio.ensure_future(self._handle(scope, body, send, seen))
        watcher = asyncio.ensure_future(_disconnected(receive))
        try:
            await asyncio.wait((task, watcher), return_when=asyncio.FIRST_COMPLETED)
        finally:  # also when cancelled (a shutdown past its timeout): the exchange ends with the request
            left = not task.done()
            task.cancel()
            watcher.cancel()
            if left and not seen.ended():  # the openai SDK leaves right after `[DONE]`: no abort
                shared.status.client_aborts += 1
            shared.metrics.answered(seen)
            with contextlib.suppress(asyncio.CancelledError):
                await task
            await asyncio.gather(watcher, return_exceptions=True)

    async def _report(self, path: str, send: Send) -> None:
        """`/rein/status` (JSON) or `/metrics` (Prometheus), this process's counters published first."""
        self._publish()
        shared = self.shared
        if path == METRICS_PATH:
            if self.budgets is not None:  # the file every worker writes, read off the event loop
                shared.metrics.budget_use(await asyncio.to_thread(self.budgets.use))
            data, kind = shared.metrics.render(), CONTENT_TYPE.encode()
        else:
            held = sum(relay.held() for relay in shared.active)
            data, kind = json.dumps(shared.metrics.status(shared.status, held)).encode(), b"application/json"
        await ClientReply(send, []).whole(200, [(b"content-type", kind)], data)

    def _publish(self) -> None:
        shared = self.shared
        shared.metrics.publish(shared.status, sum(relay.held() for relay in shared.active))

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        ticker: asyncio.Future[None] | None = None  # workers: publish this one's counters each second
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                metrics = self.shared.metrics
                ticker = asyncio.ensure_future(metrics.every(self._publish)) if metrics.folder else None
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                if ticker is not None:
                    ticker.cancel()
                self._publish()  # the last counts, for the workers still running
                self.shared.metrics.close()
                await self.aclose()
                await send({"type": "lifespan.shutdown.complete"})
                return

    async def _handle(self, scope: Scope, body: bytes, send: Send, seen: Seen) -> None:
        shared = self.shared
        method, path = str(scope["method"]), str(scope["path"])
        query = cast(bytes, scope.get("query_string", b"")).decode("latin-1")
        headers = cast(list[tuple[bytes, bytes]], scope["headers"])
        api = api_of(method, path)
        parsed = _json_object(body) if api is not None else None
        off = any(k.lower() == b"x-rein-rules" and v.strip().lower() == b"off" for k, v in headers)
        url = upstream_url(self.config.upstream, path, query)
        if api is None or parsed is None or off:
            seen.api = "bypassed" if off and api else "passthrough"
            shared.status.requests[seen.api] += 1
            await _passthrough(
                shared.client, method, url, request_headers(headers, decoded=False), body, send, seen
            )
            return
        seen.api = api
        shared.status.requests[api] += 1
        session = next((v.decode("latin-1") for k, v in headers if k.lower() == b"x-rein-session"), None)
        cwd = next((v.decode("utf-8", "replace") for k, v in headers if k.lower() == b"x-rein-cwd"), None)
        checked = request_headers(headers, decoded=True)
        request = Request(api=api, url=url, headers=checked, body=parsed, raw=body, session=session, cwd=cwd)
        reply = seen.reply = ClientReply(send, shared.headers())
        codec = CODECS[api](parsed)
        gate = await admit(self.budgets, request, codec, reply)  # None: a budget is spent, 429 sent
        if gate is None:
            return
        request, codec = gate.request, gate.codec
        seen.reply, seen.codec = reply, codec
        try:
            if parsed.get("stream") is not True:
                outcome = await single_exchange(shared, request, codec, reply)
                shared.log({"event": "request", "api": api, "stream": False, "outcome": outcome})
                return
            await self._stream(shared, StreamExchange(shared, request, codec, reply))
        finally:
            gate.settle()  # queue the write of the tokens upstream reported, and their price

    async def _stream(self, shared: Shared, exchange: StreamExchange) -> None:
        status = shared.status
        status.streams += 1
        status.active += 1
        relay = exchange.relay
        shared.active.add(relay)
        try:
            await exchange.run()
        finally:
            shared.sessions.finish(exchange.request.session, exchange.injected)
            status.active -= 1
            shared.active.discard(relay)
            status.held_peak = max(status.held_peak, relay.held_peak)
            status.piece_delay.extend(relay.delays)
            if relay.first_content_at is not None and relay.first_release_at is not None:
                status.first_token_added.append(relay.first_release_at - relay.first_content_at)
            for match in relay.reminders:
                status.reminders[match.name] += 1
            shared.metrics.stream_ended(relay)
            shared.log({
                "event": "request", "api": exchange.request.api, "stream": True,
                "attempts": exchange.attempt + 1, "outcome": exchange.outcome,
            })  # fmt: skip


async def _read_body(receive: Receive) -> bytes | None:
    parts: list[bytes] = []
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return None
        parts.append(cast(bytes, message.get("body", b"")))
        if not message.get("more_body", False):
            return b"".join(parts)


async def _disconnected(receive: Receive) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass


def _json_object(body: bytes) -> Json | None:
    try:
        parsed: JsonValue = json.loads(body)
    except ValueError:
        return None
    return parsed if isinstance(parsed, dict) else None


async def _passthrough(
    client: httpx2.AsyncClient,
    method: str,
    url: str,
    headers: list[tuple[str, str]],
    body: bytes,
    send: Send,
    seen: Seen,
) -> None:
    request = client.build_request(method, url, headers=headers, content=body)
    try:
        upstream = await client.send(request, stream=True)
    except httpx2.HTTPError as error:
        data = json.dumps({"error": {"type": "upstream_error", "message": repr(error)}}).encode()
        seen.reply = ClientReply(send, [])
        await seen.reply.whole(502, [(b"content-type", b"application/json")], data)
        return
    try:
        reply = seen.reply = ClientReply(send, [])
        reply.prepare(upstream.status_code, response_headers(upstream.headers.items(), decoded=False))
        async for chunk in upstream.aiter_raw():
            await reply.body(chunk)
        await reply.end()
    finally:
        await upstream.aclose()
