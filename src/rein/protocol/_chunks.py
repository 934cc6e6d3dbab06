"""The chunk envelope: a request body over the server's size limit travels as base64 chunks posted to
`CHUNK_ENDPOINT` (`requestId`, `target`, `chunkIndex`, `totalChunks`, `sha256`, `chunk`); each is
acknowledged, and the chunk that completes the body gets the target endpoint's own answer."""

from __future__ import annotations

from typing import Final

from rein.protocol._hash import sha256_hex

CHUNK_ENDPOINT: Final = "/api/request/chunk"
CHUNK_TARGETS: Final = frozenset({
    "/api/session/init", "/api/session/update", "/api/session/sync", "/api/session/append",
    "/api/session/tree/sync", "/api/session/tree/append", "/api/session/tree/switch",
    "/api/session/compact", "/api/stream", "/api/receive",
})  # fmt: skip
"""The endpoints a chunked request may complete into (the fork's list)."""


def chunk_checksum(chunk: str) -> str:
    """The envelope's `sha256`: of the chunk string as sent (base64 text), not of the decoded bytes."""
    return sha256_hex(chunk)
