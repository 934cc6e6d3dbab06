"""uvicorn's HTTP/1.1 protocol (h11) with the two limits it lacks against slow and greedy clients, both
enforced before a request reaches the app (so before its token is checked):

- a request head must be complete within `header_timeout` seconds of the connection opening or of the
  previous response, else the connection is closed. uvicorn has no such limit, and its keep-alive
  timer restarts on every byte: a client sending one byte every few seconds held a connection forever.
- at most `max_per_client` connections open at once from one peer IP address, counted over the
  process; one more is answered 503 (`Retry-After: 1`) and closed at once. Behind a load balancer or
  a reverse proxy every connection comes from its address: raise the cap there, or turn it off (0).

    protocol = limited_protocol(header_timeout=10, max_per_client=128)
    uvicorn.Config(app, http=protocol)
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections import Counter
from typing import Any, ClassVar

import h11
from uvicorn.config import Config
from uvicorn.protocols.http.h11_impl import H11Protocol
from uvicorn.server import ServerState


def _refusal(message: str) -> bytes:
    body = json.dumps({"error": message, "code": "RATE_LIMITED"}).encode()
    head = (
        "HTTP/1.1 503 Service Unavailable\r\ncontent-type: application/json\r\nretry-after: 1\r\n"
        f"connection: close\r\ncontent-length: {len(body)}\r\n\r\n"
    )
    return head.encode() + body


class LimitedH11Protocol(H11Protocol):
    """One connection. The limits are class attributes: `limited_protocol` makes a subclass per server,
    whose `open_per_client` every connection of that server shares."""

    header_timeout: ClassVar[float] = 0.0
    max_per_client: ClassVar[int] = 0
    open_per_client: ClassVar[Counter[str]] = Counter()

    def __init__(
        self,
        config: Config,
        server_state: ServerState,
        app_state: dict[str, Any],  # uvicorn's own annotation: the lifespan's state
        _loop: asyncio.AbstractEventLoop | None = None,
    ) -> None:
        super().__init__(config, server_state, app_state, _loop)
        self._head_timer: asyncio.TimerHandle | None = None
        self._address: str | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        address = self.client[0] if self.client else None
        if self.max_per_client > 0 and address is not None:
            if self.open_per_client[address] >= self.max_per_client:
                limit = self.max_per_client
                transport.write(_refusal(f"more than {limit} open connections from {address}"))
                transport.close()
                return
            self.open_per_client[address] += 1
            self._address = address
        self._await_head()

    def connection_lost(self, exc: Exception | None) -> None:
        self._cancel_head_timer()
        if self._address is not None:
            self.open_per_client[self._address] -= 1
            if self.open_per_client[self._address] <= 0:
                del self.open_per_client[self._address]
            self._address = None
        super().connection_lost(exc)

    def handle_events(self) -> None:
        cycle = self.cycle
        super().handle_events()
        if self.cycle is not cycle:  # a request head was parsed: the app has it now
            self._cancel_head_timer()

    def on_response_complete(self) -> None:
        super().on_response_complete()  # may parse a pipelined request's head at once
        if not self.transport.is_closing() and (self.cycle is None or self.cycle.response_complete):
            self._await_head()

    def _await_head(self) -> None:
        self._cancel_head_timer()
        if self.header_timeout > 0:
            self._head_timer = self.loop.call_later(self.header_timeout, self._head_timed_out)

    def _cancel_head_timer(self) -> None:
        if self._head_timer is not None:
            self._head_timer.cancel()
            self._head_timer = None

    def _head_timed_out(self) -> None:
        self._head_timer = None
        if self.transport.is_closing():
            return
        with contextlib.suppress(h11.LocalProtocolError):  # mid-response: closing is all that is left
            self.conn.send(h11.ConnectionClosed())
        self.transport.close()


def limited_protocol(*, header_timeout: float, max_per_client: int) -> type[LimitedH11Protocol]:
    """The protocol class for one server: `header_timeout` seconds (0: none), `max_per_client`
    connections per address (0: no cap)."""

    class Limited(LimitedH11Protocol):
        pass

    Limited.header_timeout = header_timeout
    Limited.max_per_client = max_per_client
    Limited.open_per_client = Counter()
    return Limited
