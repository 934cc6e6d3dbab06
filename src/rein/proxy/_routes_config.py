"""The route table from `--route GLOB=URL` flags and `[[proxy.route]]` settings; each problem is one line
naming the flag or the setting (`[[proxy.route]] 2: ...`, counted from 1)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from rein.proxy._config import ProxyConfigError, check_upstream
from rein.proxy._routes import ROUTE_APIS, Route

ROUTE_KEYS = ("model", "upstream", "key_env", "api", "timeout")


def load_routes(flags: Sequence[str], settings: object, env: Mapping[str, str]) -> tuple[Route, ...]:
    """The flags' routes, then the settings' (`proxy.route`, a list of tables), in the order written."""
    routes = [_flag(text) for text in flags]
    if settings is None:
        return tuple(routes)
    if not isinstance(settings, list) or not all(isinstance(item, dict) for item in settings):
        raise ProxyConfigError("[[proxy.route]]: write each route as a [[proxy.route]] table")
    for number, item in enumerate(settings, 1):
        routes.append(_table(f"[[proxy.route]] {number}", item, env))
    return tuple(routes)


def _flag(text: str) -> Route:
    glob, sep, url = text.partition("=")
    if not sep or not glob.strip():
        raise ProxyConfigError(f"--route {text!r}: write GLOB=URL (gpt-4.1*=https://api.openai.com/v1)")
    return Route(model=glob.strip(), upstream=_url(f"--route {text!r}", url.strip()))


def _table(where: str, item: Mapping[str, object], env: Mapping[str, str]) -> Route:
    unknown = sorted(set(item) - set(ROUTE_KEYS))
    if unknown:
        raise ProxyConfigError(f"{where}: unknown key {unknown[0]!r} (known: {', '.join(ROUTE_KEYS)})")
    model, upstream = item.get("model"), item.get("upstream")
    if not isinstance(model, str) or not model.strip():
        raise ProxyConfigError(f'{where} model: a glob of model ids is required (model = "gpt-4.1*")')
    if not isinstance(upstream, str):
        raise ProxyConfigError(f"{where} upstream: the API's base URL is required (a string)")
    key_env, key = item.get("key_env"), None
    if key_env is not None:
        if not isinstance(key_env, str) or not key_env:
            raise ProxyConfigError(f"{where} key_env: the name of an environment variable")
        key = env.get(key_env)
        if not key:
            raise ProxyConfigError(f"{where} key_env {key_env!r}: not set in the environment")
    api = item.get("api")
    if api is not None and api not in ROUTE_APIS:
        raise ProxyConfigError(f"{where} api {api!r}: use one of {', '.join(ROUTE_APIS)}")
    timeout = item.get("timeout")
    if timeout is not None and (
        isinstance(timeout, bool) or not isinstance(timeout, int | float) or timeout <= 0
    ):
        raise ProxyConfigError(f"{where} timeout {timeout!r}: seconds, more than 0")
    return Route(
        model=model.strip(),
        upstream=_url(f"{where} upstream", upstream),
        key_env=key_env,
        key=key,
        api=next((name for name in ROUTE_APIS if name == api), None),
        timeout=None if timeout is None else float(timeout),
    )


def _url(where: str, url: str) -> str:
    try:
        return check_upstream(url)
    except ProxyConfigError as error:
        # check_upstream names `--upstream`; say which route instead
        raise ProxyConfigError(f"{where}: {str(error).partition(': ')[2]}") from None
