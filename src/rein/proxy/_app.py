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
from rein.proxy._chat import ChatCodec
from rein.proxy._codec import Api, Codec, Json
from rein.proxy._config import ProxyConfig
from rein.proxy._exchange import StreamExchange
from rein.proxy._messages import MessagesCodec
from rein.proxy._reply import ClientReply, Message, Send
from rein.proxy._responses import ResponsesCodec
from rein.proxy._single import single_exchange
from rein.proxy._state import Log, Request, Shared, new_client, stderr_log
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

    @property
    def shared(self) -> Shared:
        if self._shared is None:
            self._shared = Shared(self.config, new_client(self.config), self._log)
        return self._shared

    async def aclose(self) -> None:
        if self._shared is not None:
            await self._shared.client.aclose()
            self._shared = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        if scope["type"] != "http":
            return
        method, path = str(scope["method"]), str(scope["path"])
        if method == "GET" and path == STATUS_PATH:
            held = sum(relay.held() for relay in self.shared.active)
            data = json.dumps(self.shared.status.to_json(held)).encode()
            await ClientReply(send, []).whole(200, [(b"content-type", b"application/json")], data)
            return
        body = await _read_body(receive)
        if body is None:
            return
        task = asyncio.ensure_future(self._handle(scope, body, send))
        watcher = asyncio.ensure_future(_disconnected(receive))
        await asyncio.wait((task, watcher), return_when=asyncio.FIRST_COMPLETED)
        if not task.done():
            self.shared.status.client_aborts += 1
            task.cancel()
        watcher.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        await asyncio.gather(watcher, return_exceptions=True)

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                _ = self.shared
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                await self.aclose()
                await send({"type": "lifespan.shutdown.complete"})
                return

    async def _handle(self, scope: Scope, body: bytes, send: Send) -> None:
        shared = self.shared
        method, path = str(scope["method"]), str(scope["path"])
        query = cast(bytes, scope.get("query_string", b"")).decode("latin-1")
        headers = cast(list[tuple[bytes, bytes]], scope["headers"])
        api = api_of(method, path)
        parsed = _json_object(body) if api is not None else None
        off = any(k.lower() == b"x-rein-rules" and v.strip().lower() == b"off" for k, v in headers)
        url = upstream_url(self.config.upstream, path, query)
        if api is None or parsed is None or off:
            shared.status.requests["bypassed" if off and api else "passthrough"] += 1
            await _passthrough(
                shared.client, method, url, request_headers(headers, decoded=False), body, send
            )
            return
        shared.status.requests[api] += 1
        session = next((v.decode("latin-1") for k, v in headers if k.lower() == b"x-rein-session"), None)
        checked = request_headers(headers, decoded=True)
        request = Request(api=api, url=url, headers=checked, body=parsed, raw=body, session=session)
        reply = ClientReply(send, shared.headers())
        codec = CODECS[api](parsed)
        if parsed.get("stream") is not True:
            outcome = await single_exchange(shared, request, codec, reply)
            shared.log({"event": "request", "api": api, "stream": False, "outcome": outcome})
            return
        await self._stream(shared, StreamExchange(shared, request, codec, reply))

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
    client: httpx2.AsyncClient, method: str, url: str, headers: list[tuple[str, str]], body: bytes, send: Send
) -> None:
    request = client.build_request(method, url, headers=headers, content=body)
    try:
        upstream = await client.send(request, stream=True)
    except httpx2.HTTPError as error:
        data = json.dumps({"error": {"type": "upstream_error", "message": repr(error)}}).encode()
        await ClientReply(send, []).whole(502, [(b"content-type", b"application/json")], data)
        return
    try:
        reply = ClientReply(send, [])
        reply.prepare(upstream.status_code, response_headers(upstream.headers.items(), decoded=False))
        async for chunk in upstream.aiter_raw():
            await reply.body(chunk)
        await reply.end()
    finally:
        await upstream.aclose()
