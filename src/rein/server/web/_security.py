"""The web page's defences, for the whole app (the protocol's routes too):

- DNS rebinding: a loopback-bound server answers only requests whose `Host` is a loopback name
  (`127.0.0.1`, `localhost`, `[::1]`, with any port); anything else is 403 HOST_REFUSED.
- Cross-site requests: a mutating request whose `Origin` is present and not the request's own
  scheme://host:port, or whose `Sec-Fetch-Site` is `cross-site`, is 403 CSRF_FAILED. Non-browser
  clients send neither header, so `rein --server` and the fork's clients are unaffected.
- CSRF token: a mutating `/web/api` request must carry `X-Rein-CSRF` equal to the server's token
  (in the page's `<meta name="rein-csrf">`; `app.state.csrf`, one secret kept in the store, so every
  process behind a load balancer takes the page another served), compared in constant time; else
  403 CSRF_FAILED.
"""

from __future__ import annotations

import hmac
import secrets
import sys

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send

from rein.server._errors import ProtocolError, error_response

MUTATING = frozenset({"POST", "PUT", "PATCH", "DELETE"})
WEB_API = "/web/api/"
CSRF_HEADER = "x-rein-csrf"
LOOPBACK_NAMES = frozenset({"127.0.0.1", "localhost", "[::1]"})


def new_csrf_token() -> str:
    return secrets.token_urlsafe(32)


def _host_name(host: str) -> str:
    """`Host` without its port: `127.0.0.1:4217` -> `127.0.0.1`, `[::1]:80` -> `[::1]`."""
    if host.startswith("["):
        return host.split("]", 1)[0] + "]"
    return host.rsplit(":", 1)[0] if ":" in host else host


def check(scope: Scope, *, csrf: str, loopback: bool) -> ProtocolError | None:
    """Why the request is refused, or None."""
    headers = Headers(scope=scope)
    host = headers.get("host", "")
    if loopback and host and _host_name(host.lower()) not in LOOPBACK_NAMES:
        return ProtocolError(
            403, "HOST_REFUSED", f"Host {host!r:.80} is not a loopback name on a loopback server"
        )
    if scope.get("method", "GET") not in MUTATING:
        return None
    origin = headers.get("origin")
    own = f"{scope.get('scheme', 'http')}://{host}"
    if origin is not None and origin.lower() != own.lower():
        return ProtocolError(403, "CSRF_FAILED", f"cross-origin request from {origin!r:.80} refused")
    if headers.get("sec-fetch-site") == "cross-site":
        return ProtocolError(403, "CSRF_FAILED", "cross-site request refused")
    if str(scope.get("path", "")).startswith(WEB_API):
        given = headers.get(CSRF_HEADER, "").encode("utf-8")
        if not hmac.compare_digest(given, csrf.encode("utf-8")):
            return ProtocolError(403, "CSRF_FAILED", f"missing or wrong {CSRF_HEADER} header")
    return None


class SecurityMiddleware:
    """An ASGI middleware applying `check` to every HTTP request before any route sees it."""

    def __init__(self, app: ASGIApp, *, loopback: bool) -> None:
        self.app, self.loopback = app, loopback

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            refused = check(scope, csrf=str(scope["app"].state.csrf), loopback=self.loopback)
            if refused is not None:
                where = f"{scope.get('method')} {scope.get('path')}"
                print(
                    f"rein serve: {where} -> {refused.status} {refused.code}: {refused.message}",
                    file=sys.stderr,
                    flush=True,
                )
                await error_response(refused)(scope, receive, send)
                return
        await self.app(scope, receive, send)
