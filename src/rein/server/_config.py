"""The session server's configuration: one frozen value built once from `rein serve`'s options and
the environment, read by every part of the server (`request.app.state.config`).

    config = load_config({"host": "127.0.0.1", "port": 4217}, os.environ)   # raises ConfigError
"""

from __future__ import annotations

import ipaddress
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Literal, get_args

from rein.ai import default_model
from rein.server._timebox import TimeboxSpec, parse_timebox
from rein.settings import SettingsFileError, load_settings

DEFAULT_PORT = 4217
DEFAULT_MAX_REQUEST_BYTES = 512 * 1024
DEFAULT_MAX_PENDING_CHUNK_BYTES = 256 * 1024 * 1024
DEFAULT_MAX_PENDING_CHUNK_BYTES_PER_USER = 64 * 1024 * 1024
DEFAULT_HEADER_TIMEOUT = 10
DEFAULT_BODY_TIMEOUT = 30
DEFAULT_MAX_CONNECTIONS_PER_CLIENT = 128
DEFAULT_DRAIN_SECONDS = 5
DEFAULT_RUN_LEASE_SECONDS = 10
PROVIDER_KEYS: Mapping[str, str] = MappingProxyType({
    "anthropic": "ANTHROPIC_API_KEY", "openai": "OPENAI_API_KEY", "openai-responses": "OPENAI_API_KEY",
})  # fmt: skip
"""Where the server's own provider key comes from (the variables the providers read)."""


Approve = Literal["ask", "auto", "deny"]
"""`rein.builtins.ApproveMode`, spelled here so the config module stays light."""


