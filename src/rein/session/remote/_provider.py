"""`ServerProvider`: rein's `Provider` contract, with the model call made by the server.

Each `stream` call first flushes the session (the server must hold the branch the reply continues),
then `POST /api/stream` with a fresh `runId` and only what the server's branch lacks: the request's
messages after the branch's own go as `ephemeralMessages` (never tree entries); when the branch is not
a prefix of them (an extension rewrote the context), all of them go as `contextOverlay`. No API key is
ever sent: the server holds its own.

The server's proxy events are rebuilt into rein's events by `MessageBuilder`. If the stream drops
after the server accepted the request, the run is recovered by polling `runs/{runId}` (the server
finishes and journals it): the journaled reply is the final event, and the model is not called twice.
Failures end in the one `error` event with the phase in its text, `server (provider_stream): ...`;
only that phase is worth a retry of the model call.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncGenerator, Mapping
from typing import Final
from urllib.parse import quote

import httpx2

from rein.agent import to_llm
from rein.ai import (
    AssistantEvent,
    AssistantStream,
    Context,
    DoneEvent,
    ErrorEvent,
    MessageBuilder,
    Model,
    Reader,
    StreamOptions,
    message_to_json,
    run_stream,
)
from rein.protocol import LOST_CODES
from rein.session._convert import view_messages
from rein.session.remote._errors import RemoteError, ServerError
from rein.session.remote._events import ProxyReader, SseParser, assistant_from_json
from rein.session.remote._remote import RemoteSession
from rein.session.remote._transport import describe_response, read_json

SERVER_MODEL: Final = "server"
"""The model id of a client that lets the server choose: the request then names no model."""


class StreamDropped(Exception):
    """The event stream ended without a final event: recover the run by its id."""


class ServerProvider:
    """Streams replies through the server of `session`. `blocked` collects the tool calls the
    server's steering blocked (tool call id -> reason), for the host's `before_tool_call`."""

    def __init__(self, session: RemoteSession, *, recovery_timeout: float = 60.0, poll: float = 0.25) -> None:
        self.session = session
        self.blocked: dict[str, str] = {}
        self.recovery_timeout = recovery_timeout
        self.poll = poll

    def stream(self, model: Model, context: Context, options: StreamOptions | None = None) -> AssistantStream:
        builder = MessageBuilder(provider=model.provider, model=model.id)
        phase = ["tree_sync"]

        async def body(builder: MessageBuilder, reader: Reader) -> AsyncGenerator[AssistantEvent, None]:
            async for event in self._run(model, context, options or StreamOptions(), builder, reader, phase):
                yield event

        def describe(error: Exception) -> str:
            if isinstance(error, ServerError):
                return str(error)
            if isinstance(error, RemoteError):
                return f"server ({phase[0]}): {error}"
            return f"server ({phase[0]}): {type(error).__name__}: {error}"

        return run_stream(builder, body, options, describe)

    async def _run(
        self,
        model: Model,
        context: Context,
        options: StreamOptions,
        builder: MessageBuilder,
        reader: Reader,
        phase: list[str],
    ) -> AsyncGenerator[AssistantEvent, None]:
        session = self.session
        session.static_context = static_context(context)
        await reader.read(session.flush)
        phase[0] = "provider_stream"
        run_id = str(uuid.uuid4())
        request = self._body(model, context, options, run_id)
        response = await reader.read(
            lambda: session.transport.open("/api/stream", request, phase="provider_stream")
        )
        try:
            if not response.is_success:
                error = await _failure(response)
                if error.code not in LOST_CODES:
                    raise error
                await response.aclose()
                session.tracker.reset()  # the server lost the session: initialize, upload, retry once
                phase[0] = "tree_sync"
                await reader.read(session.flush)
                phase[0] = "provider_stream"
                response = await reader.read(
                    lambda: session.transport.open("/api/stream", request, phase="provider_stream")
                )
                if not response.is_success:
                    raise await _failure(response)
            content_type = response.headers.get("content-type", "")
            if content_type.split(";")[0].strip().lower() != "text/event-stream":
                await response.aread()
                text = describe_response(response, response.text, "expected text/event-stream")
                raise ServerError("provider_stream", text, status=response.status_code)
            proxy = ProxyReader(builder)
            try:
                async for event in self._events(response, proxy, reader):
                    yield event
                    if isinstance(event, DoneEvent | ErrorEvent):
                        return
                raise StreamDropped
            except (httpx2.TransportError, StreamDropped):
                pass
            finally:
                self.blocked.update(proxy.steering)
        finally:
            await response.aclose()
        yield await self._recover(model, run_id, reader)

    async def _events(
        self, response: httpx2.Response, proxy: ProxyReader, reader: Reader
    ) -> AsyncGenerator[AssistantEvent, None]:
        parser = SseParser()
        async for text in reader.each(response.aiter_text()):
            for name, data in parser.feed(text):
                for event in _decode(name, data, proxy):
                    yield event
        for name, data in parser.finish():
            for event in _decode(name, data, proxy):
                yield event

    async def _recover(self, model: Model, run_id: str, reader: Reader) -> AssistantEvent:
        """The stream dropped: wait for the server to finish the run, and return its final event."""
        session = self.session
        path = f"/api/session/{quote(session.id, safe='')}/runs/{quote(run_id, safe='')}"
        deadline = asyncio.get_running_loop().time() + self.recovery_timeout
        while True:
            try:
                run = await reader.read(lambda: session.transport.get_json(path, phase="provider_stream"))
            except ServerError as error:
                if error.status is not None and error.status != 404 and error.status < 500:
                    raise
                if error.status == 404:
                    raise ServerError(
                        "provider_stream", f"the stream dropped and run {run_id} is unknown"
                    ) from None
                run = {"status": "running"}  # the server is restarting: keep asking until the deadline
            status = run.get("status")
            # a provider error is `failed` with the reply kept (rein's server) or without (the fork's)
            if status == "completed" or (status == "failed" and isinstance(run.get("message"), dict)):
                message = assistant_from_json(run.get("message"), provider=model.provider, model=model.id)
                match message.stop_reason:
                    case "error" | "aborted" as failed:
                        return ErrorEvent(reason=failed, message=message)
                    case "stop" | "length" | "tool_use" as ended:
                        return DoneEvent(reason=ended, message=message)
            if status == "failed":
                raise ServerError("provider_stream", f"run {run_id} failed: {run.get('errorMessage')}")
            if status != "running":  # `interrupted`: its server died mid-run; the call is made again
                raise ServerError("provider_stream", f"run {run_id} {status}: {run.get('errorMessage')}")
            if asyncio.get_running_loop().time() >= deadline:
                raise ServerError(
                    "provider_stream", f"the stream dropped and run {run_id} did not finish in time"
                )
            await reader.read(lambda: asyncio.sleep(self.poll))

    def _body(self, model: Model, context: Context, options: StreamOptions, run_id: str) -> dict[str, object]:
        session = self.session
        own, _ = view_messages(session.tree.active_path(), session.context())
        branch = [_comparable(message_to_json(m)) for m in to_llm(own)]
        sent = [message_to_json(m) for m in context.messages]
        body: dict[str, object] = {
            "sessionId": session.id,
            "runId": run_id,
            "options": {
                key: value
                for key, value in (
                    ("maxTokens", options.max_tokens),
                    ("temperature", options.temperature),
                    ("reasoning", options.reasoning),
                )
                if value is not None
            },
            "cwd": session.header.cwd,
        }
        if model.id != SERVER_MODEL:
            body["model"] = {"id": model.id, "provider": model.provider}
        if [_comparable(m) for m in sent[: len(branch)]] == branch:
            body["ephemeralMessages"] = sent[len(branch) :]
        else:
            body["contextOverlay"] = sent
        return body


def static_context(context: Context) -> dict[str, object]:
    """The session's static context as the fork sends it: `{systemPrompt, tools}`."""
    out: dict[str, object] = {}
    if context.system_prompt is not None:
        out["systemPrompt"] = context.system_prompt
    out["tools"] = [
        {"name": tool.name, "description": tool.description, "parameters": dict(tool.parameters)}
        for tool in context.tools
    ]
    return out


def _comparable(message: Mapping[str, object]) -> dict[str, object]:
    # Custom messages and summaries become user messages stamped when converted: ignore the stamp.
    return {key: value for key, value in message.items() if key != "timestamp"}


def _decode(name: str, data: str, proxy: ProxyReader) -> list[AssistantEvent]:
    if name == "error":
        raise ServerError("provider_stream", f"the server's stream failed: {data[:200]}")
    return proxy.read(data)


async def _failure(response: httpx2.Response) -> ServerError:
    try:
        await read_json(response, "provider_stream")
    except ServerError as error:
        return error
    return ServerError(
        "provider_stream", f"HTTP {response.status_code} without an event stream", status=response.status_code
    )
