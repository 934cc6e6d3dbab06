"""`ServerTransport`: every HTTP call the client makes, over one `httpx2.AsyncClient`.

A JSON body larger than `max_request_bytes` is sent as chunk envelopes: the body's UTF-8 bytes are
base64'd, the text is cut so each envelope fits the limit, and the envelopes go up with bounded
parallelism. The server acknowledges each chunk (an ack echoes `requestId`, `chunkIndex` and
`totalChunks`); the chunk that completes the body gets the target endpoint's own answer. Callers never
split bodies: they call `post_json` or `open` with the whole body.

Connection failures and 502/503/504 answers are retried with backoff, or after the answer's
`Retry-After` (a few times); a retried chunk is an identical duplicate, which the server acknowledges
again, and a retried completing chunk gets the original answer from the server's tombstone. A 409
`WRITER_FENCED` (other servers kept writing the session until the server's own retries ran out;
nothing was written) is sent again after a jittered pause, or the answer's `Retry-After`, a few times.
Everything else is translated into `ServerError`.
"""

from __future__ import annotations

import asyncio
import base64
import json
import math
import os
import random
import uuid
from collections.abc import Mapping
from typing import Final

import httpx2

from rein.protocol import CHUNK_ENDPOINT, Phase, chunk_checksum
from rein.session.remote._errors import ServerError

TRANSIENT_STATUS: Final = frozenset({502, 503, 504})
FENCED_CODE: Final = "WRITER_FENCED"
MAX_RETRY_AFTER: Final = 30.0
EXCERPT_CHARS: Final = 200


class ServerTransport:
    """HTTP to one server. `token` (default: `REIN_SERVER_TOKEN`) goes as a bearer token.
    `sent_bytes` counts every request body sent (chunks included), for tests and benchmarks.
    `retries` bounds the resends of a connection failure or 502/503/504, `fenced_retries` those of
    a 409 WRITER_FENCED (each pause up to `backoff * 2**n`)."""

    def __init__(
        self,
        url: str,
        *,
        token: str | None = None,
        max_request_bytes: int = 512 * 1024,
        concurrency: int = 4,
        retries: int = 4,
        fenced_retries: int = 5,
        backoff: float = 0.25,
        timeout: float = 120.0,
    ) -> None:
        self.url = url.rstrip("/")
        token = token if token is not None else os.environ.get("REIN_SERVER_TOKEN") or None
        headers = {"content-type": "application/json"}
        if token:
            headers["authorization"] = f"Bearer {token}"
        self.headers = headers
        self.max_request_bytes = max_request_bytes
        self.concurrency = max(1, concurrency)
        self.retries = retries
        self.fenced_retries = fenced_retries
        self.backoff = backoff
        self.sent_bytes = 0
        self.requests = 0
        self._client = httpx2.AsyncClient(
            base_url=self.url, headers=headers, timeout=httpx2.Timeout(timeout, connect=10.0)
        )

    async def aclose(self) -> None:
        await self._client.aclose()

    async def post_json(
        self, endpoint: str, body: object, *, phase: Phase = "tree_sync"
    ) -> dict[str, object]:
        """POST `body` (chunked if large) and return the JSON object answered. Raises `ServerError`."""
        response = await self.open(endpoint, body, phase=phase)
        try:
            return await read_json(response, phase)
        finally:
            await response.aclose()

    async def get_json(self, path: str, *, phase: Phase = "history_reconcile") -> dict[str, object]:
        """GET `path` and return its JSON object. Raises `ServerError` (a 404 too)."""
        response = await self._send("GET", path, None, phase)
        try:
            return await read_json(response, phase)
        finally:
            await response.aclose()

    async def open(self, endpoint: str, body: object, *, phase: Phase) -> httpx2.Response:
        """POST `body` and return the final response unread (a stream's body is read as it arrives);
        the caller closes it. Raises `ServerError` when no answer came."""
        raw = json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        if len(raw) <= self.max_request_bytes:
            return await self._send("POST", endpoint, raw, phase)
        return await self._chunked(endpoint, raw, phase)

    async def _send(self, method: str, path: str, raw: bytes | None, phase: Phase) -> httpx2.Response:
        attempt = fenced = 0
        while True:
            last = attempt == self.retries
            hinted: float | None = None
            try:
                request = self._client.build_request(method, path, content=raw)
                self.requests += 1
                self.sent_bytes += len(raw or b"")
                response = await self._client.send(request, stream=True)
            except httpx2.TransportError as error:
                if last:
                    raise ServerError(phase, f"cannot reach {self.url}{path}: {_describe(error)}") from None
            else:
                if fenced < self.fenced_retries and await _is_fenced(response, phase):
                    await response.aclose()
                    # full jitter: clients refused together do not come back together
                    pause = _retry_after(response) or random.uniform(0, self.backoff * 2**fenced)
                    await asyncio.sleep(pause)
                    fenced += 1
                    continue
                if response.status_code not in TRANSIENT_STATUS or last:
                    return response
                hinted = _retry_after(response)  # a 503 from a server whose database is away says when
                await response.aclose()
            await asyncio.sleep(hinted or self.backoff * 2**attempt)
            attempt += 1

    async def _chunked(self, target: str, raw: bytes, phase: Phase) -> httpx2.Response:
        request_id = str(uuid.uuid4())
        chunks = split(target, request_id, base64.b64encode(raw).decode("ascii"), self.max_request_bytes)
        pending = iter(range(len(chunks)))
        final: list[httpx2.Response] = []

        async def worker() -> None:
            for index in pending:
                if final:
                    return
                envelope = {
                    "requestId": request_id,
                    "target": target,
                    "chunkIndex": index,
                    "totalChunks": len(chunks),
                    "sha256": chunk_checksum(chunks[index]),
                    "chunk": chunks[index],
                }
                body = json.dumps(envelope, separators=(",", ":")).encode("utf-8")
                response = await self._send("POST", CHUNK_ENDPOINT, body, phase)
                if await _is_ack(response, request_id, index, len(chunks)):
                    await response.aclose()
                    continue
                if final:  # another chunk already completed (or failed) the request
                    await response.aclose()
                    return
                final.append(response)
                return

        try:
            async with asyncio.TaskGroup() as group:
                for _ in range(min(self.concurrency, len(chunks))):
                    group.create_task(worker())
        except* ServerError as failed:
            for response in final:
                await response.aclose()
            raise failed.exceptions[0] from None
        if not final:
            raise ServerError(phase, f"{target}: every chunk was acknowledged but none completed the request")
        return final[0]


