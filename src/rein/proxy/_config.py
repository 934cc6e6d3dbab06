"""What `rein proxy` runs with: the upstream, the rules, the hold-back cap and the late-match policy."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, get_args
from urllib.parse import urlsplit

from rein.proxy._budget_config import BudgetConfig
from rein.proxy._routes import Route
from rein.proxy._steer import SteeringMode
from rein.ttsr import Discovery, Rule, RuleIssue, TtsrSettings, discover_rules

LatePolicy = Literal["append-correction", "end-stream", "pass"]
"""What to do when a rule fires on text the client already received (a match longer than the window):
retry with the rule and let the model correct itself after what was shown; end the reply there; or let
it through. Each is logged and counted."""
LATE_POLICIES: tuple[LatePolicy, ...] = get_args(LatePolicy)

MAX_HOLD = 256
"""Default cap of the hold-back window, in characters: the most any stream is held behind its end."""


class ProxyConfigError(Exception):
    """A setting `rein proxy` cannot run with; the message is one line."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ProxyConfig:
    upstream: str
    """The API's base URL as an SDK takes it (`https://api.openai.com/v1`, `https://api.anthropic.com`)."""
    rules: tuple[Rule, ...] = ()
    settings: TtsrSettings = field(default_factory=TtsrSettings)
    issues: tuple[RuleIssue, ...] = ()
    """Rule files that were not loaded (printed at start)."""
    root: str | None = None
    max_hold: int = MAX_HOLD
    late_policy: LatePolicy = "append-correction"
    max_retries: int = 3
    """Retries per request; past them the reply ends where it was cut."""
    steering: SteeringMode = "retry"
    """Tool calls steering refuses: `retry` with the reason injected, end the reply with it as an
    `error`, or `off` (see `rein.proxy._steer`)."""
    home: str | None = None
    """The home directory whose `~/.rein/steering.toml` applies (None: the user's)."""
    connect_timeout: float = 10.0
    read_timeout: float = 600.0
    routes: tuple[Route, ...] = ()
    """Upstreams by model, tried before `upstream` (`--route`, `[[proxy.route]]`; `rein.proxy._routes`)."""
    budget: BudgetConfig | None = None
    """Budgets per session and API key (`[proxy.budget]`, `--budget`; `rein.proxy._budget`); None: none."""


def check_upstream(url: str) -> str:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ProxyConfigError(f"--upstream {url!r}: not an http(s) URL with a host")
    if parts.query or parts.fragment:
        raise ProxyConfigError(f"--upstream {url!r}: a base URL takes no query or fragment")
    return url.rstrip("/")


def load_rules(cwd: Path, home: Path, rules_dir: Path | None) -> Discovery:
    """Rules as rein's agent finds them from `cwd`, or, with `rules_dir`, that folder's `*.md` files; rein's
    built-in rules either way (settings can disable them)."""
    if rules_dir is not None and not rules_dir.is_dir():
        raise ProxyConfigError(f"--rules {rules_dir}: not a directory")
    return discover_rules(cwd, home, folders=None if rules_dir is None else [rules_dir])
