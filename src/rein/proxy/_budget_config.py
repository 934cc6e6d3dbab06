"""The budgets `rein proxy` enforces: limits per `x-rein-session` and per API key, where they are kept,
and the prices spend is counted with (read from settings and flags by `_budget_settings`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, get_args

from rein.proxy._budget_usage import BUILTIN_PRICES, Price

Scope = Literal["session", "key"]
SCOPES: tuple[Scope, ...] = get_args(Scope)
Dimension = Literal["tokens", "requests", "spend_usd", "minutes"]
DIMENSIONS: tuple[Dimension, ...] = get_args(Dimension)


@dataclass(frozen=True, slots=True, kw_only=True)
class Limits:
    """One scope's limits; None: not limited."""

    tokens: int | None = None
    """Tokens upstream reported: input, output, cache reads and writes, every attempt."""
    requests: int | None = None
    """Checked requests admitted (a retry of the proxy's own is not one)."""
    spend_usd: float | None = None
    """USD, from the price table; a model with no price adds nothing."""
    minutes: float | None = None
    """Wall time since the scope's first request."""

    @property
    def limited(self) -> bool:
        return any(getattr(self, name) is not None for name in DIMENSIONS)


@dataclass(frozen=True, slots=True, kw_only=True)
class BudgetConfig:
    session: Limits = Limits()
    key: Limits = Limits()
    state: Path
    """The SQLite file every worker shares (`~/.rein/proxy/budgets.sqlite3` unless `--state`)."""
    prices: Mapping[str, Price] = field(default_factory=lambda: dict(BUILTIN_PRICES))

    def limits(self, scope: Scope) -> Limits:
        return self.session if scope == "session" else self.key
