"""The server's JSON answers, written as the fork's server (node) writes them: `JSON.stringify`'s text
(`js_json`), so a lone UTF-16 surrogate a client stored comes back as the `\\ud83d` escape it sent
instead of failing the UTF-8 encoding (starlette's `JSONResponse` raised UnicodeEncodeError, a 500)."""

from __future__ import annotations

from starlette.responses import JSONResponse

from rein.session.remote._protocol import js_json


class JsonResponse(JSONResponse):
    def render(self, content: object) -> bytes:
        return js_json(content).encode("utf-8")
