"""The web page of `rein serve`: watch, steer and review sessions in a browser.

The page (`static/`: HTML, CSS and one script, no build step, no third-party code) is served at `/`;
its JSON API and event stream live under `/web/api` on the same app, behind the same bearer token and
rate limit as the protocol. Runs started from the page are rein's own agent on the server, in the
session's directory, with rein's built-in extensions (`_host`).

    app.state.csrf = new_csrf_token()
    app.state.buses = Buses()                      # per-session events, relayed through the store (`_relay`)
    app.state.web_runs = RunHost(app, buses)       # server-side runs
    routes += web_routes(guarded)                  # `/`, `/static/{name}`, `/web/api/...`
    app.add_middleware(SecurityMiddleware, loopback=...)   # host, origin, CSRF (app.state.csrf)
"""

from __future__ import annotations

from starlette.routing import BaseRoute, Route

from rein.server.web._api import Guard, api_routes
from rein.server.web._bus import EventBus, sse_response
from rein.server.web._host import RunHost
from rein.server.web._page import index, static
from rein.server.web._relay import Buses, mirror
from rein.server.web._security import SecurityMiddleware, new_csrf_token


def web_routes(guard: Guard) -> list[BaseRoute]:
    """The page's routes; `guard` is the app's gate (owner from the token, rate limit, errors)."""
    routes: list[BaseRoute] = [
        Route("/", index, methods=["GET"]),
        Route("/static/{name}", static, methods=["GET"]),
    ]
    return routes + api_routes(guard)


__all__ = [
    "Buses",
    "EventBus",
    "Guard",
    "RunHost",
    "SecurityMiddleware",
    "mirror",
    "new_csrf_token",
    "sse_response",
    "web_routes",
]