class ConfigError(Exception):
    """A bad option or file; `str()` is the one-line problem (`rein serve` exits 2 with it)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ServerConfig:
    host: str = "127.0.0.1"
    port: int = DEFAULT_PORT
    db: str = ""
    """The store URL (`sqlite:///path`, a path, `postgresql://...`); "" = SQLite under `home`."""
    token: str | None = None
    """REIN_SERVER_TOKEN: every request must carry it as a bearer token (owner "default")."""
    tokens: Mapping[str, str] = field(default_factory=dict)
    """token -> user from a tokens file: each user sees only their own sessions."""
    provider: str = "faux"
    model: str = ""
    """`--model`: what a request that names no model gets; left empty, the provider's default is set
    here, so no reader of the config mistakes the provider's name for a model id."""
    models: tuple[str, ...] = ()
    """`--models` or `[server] models`: globs of the model ids a client may name (empty: any)."""
    base_url: str | None = None
    api_key: str | None = None
    """The server's provider key (from its environment), never a client's..."""
    allow_client_keys: bool = False
    """...unless this is set: then a request's `options.apiKey` is honoured."""
    max_request_bytes: int = DEFAULT_MAX_REQUEST_BYTES
    """Larger bodies get 413 REQUEST_TOO_LARGE; clients send them as chunks."""
    max_pending_chunk_bytes: int = DEFAULT_MAX_PENDING_CHUNK_BYTES
    """Chunks of uploads not yet complete, all users together; a chunk beyond gets 413."""
    max_pending_chunk_bytes_per_user: int = DEFAULT_MAX_PENDING_CHUNK_BYTES_PER_USER
    """The same, per user (0: only the total cap), so one user's uploads never refuse another's."""
    header_timeout: int = DEFAULT_HEADER_TIMEOUT
    """Seconds a connection has to send a complete request head, from its opening or from the last
    response (0: no limit); then it is closed (`rein.server._http`)."""
    body_timeout: int = DEFAULT_BODY_TIMEOUT
    """Seconds a request body may go without a byte before 408 (0: no limit)."""
    max_connections_per_client: int = DEFAULT_MAX_CONNECTIONS_PER_CLIENT
    """Open connections from one IP address (0: no limit); one more is answered 503 and closed. Behind
    a load balancer every connection comes from its address: raise this, or set 0."""
    rate_per_minute: int = 600
    """Requests per minute per owner (a token bucket); 0 turns the limit off."""
    cwd: str = "."
    """Where the server reads its own `.rein` settings and rules."""
    timebox: TimeboxSpec | None = None
    """`--timebox`: the budget every session on the server gets (`rein.server._timebox`)."""
    holder: str = field(default_factory=lambda: uuid.uuid4().hex)
    """This process's writer-lease holder id."""
    run_lease_seconds: int = DEFAULT_RUN_LEASE_SECONDS
    """`--run-lease-seconds`: a run's lease, renewed every third of it while the run goes on; when
    its process dies, any process marks the run interrupted once it lapsed."""
    home: Path = field(default_factory=Path.home)
    approve: Approve | None = None
    """`--approve`: how the web page's runs approve bash, write, edit and MCP tool calls (None: the session
    directory's `[rein] approve` setting, else "ask": the page is asked)."""
    drain_seconds: int = DEFAULT_DRAIN_SECONDS
    """`--drain-seconds`: after SIGTERM, how long `/ready` answers 503 draining while requests are still
    served, so a load balancer stops sending before the process stops."""
    upload_dir: str = ""
    """`--upload-dir` (or REIN_SERVER_UPLOAD_DIR), absolute: where `POST /api/receive` saves, one
    folder per user; "" = `~/.rein/server/uploads` under `home` (`rein.server._receive`)."""

    def __post_init__(self) -> None:
        if not self.model:
            object.__setattr__(self, "model", default_model(self.provider) or self.provider)

    @property
    def auth_required(self) -> bool:
        return self.token is not None or bool(self.tokens)


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def read_tokens(path: Path) -> dict[str, str]:
    """A tokens file: one `USER TOKEN` pair per line; blank lines and `#` comments are skipped."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigError(f"{path}: cannot read the tokens file: {error}") from None
    tokens: dict[str, str] = {}
    for number, line in enumerate(text.splitlines(), 1):
        words = line.split("#", 1)[0].split()
        if not words:
            continue
        if len(words) != 2:
            raise ConfigError(f"{path}:{number}: expected `USER TOKEN`, got {len(words)} words")
        user, token = words
        if token in tokens:
            raise ConfigError(f"{path}:{number}: this token is already given to {tokens[token]!r}")
        tokens[token] = user
    return tokens


def load_config(args: Mapping[str, object], env: Mapping[str, str]) -> ServerConfig:
    """The configuration from `rein serve`'s option values (`args`, None for an option not given) and
    the environment (REIN_SERVER_TOKEN, REIN_SERVER_DB, REIN_SERVER_TOKENS_FILE, REIN_SERVER_UPLOAD_DIR, the
    provider keys).
    Raises ConfigError, for example for a non-loopback host without a token."""

    def text(name: str, variable: str | None = None) -> str | None:
        value = args.get(name)
        if value is None and variable is not None:
            value = env.get(variable) or None
        return None if value is None else str(value)

    def number(name: str, default: int, scale: int = 1) -> int:
        value = args.get(name)
        if value is None:
            return default
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise ConfigError(f"--{name.replace('_', '-')}: expected a non-negative integer, got {value!r}")
        return value * scale

    host = text("host") or "127.0.0.1"
    port = number("port", DEFAULT_PORT)
    if port > 65535:
        raise ConfigError(f"--port: {port} is not a port number")
    tokens_file = text("tokens_file", "REIN_SERVER_TOKENS_FILE")
    tokens = read_tokens(Path(tokens_file)) if tokens_file else {}
    token = text("token", "REIN_SERVER_TOKEN")
    if not is_loopback(host) and token is None and not tokens:
        raise ConfigError(f"--host {host} is not loopback: set REIN_SERVER_TOKEN (or --tokens-file) first")
    provider = text("provider") or "faux"
    uploads = text("upload_dir", "REIN_SERVER_UPLOAD_DIR")
    key_variable = PROVIDER_KEYS.get(provider)
    return ServerConfig(
        host=host,
        port=port,
        db=text("db", "REIN_SERVER_DB") or "",
        token=token,
        tokens=MappingProxyType(tokens),
        provider=provider,
        model=text("model") or "",
        models=_models(text("models"), Path(text("cwd") or "."), env),
        base_url=text("base_url"),
        api_key=(env.get(key_variable) or None) if key_variable else None,
        allow_client_keys=bool(args.get("allow_client_keys")),
        max_request_bytes=number("max_request_kb", DEFAULT_MAX_REQUEST_BYTES, 1024),
        max_pending_chunk_bytes=number("max_pending_chunks_mb", DEFAULT_MAX_PENDING_CHUNK_BYTES, 1024 * 1024),
        max_pending_chunk_bytes_per_user=number(
            "max_pending_chunks_mb_per_user", DEFAULT_MAX_PENDING_CHUNK_BYTES_PER_USER, 1024 * 1024
        ),
        header_timeout=number("header_timeout", DEFAULT_HEADER_TIMEOUT),
        body_timeout=number("body_timeout", DEFAULT_BODY_TIMEOUT),
        max_connections_per_client=number("max_connections_per_client", DEFAULT_MAX_CONNECTIONS_PER_CLIENT),
        rate_per_minute=number("rate_per_minute", 600),
        cwd=text("cwd") or ".",
        timebox=_timebox(text("timebox") or ""),
        home=Path(env["HOME"]) if env.get("HOME") else Path.home(),
        approve=_approve(text("approve")),
        drain_seconds=number("drain_seconds", DEFAULT_DRAIN_SECONDS),
        run_lease_seconds=max(1, number("run_lease_seconds", DEFAULT_RUN_LEASE_SECONDS)),
        upload_dir=str((Path(text("cwd") or ".") / Path(uploads).expanduser()).absolute()) if uploads else "",
    )


def _models(option: str | None, cwd: Path, env: Mapping[str, str]) -> tuple[str, ...]:
    """`--models` (comma-separated), else `[server] models` from the settings files."""
    if option is not None:
        return tuple(part.strip() for part in option.split(",") if part.strip())
    home = Path(env["HOME"]) if env.get("HOME") else Path.home()
    try:
        group = load_settings(cwd, home).get("server", {})
    except SettingsFileError as error:
        raise ConfigError(str(error)) from None
    value = group.get("models")
    items = [value] if isinstance(value, str) else value if isinstance(value, list) else []
    return tuple(str(item) for item in items)


def _approve(value: str | None) -> Approve | None:
    if value is None:
        return None
    for mode in get_args(Approve):
        if value == mode:
            return mode  # type: ignore[no-any-return]
    raise ConfigError(f"--approve: expected one of {', '.join(get_args(Approve))}, got {value!r}")


def _timebox(text: str) -> TimeboxSpec | None:
    try:
        return parse_timebox(text)
    except ValueError as error:
        raise ConfigError(str(error)) from None
