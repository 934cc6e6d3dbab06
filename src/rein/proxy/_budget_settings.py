"""`BudgetConfig` from settings (`[proxy.budget.session]`, `[proxy.budget.key]`, `[proxy.prices.<model>]`,
`[proxy] state`) and flags (`--budget session.tokens=100000`, `--state FILE`, `--prices FILE`); a flag
wins over the setting it names. Every problem is one `ProxyConfigError` line naming the setting."""

from __future__ import annotations

import tomllib
from collections.abc import Mapping, Sequence
from pathlib import Path

from rein.proxy._budget_config import DIMENSIONS, SCOPES, BudgetConfig, Limits
from rein.proxy._budget_usage import BUILTIN_PRICES, Price
from rein.proxy._config import ProxyConfigError

STATE = Path(".rein") / "proxy" / "budgets.sqlite3"
"""Under the home directory, unless `--state` or `[proxy] state` says otherwise."""
PRICE_FIELDS = ("input", "output", "cache_read", "cache_write")


def _number(where: str, value: object, *, whole: bool) -> float:
    if (
        not isinstance(value, bool)
        and isinstance(value, int | float)
        and value > 0
        and (isinstance(value, int) or not whole)
    ):
        return value
    kind = "a whole number" if whole else "a number"
    raise ProxyConfigError(f"{where} must be {kind} more than 0, not {value!r}")


def _limit(where: str, name: str, value: object) -> tuple[str, float]:
    if name not in DIMENSIONS:
        raise ProxyConfigError(f"{where} unknown budget {name!r} (known: {', '.join(DIMENSIONS)})")
    return name, _number(f"{where} {name}", value, whole=name in ("tokens", "requests"))


def _parsed(raw: str) -> object:
    """A flag's value as TOML would read it: a whole number, a number, else the text."""
    for kind in (int, float):
        try:
            return kind(raw)
        except ValueError:
            continue
    return raw


def _limits(given: Mapping[str, float]) -> Limits:
    tokens, requests = given.get("tokens"), given.get("requests")
    return Limits(
        tokens=None if tokens is None else int(tokens),
        requests=None if requests is None else int(requests),
        spend_usd=given.get("spend_usd"),
        minutes=given.get("minutes"),
    )


def _prices(where: str, tables: object) -> dict[str, Price]:
    if not isinstance(tables, dict):
        raise ProxyConfigError(f"{where} must be a table of models, not {tables!r}")
    out: dict[str, Price] = {}
    for model, table in tables.items():
        at = f"{where} {model!r}"
        if not isinstance(table, dict) or not {"input", "output"} <= set(table):
            raise ProxyConfigError(f"{at} must be a table with input and output (USD per million tokens)")
        unknown = sorted(set(table) - set(PRICE_FIELDS))
        if unknown:
            raise ProxyConfigError(f"{at}: unknown field {unknown[0]!r} (known: {', '.join(PRICE_FIELDS)})")
        values = {name: float(_number(f"{at} {name}", v, whole=False)) for name, v in table.items()}
        out[str(model)] = Price(**values)
    return out


def budget_config(
    proxy: Mapping[str, object],
    *,
    flags: Sequence[str] = (),
    state: Path | None = None,
    prices: Path | None = None,
    home: Path,
) -> BudgetConfig | None:
    """The budgets `[proxy]` settings and the flags set; None when they limit nothing."""
    given: dict[str, dict[str, float]] = {scope: {} for scope in SCOPES}
    tables = proxy.get("budget") or {}
    assert isinstance(tables, dict)  # the settings schema checked it is a table of tables
    for scope, table in tables.items():
        if scope not in SCOPES:
            raise ProxyConfigError(f"[proxy.budget.{scope}]: unknown scope (known: {', '.join(SCOPES)})")
        for name, value in table.items():
            checked, number = _limit(f"[proxy.budget.{scope}]", name, value)
            given[scope][checked] = number
    for flag in flags:
        target, _, raw = flag.partition("=")
        scope, _, name = target.partition(".")
        if scope not in SCOPES or not raw:
            raise ProxyConfigError(
                f"--budget {flag!r}: write SCOPE.NAME=VALUE, SCOPE one of {', '.join(SCOPES)}"
            )
        checked, number = _limit(f"--budget {flag!r}:", name, _parsed(raw))
        given[scope][checked] = number
    session, key = _limits(given["session"]), _limits(given["key"])
    if not (session.limited or key.limited):
        return None
    table = dict(BUILTIN_PRICES)
    table.update(_prices("[proxy.prices]", proxy.get("prices") or {}))
    if prices is not None:
        try:
            data = tomllib.loads(prices.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as error:
            raise ProxyConfigError(f"--prices {prices}: {error}") from None
        table.update(_prices(f"--prices {prices}:", data))
    where = state or proxy.get("state")
    path = Path(str(where)).expanduser() if where else home / STATE
    return BudgetConfig(session=session, key=key, state=path, prices=table)
