"""Per-request checks at the edge: who is asking (bearer token -> owner), how much they send (the
request-size limit, on the declared length and on the bytes actually read), how slowly (the body's
idle timeout) and how often (a token bucket per owner). Each refusal is a `ProtocolError` the app
answers like any other.
"""

from __future__ import annotations

import asyncio
import hmac
import math
import time
from collections.abc import Mapping

from starlette.requests import Request

from rein.protocol import CHUNK_ENDPOINT
from rein.server._config import ServerConfig
from rein.server._errors import ProtocolError

SINGLE_TOKEN_OWNER = "default"


def unauthorized() -> ProtocolError:
    return ProtocolError(401, "UNAUTHORIZED", "Unauthorized")


def owner_of(config: ServerConfig, headers: Mapping[str, str]) -> str:
    """The owner a request acts for: "" on an open server, "default" for REIN_SERVER_TOKEN, the
    user of a tokens-file token. Every configured token is compared, in constant time, so the
    answer's timing does not tell which prefix matched."""
    if not config.auth_required:
        return ""
    header = headers.get("authorization", "")
    presented = header[7:] if header.lower().startswith("bearer ") else header
    given = presented.strip().encode("utf-8")
    owner: str | None = None
    candidates = [(config.token, SINGLE_TOKEN_OWNER)] if config.token is not None else []
    candidates += list(config.tokens.items())
    for token, user in candidates:
        if hmac.compare_digest(given, token.encode("utf-8")) and owner is None:
            owner = user
    if not given or owner is None:
        raise unauthorized()
    return owner


def too_large(limit: int) -> ProtocolError:
    return ProtocolError(
        413,
        "REQUEST_TOO_LARGE",
        f"request body over {limit} bytes: send it through {CHUNK_ENDPOINT}",
        {"limit": limit},
    )


async def read_body(request: Request, limit: int) -> bytes:
    """The body, refused with 413 as soon as it is known to exceed `limit` bytes (a declared
    Content-Length, or the bytes received so far when the length is absent or lies), and with 408
    when no byte of it came for the config's `body_timeout` seconds (a stalled client holds a
    connection and a task, nothing else)."""
    declared = request.headers.get("content-length")
    if declared is not None and declared.isascii() and declared.isdigit() and int(declared) > limit:
        raise too_large(limit)
    config: ServerConfig = request.app.state.config
    idle = config.body_timeout or None
    parts: list[bytes] = []
    size = 0
    try:
        async with asyncio.timeout(idle) as deadline:
            async for part in request.stream():
                size += len(part)
                if size > limit:
                    raise too_large(limit)
                parts.append(part)
                if idle is not None:
                    deadline.reschedule(asyncio.get_running_loop().time() + idle)
    except TimeoutError:
        raise ProtocolError(
            408, "INVALID_REQUEST", f"request body stalled: no byte for {idle} s", {"timeout": idle}
        ) from None
    return b"".join(parts)


class RateLimiter:
    """A token bucket per owner: `per_minute` requests a minute, bursts up to that many."""

    def __init__(self, per_minute: int) -> None:
        self.per_minute = per_minute
        self._buckets: dict[str, tuple[float, float]] = {}

    def check(self, owner: str) -> None:
        """Take one token for `owner`, or raise 429 RATE_LIMITED with the seconds to wait."""
        if self.per_minute <= 0:
            return
        now = time.monotonic()
        rate = self.per_minute / 60.0
        tokens, then = self._buckets.get(owner, (float(self.per_minute), now))
        tokens = min(float(self.per_minute), tokens + (now - then) * rate)
        if tokens < 1.0:
            self._buckets[owner] = (tokens, now)
            wait = max(1, math.ceil((1.0 - tokens) / rate))
            raise ProtocolError(
                429, "RATE_LIMITED", f"more than {self.per_minute} requests a minute", {"retryAfter": wait}
            )
        self._buckets[owner] = (tokens - 1.0, now)
