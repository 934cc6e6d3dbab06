"""The server's JSON answers, written as the fork's server (node) writes them: compact, non-ASCII as
is, and a lone UTF-16 surrogate a client stored as the `\\ud83d` escape it sent (`js_surrogates`),
where starlette's `JSONResponse` raised UnicodeEncodeError (a 500). The usual body, which has none,
costs no more than starlette's."""

from __future__ import annotations

import json

from starlette.responses import JSONResponse

from rein.protocol import js_surrogates


class JsonResponse(JSONResponse):
    def render(self, content: object) -> bytes:
        text = json.dumps(content, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
        try:
            return text.encode("utf-8")
        except UnicodeEncodeError:
            return js_surrogates(text).encode("utf-8")
