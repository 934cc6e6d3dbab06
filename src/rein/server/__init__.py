"""rein serve: the session server.

An ASGI app (Starlette under uvicorn) speaking the pi-server fork's protocol, over a durable store
(`rein.server.store`: SQLite by default, PostgreSQL to scale out).

    config = load_config({"port": 4217}, os.environ)   # ServerConfig; ConfigError for bad input
    app = create_app(config)                           # the ASGI app; opens config.db in its lifespan
    serve(config)                                      # bind, print one line, run until SIGTERM
"""

from __future__ import annotations

from rein.server._app import create_app
from rein.server._config import ConfigError, ServerConfig, load_config
from rein.server._errors import ProtocolError, error_response
from rein.server._serve import serve
from rein.server._service import SessionService
from rein.server._view import SessionView

__all__ = [
    "ConfigError",
    "ProtocolError",
    "ServerConfig",
    "SessionService",
    "SessionView",
    "create_app",
    "error_response",
    "load_config",
    "serve",
]
