"""Chunked requests (`POST /api/request/chunk`), the fork's semantics kept in the store so an upload
survives a server restart and works across servers sharing one database.

An envelope `{requestId, target, chunkIndex, totalChunks, sha256, chunk}` carries one piece of the
base64 text of a JSON body bound for `target`. A chunk is acknowledged `{received, requestId,
chunkIndex, totalChunks}`; the one that completes the set gets the target's own answer instead. An
identical duplicate is only acknowledged, a divergent one or a checksum mismatch is a 400. A completed
request keeps a tombstone for 60 s: a retried completing chunk gets the original body dispatched
again (the targets are idempotent), any other retried chunk an ack. Pending requests expire after 5
minutes idle, and the oldest go first when pending bytes exceed the cap.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import time
import weakref
from dataclasses import dataclass

from rein.server._errors import ProtocolError, invalid
from rein.server._validate import SHA256_HEX, Body, integer, string
from rein.server.store import ChunkRow, CompletedRequest, Store
from rein.session.remote._protocol import CHUNK_TARGETS, chunk_checksum

PENDING_TTL_MS = 5 * 60 * 1000
COMPLETED_TTL_MS = 60 * 1000


@dataclass(frozen=True, slots=True)
class Assembled:
    """The whole body of a chunked request, to dispatch to `target`."""

    target: str
    body: str


def _bad(message: str) -> ProtocolError:
    return ProtocolError(400, "INVALID_REQUEST", message)


def envelope(body: Body) -> ChunkRow:
    """The chunk envelope, validated field by field (each error names its field)."""
    request_id = string(body, "requestId")
    if len(request_id) > 200:
        raise invalid("requestId", "must be at most 200 characters")
    target = string(body, "target")
    if target not in CHUNK_TARGETS:
        raise invalid("target", f"is not a chunk target: {target}")
    total = integer(body, "totalChunks")
    if total <= 0:
        raise invalid("totalChunks", "must be a positive integer")
    index = integer(body, "chunkIndex")
    if not 0 <= index < total:
        raise invalid("chunkIndex", "must be an integer within the chunk range")
    chunk = body.get("chunk")
    if not isinstance(chunk, str):
        raise invalid("chunk", "must be a string")
    digest = body.get("sha256")
    if not isinstance(digest, str) or not SHA256_HEX.fullmatch(digest):
        raise invalid("sha256", "must be a 64-character hex string")
    if chunk_checksum(chunk) != digest.lower():
        raise _bad(f"Chunk checksum mismatch: {index}")
    return ChunkRow(
        request_id=request_id,
        target=target,
        chunk_index=index,
        total_chunks=total,
        sha256=digest.lower(),
        chunk=chunk,
    )


def ack(row: ChunkRow) -> dict[str, object]:
    return {
        "received": True,
        "requestId": row.request_id,
        "chunkIndex": row.chunk_index,
        "totalChunks": row.total_chunks,
    }


class ChunkReceiver:
    """Receives envelopes for one server process; the state itself lives in the store."""

    def __init__(self, store: Store, max_pending_bytes: int) -> None:
        self.store = store
        self.max_pending_bytes = max_pending_bytes
        self._locks: weakref.WeakValueDictionary[tuple[str, str], asyncio.Lock] = (
            weakref.WeakValueDictionary()
        )

    async def receive(self, owner: str, body: Body) -> dict[str, object] | Assembled:
        """The ack for `body`'s chunk, or the assembled request when this chunk completes it."""
        row = envelope(body)
        key = (owner, row.request_id)
        lock = self._locks.get(key)
        if lock is None:
            lock = self._locks[key] = asyncio.Lock()
        async with lock:  # two last chunks of one parallel upload must not both assemble it
            return await self._receive(owner, row)

    async def _receive(self, owner: str, row: ChunkRow) -> dict[str, object] | Assembled:
        now = int(time.time() * 1000)
        await self.store.expire_chunks(
            pending_before_ms=now - PENDING_TTL_MS,
            completed_before_ms=now - COMPLETED_TTL_MS,
            max_pending_bytes=self.max_pending_bytes,
        )
        done = await self.store.completed_request(owner, row.request_id)
        if done is not None:
            if done.target != row.target or done.total_chunks != row.total_chunks:
                raise _bad("Chunk metadata does not match the completed request")
            if done.chunks.get(row.chunk_index) != row.sha256:
                raise _bad(f"Duplicate chunk index does not match: {row.chunk_index}")
            return Assembled(done.target, done.body) if row.chunk_index == done.completed_index else ack(row)
        pending = await self.store.chunks(owner, row.request_id)
        if pending and (pending[0].target != row.target or pending[0].total_chunks != row.total_chunks):
            raise _bad("Chunk metadata does not match the pending request")
        existing = next((chunk for chunk in pending if chunk.chunk_index == row.chunk_index), None)
        if existing is None:
            size = len(row.chunk.encode("utf-8"))
            if await self.store.pending_bytes() + size > self.max_pending_bytes:
                raise ProtocolError(413, "REQUEST_TOO_LARGE", "Request chunk pending bytes limit exceeded")
            existing = await self.store.put_chunk(owner, row, now)
            if existing is None:
                pending.append(row)
        if existing is not None:
            if existing.chunk != row.chunk or existing.sha256 != row.sha256:
                raise _bad(f"Duplicate chunk index does not match: {row.chunk_index}")
            return ack(row)
        by_index = {chunk.chunk_index: chunk for chunk in pending}
        if len(by_index) < row.total_chunks:
            return ack(row)
        text = "".join(by_index[i].chunk for i in range(row.total_chunks))
        try:
            body = base64.b64decode(text, validate=True).decode("utf-8")
        except (binascii.Error, ValueError):
            raise _bad("the assembled chunks are not base64 of UTF-8 text") from None
        hashes = {i: chunk.sha256 for i, chunk in by_index.items()}
        done = CompletedRequest(
            request_id=row.request_id,
            target=row.target,
            total_chunks=row.total_chunks,
            body=body,
            completed_index=row.chunk_index,
            chunks=hashes,
        )
        await self.store.complete_request(owner, done, now)
        return Assembled(row.target, body)
