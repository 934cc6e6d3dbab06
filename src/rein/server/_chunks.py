"""Chunked requests (`POST /api/request/chunk`), the fork's semantics kept in the store so an upload
survives a server restart and works across servers sharing one database.

An envelope `{requestId, target, chunkIndex, totalChunks, sha256, chunk}` carries one piece of the
base64 text of a JSON body bound for `target`. A chunk is acknowledged `{received, requestId,
chunkIndex, totalChunks}`; the one that completes the set gets the target's own answer instead. An
identical duplicate is only acknowledged, a divergent one or a checksum mismatch is a 400. A completed
request keeps a tombstone for 60 s: a retried completing chunk gets the original body dispatched
again (the targets are idempotent), any other retried chunk an ack.

Pending chunks are capped twice, 413 beyond: per user (one user's uploads never refuse another's) and
in all. Each chunk costs a few indexed queries that read no chunk text (the request's stored indexes,
the pending sizes); the text is read once, to assemble. Expiry is not per chunk: `expire()`, called by
the server's maintenance every few seconds, drops pending requests idle for 5 minutes (the oldest
first while over the total cap) and old tombstones. Caps are checked, then the chunk is written: two
processes racing on one database may overshoot a cap by a chunk each.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import time
import weakref
from dataclasses import dataclass

from rein.protocol import chunk_checksum
from rein.server._errors import ProtocolError
from rein.server._metrics import Metrics
from rein.server._shapes import Chunk
from rein.server._validate import Body, validated
from rein.server.store import ChunkRow, CompletedRequest, Store

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
    """The chunk envelope, checked as its shape (`_shapes.Chunk`: each error names its field)."""
    shape = validated(Chunk, body)
    digest = shape.sha256.lower()
    if chunk_checksum(shape.chunk) != digest:
        raise _bad(f"Chunk checksum mismatch: {shape.chunk_index}")
    return ChunkRow(
        request_id=shape.request_id,
        target=shape.target,
        chunk_index=shape.chunk_index,
        total_chunks=shape.total_chunks,
        sha256=digest,
        chunk=shape.chunk,
    )


def ack(row: ChunkRow) -> dict[str, object]:
    return {
        "received": True,
        "requestId": row.request_id,
        "chunkIndex": row.chunk_index,
        "totalChunks": row.total_chunks,
    }


class ChunkReceiver:
    """Receives envelopes for one server process; the state itself lives in the store.
    `max_pending_bytes_per_user` 0 leaves only the total cap."""

    def __init__(
        self,
        store: Store,
        max_pending_bytes: int,
        max_pending_bytes_per_user: int = 0,
        metrics: Metrics | None = None,
    ) -> None:
        self.store = store
        self.max_pending_bytes = max_pending_bytes
        self.max_pending_bytes_per_user = max_pending_bytes_per_user
        self.metrics = metrics
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

    async def expire(self) -> None:
        """Drop pending requests idle for PENDING_TTL_MS (then the oldest while over the total cap)
        and tombstones older than COMPLETED_TTL_MS; publish the pending bytes. For the maintenance
        loop: it scans every pending request, so never per chunk."""
        now = int(time.time() * 1000)
        await self.store.expire_chunks(
            pending_before_ms=now - PENDING_TTL_MS,
            completed_before_ms=now - COMPLETED_TTL_MS,
            max_pending_bytes=self.max_pending_bytes,
        )
        if self.metrics is not None:
            self.metrics.pending_chunk_bytes.set(await self.store.pending_bytes())

    async def _receive(self, owner: str, row: ChunkRow) -> dict[str, object] | Assembled:
        done = await self.store.completed_request(owner, row.request_id)
        if done is not None:
            if done.target != row.target or done.total_chunks != row.total_chunks:
                raise _bad("Chunk metadata does not match the completed request")
            if done.chunks.get(row.chunk_index) != row.sha256:
                raise _bad(f"Duplicate chunk index does not match: {row.chunk_index}")
            return Assembled(done.target, done.body) if row.chunk_index == done.completed_index else ack(row)
        stored = await self.store.chunk_infos(owner, row.request_id)
        if stored and (stored[0].target != row.target or stored[0].total_chunks != row.total_chunks):
            raise _bad("Chunk metadata does not match the pending request")
        # the sha256 was checked against the text: equal digests are equal chunks
        digest = next((info.sha256 for info in stored if info.chunk_index == row.chunk_index), None)
        if digest is None:
            await self._make_room(owner, len(row.chunk.encode("utf-8")))
            raced = await self.store.put_chunk(owner, row, int(time.time() * 1000))
            digest = None if raced is None else raced.sha256
        if digest is not None:
            if digest != row.sha256:
                raise _bad(f"Duplicate chunk index does not match: {row.chunk_index}")
            return ack(row)
        if len({info.chunk_index for info in stored} | {row.chunk_index}) < row.total_chunks:
            return ack(row)
        return await self._assemble(owner, row)

    async def _make_room(self, owner: str, size: int) -> None:
        """Refuse a chunk of `size` bytes (413) that would take the user's or everyone's pending
        bytes over their cap."""
        per_user = self.max_pending_bytes_per_user
        if per_user > 0 and await self.store.pending_bytes(owner) + size > per_user:
            raise ProtocolError(
                413,
                "REQUEST_TOO_LARGE",
                f"your pending chunk bytes would exceed {per_user}: complete or abandon an upload first",
                {"limit": per_user},
            )
        pending = await self.store.pending_bytes() + size
        if pending > self.max_pending_bytes:
            raise ProtocolError(413, "REQUEST_TOO_LARGE", "Request chunk pending bytes limit exceeded")
        if self.metrics is not None:
            self.metrics.pending_chunk_bytes.set(pending)

    async def _assemble(self, owner: str, row: ChunkRow) -> dict[str, object] | Assembled:
        """The request's body from its chunks, read now and only now, and its tombstone kept."""
        by_index = {chunk.chunk_index: chunk for chunk in await self.store.chunks(owner, row.request_id)}
        if sorted(by_index) != list(range(row.total_chunks)):
            return ack(row)  # a chunk expired (or a racing process completed it) meanwhile
        text = "".join(by_index[i].chunk for i in range(row.total_chunks))
        try:
            body = base64.b64decode(text, validate=True).decode("utf-8")
        except (binascii.Error, ValueError):
            raise _bad("the assembled chunks are not base64 of UTF-8 text") from None
        done = CompletedRequest(
            request_id=row.request_id,
            target=row.target,
            total_chunks=row.total_chunks,
            body=body,
            completed_index=row.chunk_index,
            chunks={i: chunk.sha256 for i, chunk in by_index.items()},
        )
        await self.store.complete_request(owner, done, int(time.time() * 1000))
        return Assembled(row.target, body)
