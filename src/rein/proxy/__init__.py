"""`rein proxy`: stream rules (TTSR) for any OpenAI or Anthropic client, by base URL alone.

An ASGI proxy in front of the provider serving `/v1/chat/completions`, `/v1/responses` and
`/v1/messages`, streamed or not. Streamed replies pass through a hold-back window derived from the
rules (`rein.ttsr.hold_windows`): text is released only once no rule can still match across it, tool
calls only whole. When a rule fires in held text, the upstream stream is cancelled, the held text
dropped, the rule injected as a hidden message and the request retried; the client sees one valid
stream. Everything else is forwarded unchanged; keys pass through from the client.

    config = ProxyConfig(upstream="https://api.openai.com/v1", rules=discover_rules(cwd, home).rules)
    app = ProxyApp(config)          # any ASGI server; `serve(config, host, port)` runs uvicorn
"""

from rein.proxy._app import ProxyApp, api_of
from rein.proxy._codec import Api, Codec, Out, SseEvent
from rein.proxy._config import (
    LATE_POLICIES,
    MAX_HOLD,
    LatePolicy,
    ProxyConfig,
    ProxyConfigError,
    check_upstream,
    load_rules,
)
from rein.proxy._relay import Fired, Relay
from rein.proxy._serve import serve
from rein.proxy._sse import SseParser
from rein.proxy._upstream import upstream_url

__all__ = [
    "LATE_POLICIES",
    "MAX_HOLD",
    "Api",
    "Codec",
    "Fired",
    "LatePolicy",
    "Out",
    "ProxyApp",
    "ProxyConfig",
    "ProxyConfigError",
    "Relay",
    "SseEvent",
    "SseParser",
    "api_of",
    "check_upstream",
    "load_rules",
    "serve",
    "upstream_url",
]
