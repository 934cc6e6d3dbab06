"""The page itself: `GET /` (index.html with this process's CSRF token and whether a token is needed
filled in) and `GET /static/{name}` (the files shipped in `static/` and `content.css`, nothing
else). Public: the page holds no session data; everything it shows comes from `/web/api`, behind
the token.
"""

from __future__ import annotations

from pathlib import Path

from starlette.requests import Request
from starlette.responses import Response

from rein import __version__
from rein.html import CONTENT_CSS
from rein.server._errors import ProtocolError, error_body
from rein.server._json_response import JsonResponse
from rein.server._limits import owner_of

STATIC = Path(__file__).parent / "static"
CONTENT = "content.css"
POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self';"
    " frame-ancestors 'none'; base-uri 'none'; form-action 'self'"
)
HEADERS = {
    "Content-Security-Policy": POLICY,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}
TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".ico": "image/x-icon",
    ".json": "application/json",
}


def _not_found() -> Response:
    return JsonResponse({"error": "Not found", "code": "INVALID_REQUEST"}, status_code=404, headers=HEADERS)


async def index(request: Request) -> Response:
    """The page for a browser (every browser's Accept names `text/html`); any other client gets the
    fork's JSON answer: 401 `{error, version}` without a valid token, else who answers."""
    if "text/html" not in request.headers.get("accept", ""):
        try:
            owner_of(request.app.state.config, request.headers)
        except ProtocolError as refused:
            body = {**error_body(refused), "version": __version__}
            return JsonResponse(body, status_code=401, headers={"WWW-Authenticate": "Bearer"})
        return JsonResponse({"service": "rein", "version": __version__})
    try:
        text = (STATIC / "index.html").read_text(encoding="utf-8")
    except OSError:
        return _not_found()
    auth = "required" if request.app.state.config.auth_required else "none"
    html = text.replace("__REIN_CSRF__", request.app.state.csrf).replace("__REIN_AUTH__", auth)
    return Response(html, media_type="text/html; charset=utf-8", headers=HEADERS)


async def static(request: Request) -> Response:
    """A file of `static/` by its exact name (listed, so no path can leave the folder), or the
    stylesheet of rendered session text (`content.css`, the one `rein export` inlines)."""
    name = request.path_params["name"]
    if name == CONTENT:
        return Response(CONTENT_CSS, media_type=TYPES[".css"], headers=HEADERS)
    try:
        listed = {path.name for path in STATIC.iterdir() if path.is_file()}
    except OSError:
        listed = set()
    if name not in listed:
        return _not_found()
    kind = TYPES.get(Path(name).suffix, "application/octet-stream")
    return Response((STATIC / name).read_bytes(), media_type=kind, headers=HEADERS)
