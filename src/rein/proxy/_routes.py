"""Routes: which upstream serves a request, by the model its body names.

A route sends the models its glob matches (`gpt-4.1*`, `claude-*`) to its upstream, with the proxy's own
key for it or the client's. The table is tried in order: every route whose glob matches is a candidate,
the first one serves, the next one takes over when it fails before its reply began (see
`rein.proxy._routes_client`). A request whose model no route matches, or that names none (`GET
/v1/models`), goes to the default route: `--upstream`, with the client's key.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from fnmatch import fnmatchcase
from typing import Literal, get_args
from urllib.parse import urlsplit

RouteApi = Literal["openai", "anthropic"]
"""Which header carries a route's own key: `Authorization: Bearer` or Anthropic's `x-api-key`."""
ROUTE_APIS: tuple[RouteApi, ...] = get_args(RouteApi)

_MODEL = re.compile(rb'"model"\s*:\s*"((?:[^"\\]|\\.)*)"')
"""A `"model": "..."` key. Inside a JSON string the quotes are escaped, so `"model"` alone in a body is
its key; more than one (a nested object with its own `model`, a value) and the body is parsed."""
_CACHED = 1024


@dataclass(frozen=True, slots=True, kw_only=True)
class Route:
    model: str
    """A glob of model ids (`gpt-4.1*`), matched case-sensitively, as `[server] models` is."""
    upstream: str
    """The API's base URL, as `--upstream` takes it."""
    key_env: str | None = None
    """The environment variable the route's own key was read from (None: the client's key passes)."""
    key: str | None = field(default=None, repr=False)
    api: RouteApi | None = None
    """The header for `key` (None: `x-api-key` on the Messages API's paths, a bearer token elsewhere)."""
    timeout: float | None = None
    """Seconds for upstream to begin its reply (status and first bytes) before the next route takes
    over (None: the proxy's connect and read timeouts only)."""

    def auth(self, url: str) -> tuple[str, str] | None:
        """The header that carries the route's own key for a request to `url`, or None."""
        if self.key is None:
            return None
        anthropic = self.api == "anthropic" or (self.api is None and "/messages" in url)
        return ("x-api-key", self.key) if anthropic else ("authorization", f"Bearer {self.key}")


class RouteTable:
    """The routes in order, then the default. Matching is cached per model id (a proxy sees few)."""

    def __init__(self, default: str, routes: tuple[Route, ...]) -> None:
        self.default = Route(model="*", upstream=default)
        self.default_path = urlsplit(default).path
        self.routes = routes
        self._cache: dict[str, tuple[Route, ...]] = {}

    def candidates(self, model: str | None) -> tuple[Route, ...]:
        """The routes that may serve `model`, in the order they are tried (never empty)."""
        if model is None:
            return (self.default,)
        found = self._cache.get(model)
        if found is None:
            if len(self._cache) >= _CACHED:
                self._cache.clear()
            found = tuple(r for r in self.routes if fnmatchcase(model, r.model)) or (self.default,)
            self._cache[model] = found
        return found


def model_of(body: bytes) -> str | None:
    """The top-level `model` of a JSON request body, or None; cheap on a large body (no full parse
    unless `"model"` occurs in it more than once)."""
    start = body.find(b'"model"')
    if start < 0:
        return None
    if body.find(b'"model"', start + 7) < 0:
        found = _MODEL.match(body, start)
        if found is None:
            return None
        try:
            value = json.loads(b'"' + found.group(1) + b'"')
        except ValueError:
            return None
        return value if isinstance(value, str) else None
    try:
        parsed = json.loads(body)
    except ValueError:
        return None
    model = parsed.get("model") if isinstance(parsed, dict) else None
    return model if isinstance(model, str) else None
