"""`rein proxy`: stream rules (TTSR) for any OpenAI or Anthropic client, by base URL alone.

An ASGI proxy in front of the provider serving `/v1/chat/completions`, `/v1/responses` and
`/v1/messages`, streamed or not. Streamed replies pass through a hold-back window derived from the
rules (`rein.ttsr.hold_windows`): text is released only once no rule can still match across it, tool
calls only whole. When a rule fires in held text, the upstream stream is cancelled, the held text
dropped, the rule injected as a hidden message and the request retried; the client sees one valid
stream. Everything else is forwarded unchanged; keys pass through from the client. Each complete tool
call is checked with rein's steering before the client receives it (`_steer`): a refused one is cut and
retried with the reason injected, or ends the reply with it as an error.

    config = ProxyConfig(upstream="https://api.openai.com/v1", rules=discover_rules(cwd, home).rules)
    app = ProxyApp(config)          # any ASGI server; `serve(config, host, port)` runs uvicorn
"""

from rein.proxy._app import ProxyApp, api_of
from rein.proxy._budget import Budgets
from rein.proxy._budget_config import BudgetConfig, Limits
from rein.proxy._budget_settings import budget_config
from rein.proxy._budget_store import Used
from rein.proxy._budget_usage import BUILTIN_PRICES, Price
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
from rein.proxy._routes import Route
from rein.proxy._routes_config import load_routes
from rein.proxy._serve import SHUTDOWN_TIMEOUT, serve
from rein.proxy._sse import SseParser
from rein.proxy._steer import FILE_TOOLS, SHELL_TOOLS, STEERING_MODES, SteeringMode
from rein.proxy._upstream import upstream_url

__all__ = [
    "BUILTIN_PRICES",
    "FILE_TOOLS",
    "LATE_POLICIES",
    "MAX_HOLD",
    "SHELL_TOOLS",
    "SHUTDOWN_TIMEOUT",
    "STEERING_MODES",
    "Api",
    "BudgetConfig",
    "Budgets",
    "Codec",
    "Fired",
    "LatePolicy",
    "Limits",
    "Out",
    "Price",
    "ProxyApp",
    "ProxyConfig",
    "ProxyConfigError",
    "Relay",
    "Route",
    "SseEvent",
    "SseParser",
    "SteeringMode",
    "Used",
    "api_of",
    "budget_config",
    "check_upstream",
    "load_routes",
    "load_rules",
    "serve",
    "upstream_url",
]