def split(target: str, request_id: str, encoded: str, limit: int) -> list[str]:
    """`encoded` cut into the fewest pieces whose envelopes each fit `limit` bytes (base64 is ASCII,
    so an envelope's size is its fixed part plus the piece's length)."""
    total_guess = max(1, len(encoded))
    fixed = len(
        json.dumps(
            {
                "requestId": request_id,
                "target": target,
                "chunkIndex": total_guess,
                "totalChunks": total_guess,
                "sha256": "0" * 64,
                "chunk": "",
            },
            separators=(",", ":"),
        )
    )
    room = limit - fixed
    if room < 1:
        raise ValueError(f"a request limit of {limit} bytes is too small for a chunk envelope")
    count = max(1, math.ceil(len(encoded) / room))
    return [encoded[i * room : (i + 1) * room] for i in range(count)]


async def _is_fenced(response: httpx2.Response, phase: Phase) -> bool:
    """A 409 whose body's code is WRITER_FENCED (read here; a caller reading it again gets it whole)."""
    if response.status_code != 409 or "json" not in response.headers.get("content-type", ""):
        return False
    try:
        await response.aread()
    except httpx2.TransportError as error:
        raise ServerError(phase, f"the answer was cut off: {_describe(error)}", status=409) from None
    try:
        body = json.loads(response.content)
    except ValueError:
        return False
    return isinstance(body, dict) and body.get("code") == FENCED_CODE


def _retry_after(response: httpx2.Response) -> float | None:
    """The answer's `Retry-After` in seconds (a number; capped), None when absent or a date."""
    try:
        seconds = float(response.headers.get("retry-after", ""))
    except ValueError:
        return None
    return min(max(seconds, 0.0), MAX_RETRY_AFTER) if math.isfinite(seconds) else None


async def _is_ack(response: httpx2.Response, request_id: str, index: int, total: int) -> bool:
    if not response.is_success or "json" not in response.headers.get("content-type", ""):
        return False
    await response.aread()
    try:
        body = json.loads(response.content)
    except ValueError:
        return False
    return (
        isinstance(body, dict)
        and body.get("received") is True
        and body.get("requestId") == request_id
        and body.get("chunkIndex") == index
        and body.get("totalChunks") == total
    )


async def read_json(response: httpx2.Response, phase: Phase) -> dict[str, object]:
    """The JSON object `response` carries. A failure status, a body that is not a JSON object, or a
    connection lost while reading raises `ServerError` (status, content type and a short excerpt)."""
    try:
        await response.aread()
    except httpx2.TransportError as error:
        raise ServerError(
            phase, f"the answer was cut off: {_describe(error)}", status=response.status_code
        ) from None
    return decode_json(response, phase)


def decode_json(response: httpx2.Response, phase: Phase) -> dict[str, object]:
    """`read_json` of a response already read (a synchronous client's)."""
    text = response.text
    try:
        body = json.loads(text) if text.strip() else None
    except ValueError:
        body = None
    if response.is_success and isinstance(body, dict):
        return body
    said = body.get("error") if isinstance(body, dict) else None
    if isinstance(body, dict) and isinstance(said, str):
        code, details = body.get("code"), body.get("details")
        raise ServerError(
            phase,
            f"HTTP {response.status_code}: {said}",
            status=response.status_code,
            code=code if isinstance(code, str) else None,
            details=details if isinstance(details, Mapping) else None,
        )
    raise ServerError(phase, describe_response(response, text, "expected JSON"), status=response.status_code)


def describe_response(response: httpx2.Response, text: str, expected: str) -> str:
    """`HTTP 200; content-type: text/html; expected JSON; body: <excerpt>` for an answer we cannot use."""
    content_type = response.headers.get("content-type", "none")
    return f"HTTP {response.status_code}; content-type: {content_type}; {expected}; body: {excerpt(text)}"


def excerpt(text: str) -> str:
    trimmed = " ".join(text.split())
    if not trimmed:
        return "<empty>"
    return trimmed if len(trimmed) <= EXCERPT_CHARS else trimmed[: EXCERPT_CHARS - 3] + "..."


def _describe(error: Exception) -> str:
    text = str(error)
    return f"{type(error).__name__}: {text}" if text else type(error).__name__
