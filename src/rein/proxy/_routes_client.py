"""The proxy's upstream client when it has routes: each request goes to the route its model picks, and
to the next matching route when one fails before its reply began.

Every upstream request of the proxy (checked, bypassed, passed through, retried) is sent with this
client, so routing sits here once, under the exchanges: they build a request for the default upstream
and `send` rebases it (URL, and the route's own key in place of the client's). A route fails over on a
connection error, a timeout, a 5xx status, or a stream that breaks before its first byte; the next
route gets the same request. Once upstream's first byte is in, nothing falls back: the failure reaches
the exchange (and the client) as it would without routes. Each fallback is logged
(`route-fallback`) and counted in `fallbacks`, per upstream that failed.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import AsyncIterator, Callable

import httpx2
from httpx2 import USE_CLIENT_DEFAULT
from httpx2._client import UseClientDefault
from httpx2._types import AuthTypes

from rein.ai import JsonValue
from rein.proxy._routes import Route, RouteTable, model_of
from rein.proxy._upstream import rebase

RouteLog = Callable[[dict[str, JsonValue]], None]
_KEY_HEADERS = frozenset(("authorization", "x-api-key"))
_CACHED = 1024


class RoutedClient(httpx2.AsyncClient):
    def __init__(self, table: RouteTable, log: RouteLog, **options: object) -> None:
        super().__init__(**options)  # type: ignore[arg-type]
        self.table = table
        self.log = log
        self.fallbacks: Counter[str] = Counter()
        """Fallbacks per upstream that failed (its base URL), since the proxy started."""
        self._urls: dict[tuple[str, str], tuple[httpx2.URL, str]] = {}

    async def send(
        self,
        request: httpx2.Request,
        *,
        stream: bool = False,
        auth: AuthTypes | UseClientDefault | None = USE_CLIENT_DEFAULT,
        follow_redirects: bool | UseClientDefault = USE_CLIENT_DEFAULT,
    ) -> httpx2.Response:
        model = model_of(request.content) if request.method == "POST" else None
        routes = self.table.candidates(model)
        if routes[0] is self.table.default:
            return await super().send(request, stream=stream, auth=auth, follow_redirects=follow_redirects)
        raw_path = request.url.raw_path.decode("ascii")
        keys = [(name, value) for name, value in request.headers.multi_items() if name in _KEY_HEADERS]
        for index, route in enumerate(routes):
            last = index == len(routes) - 1
            self._aim(request, raw_path, keys, route)
            try:
                response = await self._open(request, route, last, auth, follow_redirects)
            except (httpx2.TransportError, TimeoutError) as error:
                if last:
                    if isinstance(error, TimeoutError):
                        raise httpx2.ReadTimeout(f"no reply in {route.timeout} s", request=request) from None
                    raise
                self._fell_back(model, route, routes[index + 1], type(error).__name__)
                continue
            if response.status_code >= 500 and not last:
                await response.aclose()
                self._fell_back(model, route, routes[index + 1], f"HTTP {response.status_code}")
                continue
            if not stream:
                try:
                    await response.aread()
                except BaseException:
                    await response.aclose()
                    raise
            return response
        raise AssertionError("unreachable: the last route returns or raises")

    async def _open(
        self,
        request: httpx2.Request,
        route: Route,
        last: bool,
        auth: AuthTypes | UseClientDefault | None,
        follow_redirects: bool | UseClientDefault,
    ) -> httpx2.Response:
        """Upstream's answer, its first bytes in when another route could still take over."""
        async with asyncio.timeout(route.timeout):
            response = await super().send(request, stream=True, auth=auth, follow_redirects=follow_redirects)
            if last or response.status_code >= 500:
                return response
            try:
                await _peek(response)
            except BaseException:
                await response.aclose()
                raise
            return response

    def _aim(self, request: httpx2.Request, raw_path: str, keys: list[tuple[str, str]], route: Route) -> None:
        """Point `request` (built for the default upstream, whose path was `raw_path` and whose key
        headers `keys`) at `route`: its URL, and its own key if it has one. Changed in place: a new
        request would cost as much again as building it did."""
        aimed = self._urls.get((route.upstream, raw_path))
        if aimed is None:  # a parsed URL is cached: parsing is most of the cost, and paths are few
            if len(self._urls) >= _CACHED:
                self._urls.clear()
            url = httpx2.URL(rebase(raw_path, self.table.default_path, route.upstream))
            aimed = self._urls[route.upstream, raw_path] = (url, url.netloc.decode("ascii"))
        request.url, request.headers["host"] = aimed
        for name in [name for name in _KEY_HEADERS if name in request.headers]:
            del request.headers[name]
        auth = route.auth(raw_path)
        for name, value in keys if auth is None else [auth]:
            request.headers[name] = value

    def _fell_back(self, model: str | None, failed: Route, to: Route, reason: str) -> None:
        self.fallbacks[failed.upstream] += 1
        self.log({
            "event": "route-fallback", "model": model, "from": failed.upstream, "to": to.upstream,
            "reason": reason,
        })  # fmt: skip


def route_fallbacks(client: httpx2.AsyncClient) -> Counter[str]:
    """The fallbacks so far per failing upstream (empty for a proxy without routes)."""
    return client.fallbacks if isinstance(client, RoutedClient) else Counter()


async def _peek(response: httpx2.Response) -> None:
    """Read the first chunk of the body now (a break or a hang before it can still fall back) and put it
    back in front of the rest."""
    stream = response.stream
    if not isinstance(stream, httpx2.AsyncByteStream):
        return
    chunks = stream.__aiter__()
    try:
        first = await chunks.__anext__()
    except StopAsyncIteration:
        first = b""
    response.stream = _Peeked(first, chunks, stream)


class _Peeked(httpx2.AsyncByteStream):
    def __init__(self, first: bytes, rest: AsyncIterator[bytes], stream: httpx2.AsyncByteStream) -> None:
        self._first = first
        self._rest = rest
        self._stream = stream

    async def __aiter__(self) -> AsyncIterator[bytes]:
        if self._first:
            yield self._first
        async for chunk in self._rest:
            yield chunk

    async def aclose(self) -> None:
        await self._stream.aclose()
