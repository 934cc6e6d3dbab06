"""One streamed request through the proxy: attempts upstream, hold-back, cut and retry.

Each attempt's events go through the codec into the relay; what the relay releases goes to the client.
When a rule fires in held text, the upstream stream is closed at once, the held text dropped, and the
request sent again with the rule as a hidden user message (after the prose the client already has, as
an assistant message, so the model continues it). When a rule fires on text already released, the late
policy decides. Past `max_retries`, or on `end-stream`, the reply ends where it was cut, validly.

A tool call steering refuses (`rein.proxy._steer`) is handled as a rule firing in held text: cut, its
reason injected, asked again; or, in `error` mode, the reply ended with the reason as the format's error.
"""

from __future__ import annotations

import asyncio
import json

import httpx2

from rein.ai import JsonValue
from rein.proxy._codec import Codec, Json
from rein.proxy._relay import Fired, Relay
from rein.proxy._reply import ClientReply
from rein.proxy._single import single_exchange
from rein.proxy._sse import SseParser
from rein.proxy._state import Request, Shared
from rein.proxy._steer import Blocked
from rein.proxy._steer_exchange import record_refusal
from rein.proxy._upstream import response_headers


class StreamExchange:
    def __init__(self, shared: Shared, request: Request, codec: Codec, reply: ClientReply) -> None:
        self.shared = shared
        self.request = request
        self.codec = codec
        self.reply = reply
        state = shared.sessions.state(request.session)
        self.steering = shared.steering if shared.steering.mode != "off" else None
        self.relay = Relay(lambda: shared.manager(state), shared.windows, calls=self.steering is not None)
        self.injections: list[str] = []
        self.injected: list[str] = []
        """The rules injected, in order (recorded for the session when the request ends)."""
        self.attempt = 0
        self.outcome = "completed"
        self.error: str | None = None
        """Ends the client's stream as the format's error (steering's `error` mode)."""

    async def run(self) -> None:
        content = self.request.raw
        while True:
            self.codec.start_attempt()
            upstream = await self._open(content)
            if upstream is None:
                return
            try:
                fired = await self._relay(upstream)
            finally:
                await upstream.aclose()
            if fired == []:
                await self.reply.end()
                return
            next_body = self._after(fired) if isinstance(fired, list) else self._refused(fired)
            if next_body is None:
                await self.reply.end(self.codec.closing(self.error))
                return
            content = json.dumps(next_body, ensure_ascii=False).encode()
            self.attempt += 1

    async def _open(self, content: bytes) -> httpx2.Response | None:
        client = self.shared.client
        request = client.build_request(
            "POST", self.request.url, headers=self.request.headers, content=content
        )
        try:
            upstream = await client.send(request, stream=True)
        except httpx2.HTTPError as error:
            await self._failed(502, f"upstream unreachable: {error!r}")
            return None
        kind = upstream.headers.get("content-type", "")
        if upstream.status_code < 400 and kind.startswith("text/event-stream"):
            self.reply.prepare(upstream.status_code, response_headers(upstream.headers.items(), decoded=True))
            return upstream
        body = await upstream.aread()
        await upstream.aclose()
        if upstream.status_code < 400 and not self.reply.started:
            # a whole reply to a streamed request: checked whole, as a non-streamed one is
            self.outcome = await single_exchange(self.shared, self.request, self.codec, self.reply, upstream)
            return None
        if upstream.status_code < 400:
            await self._failed(
                502, f"upstream answered a retry with {kind or 'no content type'}, not a stream"
            )
            return None
        if not self.reply.started:
            self.outcome = f"upstream {upstream.status_code}"
            headers = response_headers(upstream.headers.items(), decoded=True)
            await self.reply.whole(upstream.status_code, headers, body)
            return None
        await self._failed(upstream.status_code, body.decode("utf-8", "replace")[:500])
        return None

    async def _failed(self, status: int, message: str) -> None:
        self.shared.status.upstream_errors += 1
        self.outcome = f"upstream error {status}"
        self.shared.log({"event": "upstream-error", "api": self.request.api, "status": status,
                         "attempt": self.attempt, "message": message})  # fmt: skip
        if not self.reply.started:
            error: JsonValue = {"error": {"type": "upstream_error", "message": message}}
            data = json.dumps(error).encode()
            await self.reply.whole(status, [(b"content-type", b"application/json")], data)
            return
        await self.reply.end(self.codec.closing(f"rein proxy: {message}"))

    async def _relay(self, upstream: httpx2.Response) -> list[Fired] | Blocked:
        """Relay one upstream stream; the matches or the refused tool call that stopped it, or [] when
        it ended."""
        relay, parser = self.relay, SseParser()
        async for chunk in upstream.aiter_bytes():
            # every event of a network chunk is checked before the chunk's release: one write, not one each
            for event in parser.feed(chunk):
                fired = self._acted_on(relay.push(self.codec.feed(event)))
                if fired:
                    return fired
                if relay.calls and (blocked := await self._steered()) is not None:
                    return blocked
            await self.reply.body(relay.release())
        for event in parser.close():
            fired = self._acted_on(relay.push(self.codec.feed(event)))
            if fired:
                return fired
        fired = self._acted_on(relay.finish())
        if fired:
            return fired
        if relay.calls and (blocked := await self._steered()) is not None:
            return blocked
        await self.reply.body(relay.release())
        return []

    async def _steered(self) -> Blocked | None:
        """Check the tool calls completed since the last check; the first steering refuses, if any."""
        assert self.steering is not None
        calls = [(c.context.tool_name or "", c.arguments, c.context.json_arguments, c.lane)
                 for c in self.relay.take_calls()]  # fmt: skip
        request = self.request
        return await asyncio.to_thread(self.steering.check, calls, cwd=request.cwd, session=request.session)

    def _refused(self, blocked: Blocked) -> Json | None:
        """A tool call steering refused: the next attempt's body, or None when the reply ends here."""
        mode = self.shared.steering.mode
        give_up = mode == "error" or self.attempt >= self.shared.config.max_retries
        action = "error" if mode == "error" else ("end-stream" if give_up else "retry")
        record_refusal(self.shared, self.request.api, blocked, attempt=self.attempt, action=action)
        shown = self.relay.shown()
        self.relay.cut()
        self.codec.cut()
        if give_up:
            self.shared.status.ended += 1
            self.outcome = f"ended: steering {blocked.rule}"
            self.error = blocked.message() if mode == "error" else None
            return None
        self.shared.status.retries += 1
        self.injections.append(self.shared.injection(blocked.injection(), shown=bool(shown), late=False))
        return self.codec.retry_body(self.request.body, "\n\n".join(self.injections), shown)

    def _acted_on(self, fired: list[Fired]) -> list[Fired]:
        """Drop late matches the `pass` policy lets through (logged)."""
        if self.shared.config.late_policy != "pass":
            return fired
        kept: list[Fired] = []
        for item in fired:
            if self.relay.late(item):
                self._record(item, late=True, action="pass")
            else:
                kept.append(item)
        return kept

    def _after(self, fired: list[Fired]) -> Json | None:
        """Decide on a cut: the next attempt's body, or None when the reply ended here."""
        late = any(self.relay.late(item) for item in fired)
        policy = self.shared.config.late_policy
        give_up = self.attempt >= self.shared.config.max_retries or (late and policy == "end-stream")
        action = "end-stream" if give_up else ("append-correction" if late else "retry")
        for item in fired:
            self._record(item, late=self.relay.late(item), action=action)
        shown = self.relay.shown()
        rendered = self.relay.manager().render_interrupt(item.match for item in fired)
        self.relay.cut()
        self.codec.cut()
        self.injected += [item.match.name for item in fired]
        if give_up:
            self.shared.status.ended += 1
            self.outcome = "ended: retries exhausted" if not late else "ended: late match"
            return None
        self.shared.status.retries += 1
        self.injections.append(self.shared.injection(rendered, shown=bool(shown), late=late))
        return self.codec.retry_body(self.request.body, "\n\n".join(self.injections), shown)

    def _record(self, item: Fired, *, late: bool, action: str) -> None:
        self.shared.fired(self.request.api, item.match, attempt=self.attempt, late=late, action=action)
