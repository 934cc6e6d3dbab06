"""Where a request goes upstream and which headers cross the proxy, each way."""

from __future__ import annotations

from collections.abc import Iterable
from urllib.parse import urlsplit

HOP_BY_HOP = frozenset(
    ("connection", "keep-alive", "proxy-authenticate", "proxy-authorization", "te", "trailer",
     "trailers", "transfer-encoding", "upgrade", "host", "content-length")
)  # fmt: skip


def upstream_url(base: str, path: str, query: str = "") -> str:
    """`base` + the client's path; a `/v1` in both is said once (`--upstream http://x/v1` and an SDK
    whose base URL is the proxy's `/v1` agree)."""
    if urlsplit(base).path.endswith("/v1") and (path == "/v1" or path.startswith("/v1/")):
        path = path[3:]
    return base + path + (f"?{query}" if query else "")


def request_headers(headers: Iterable[tuple[bytes, bytes]], *, decoded: bool) -> list[tuple[str, str]]:
    """The client's headers for upstream: keys pass through; hop-by-hop and `x-rein-*` do not. When the
    proxy reads the reply (`decoded`), it asks for it uncompressed."""
    out: list[tuple[str, str]] = []
    for raw_name, raw_value in headers:
        name = raw_name.decode("latin-1").lower()
        if name in HOP_BY_HOP or name.startswith("x-rein-") or (decoded and name == "accept-encoding"):
            continue
        out.append((name, raw_value.decode("latin-1")))
    if decoded:
        out.append(("accept-encoding", "identity"))
    return out


def response_headers(headers: Iterable[tuple[str, str]], *, decoded: bool) -> list[tuple[bytes, bytes]]:
    """Upstream's headers for the client; `decoded`: the body was decoded (or rewritten), so its
    encoding and length no longer hold."""
    out: list[tuple[bytes, bytes]] = []
    for name, value in headers:
        lower = name.lower()
        if lower in HOP_BY_HOP or (decoded and lower == "content-encoding"):
            continue
        out.append((lower.encode("latin-1"), value.encode("latin-1")))
    return out


def rebase(raw_path: str, base_path: str, base: str) -> str:
    """A URL the proxy built with `upstream_url` for one upstream, whose path is `base_path` and which gave
    `raw_path` (path and query), built for another, `base`. A client path under `/v1` is assumed where the
    `/v1` was said once (the SDKs' base URLs end in `/v1`, or the Anthropic SDK adds it)."""
    rest = raw_path[len(base_path) :] if raw_path.startswith(base_path) else raw_path
    path, _, query = rest.partition("?")
    if base_path.endswith("/v1"):
        path = "/v1" + path
    return upstream_url(base, path, query)
