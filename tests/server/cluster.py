"""A cluster as docs/server.md deploys it: N `rein serve` processes on one PostgreSQL database behind
one nginx, whose config is the nginx block of the docs' "Deployment" section (read from the page, so
the docs and the tests cannot drift), with the node addresses and the listen port filled in.

    with running_cluster(tmp_path, db=new_database(pg_url)) as cluster:
        httpx2.get(f"{cluster.url}/api/sessions")        # through nginx
        cluster.kill9(0)                                  # a crash of node 0
        cluster.start(0)                                  # the same node again, on the same port

nginx runs unprivileged-safe from files in `tmp` (`daemon off`, its pid, error log and temp paths
there, no access log); under root its workers stay root, so they can write those paths.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path

import httpx2
import pytest

from rein.protocol import js_json
from tests.server.helpers import free_port, kill9, running_server, server_log

DOCS = Path(__file__).resolve().parents[2] / "docs" / "server.md"
MARKER = "<!-- cluster-nginx-config:"
DOCS_NODES = 3
"""The docs' upstream lists three nodes; the tests put as many as they run in their place."""
NGINX_CANDIDATES = ("nginx", "/usr/sbin/nginx")
INSTALL_HINT = "install Debian's nginx package (.ci/run does)"
STARTUP_TIMEOUT = 15.0
STOP_TIMEOUT = 10.0
SERVER_LINE = re.compile(
    r"^(?P<indent>[ \t]*)server[ \t]+(?P<address>[^\s;]+)(?P<params>[^;\n]*);[^\n]*\n", re.M
)
LISTEN_LINE = re.compile(r"^(?P<indent>[ \t]*)listen[ \t]+80;", re.M)


def nginx_binary() -> str:
    """nginx's path, or the test is skipped naming the package."""
    for candidate in NGINX_CANDIDATES:
        found = shutil.which(candidate)
        if found:
            return found
    pytest.skip(f"nginx is missing: {INSTALL_HINT}")


def docs_block(docs: Path = DOCS) -> str:
    """The nginx block right after the marker in docs/server.md."""
    text = docs.read_text(encoding="utf-8")
    start = text.find(MARKER)
    if start < 0:
        raise AssertionError(f"{docs}: no {MARKER!r} marker before the cluster's nginx block")
    fence = text.find("```nginx\n", start)
    end = text.find("\n```", fence + 1)
    if fence < 0 or end < 0 or text.find("```", start, fence) >= 0:
        raise AssertionError(f"{docs}: the marker is not followed by a ```nginx fenced block")
    return text[fence + len("```nginx\n") : end + 1]


def site_config(block: str, nodes: Sequence[str], port: int) -> str:
    """The docs' block for these nodes (`host:port`) and this listen port on 127.0.0.1: its upstream's
    three `server` lines become one per node with the docs' parameters, `listen 80;` the port."""
    servers = list(SERVER_LINE.finditer(block))
    if len(servers) != DOCS_NODES:
        raise AssertionError(f"the docs' upstream has {len(servers)} `server` lines, not {DOCS_NODES}")
    if len(LISTEN_LINE.findall(block)) != 1:
        raise AssertionError("the docs' nginx block has no single `listen 80;` line")
    first = servers[0]
    lines = "".join(f"{first['indent']}server {node}{first['params']};\n" for node in nodes)
    block = block[: first.start()] + lines + block[servers[-1].end() :]
    return LISTEN_LINE.sub(lambda m: f"{m['indent']}listen 127.0.0.1:{port};", block)


def main_config(root: Path, site: Path) -> str:
    """nginx's main file around the docs' block: foreground, everything it writes under `root`."""
    temp = "\n".join(
        f"    {name}_temp_path {root / name};"
        for name in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    )
    user = "user root;\n" if os.geteuid() == 0 else ""  # unprivileged workers could not write `root`
    return (
        f"daemon off;\n{user}worker_processes 1;\npid {root / 'nginx.pid'};\n"
        f"error_log {root / 'error.log'} warn;\nevents {{\n    worker_connections 1024;\n}}\n"
        f"http {{\n    access_log off;\n{temp}\n    include {site};\n}}\n"
    )


@contextmanager
def running_nginx(root: Path, nodes: Sequence[str]) -> Iterator[str]:
    """nginx in front of `nodes` (`host:port`), configured from the docs; yields its base URL."""
    binary = nginx_binary()
    root.mkdir(parents=True, exist_ok=True)
    port = free_port()
    site, main = root / "rein.conf", root / "nginx.conf"
    site.write_text(site_config(docs_block(), nodes, port), encoding="utf-8")
    main.write_text(main_config(root, site), encoding="utf-8")
    log = root / "error.log"
    argv = [binary, "-p", str(root), "-c", str(main), "-e", str(log)]
    check = subprocess.run([*argv, "-t"], capture_output=True, text=True, timeout=30, check=False)
    assert check.returncode == 0, f"nginx -t refused the docs' config: {check.stderr}"
    with (root / "nginx.out").open("wb") as out:
        process = subprocess.Popen(argv, stdout=out, stderr=subprocess.STDOUT)
    try:
        _wait_for_port(process, port, log)
        yield f"http://127.0.0.1:{port}"
    finally:
        _stop(process, signal.SIGTERM)


def _wait_for_port(process: subprocess.Popen[bytes], port: int, log: Path) -> None:
    deadline = time.monotonic() + STARTUP_TIMEOUT
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"nginx exited {process.returncode}: {log.read_text(errors='replace')}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            time.sleep(0.02)
    raise RuntimeError(f"nginx did not listen on {port} in {STARTUP_TIMEOUT} s")


def _stop(process: subprocess.Popen[bytes], sig: signal.Signals) -> None:
    if process.poll() is not None:
        return
    process.send_signal(sig)
    try:
        process.wait(timeout=STOP_TIMEOUT)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=STOP_TIMEOUT)


class Cluster:
    """N nodes and their balancer. `url` is nginx; `nodes[i]` is node i's own URL, which stays the
    same across `kill9(i)` / `stop(i)` and `start(i)` (each node keeps its port)."""

    def __init__(
        self, tmp: Path, ports: Sequence[int], db: str, env: Mapping[str, str | None], args: Sequence[str]
    ) -> None:
        self.tmp, self.ports, self.db, self.env, self.args = tmp, list(ports), db, dict(env), list(args)
        self.nodes = [f"http://127.0.0.1:{port}" for port in ports]
        self.url = ""
        self._running: list[AbstractContextManager[str] | None] = [None] * len(ports)

    def start(self, index: int) -> None:
        """Start node `index` (again) and wait until its `/health` answers."""
        if self._running[index] is not None:
            self.stop(index)
        args = [*self.args, "--port", str(self.ports[index])]
        context = running_server(self.tmp / f"node{index}", db=self.db, env=self.env, args=args)
        url = context.__enter__()
        assert url == self.nodes[index], (url, self.nodes[index])
        self._running[index] = context

    def kill9(self, index: int) -> None:
        """SIGKILL node `index`: a crash, no shutdown code runs."""
        kill9(self.nodes[index])
        self.stop(index)

    def stop(self, index: int) -> None:
        """Stop node `index` (SIGTERM, its drain, then SIGKILL after 10 s); a no-op if it is down."""
        context, self._running[index] = self._running[index], None
        if context is not None:
            context.__exit__(None, None, None)

    def up(self, index: int) -> bool:
        return self._running[index] is not None

    def logs(self) -> str:
        """Every running node's stderr and nginx's error log, for a failure's message."""
        parts = [f"--- node {i} ---\n{server_log(url)}" for i, url in enumerate(self.nodes) if self.up(i)]
        log = self.tmp / "nginx" / "error.log"
        if log.exists():
            parts.append(f"--- nginx ---\n{log.read_text(errors='replace')}")
        return "\n".join(parts)


@contextmanager
def running_cluster(
    tmp: Path,
    *,
    db: str,
    n: int = 3,
    env: Mapping[str, str | None] | None = None,
    args: Sequence[str] = (),
) -> Iterator[Cluster]:
    """`n` `rein serve` processes on the database `db` behind nginx, started at once and stopped at
    once (nginx first) at the end."""
    cluster = Cluster(tmp, [free_port() for _ in range(n)], db, env or {}, args)
    try:
        with ThreadPoolExecutor(n) as pool:
            for started in [pool.submit(cluster.start, i) for i in range(n)]:
                started.result()
        nodes = [url.removeprefix("http://") for url in cluster.nodes]
        with running_nginx(tmp / "nginx", nodes) as url:
            cluster.url = url
            yield cluster
    finally:
        with ThreadPoolExecutor(n) as pool:  # at once: each stop may wait out its node's drain
            list(pool.map(cluster.stop, range(n)))


# a client as a real one behaves behind a balancer: resend what failed, the protocol's writes being
# idempotent (an append already stored is a no-op, a chunk already received is only acknowledged)

RETRYABLE = frozenset({409, 429, 500, 502, 503, 504})
"""409 is a write fenced by another node's, 500 a store that is away: both pass."""
JSON_HEADERS = {"Content-Type": "application/json"}


class GaveUp(AssertionError):
    """A request that found no working node within its deadline: the cluster hung or lost a node's
    work for good."""


def send(
    client: httpx2.Client,
    path: str,
    body: object | None = None,
    *,
    deadline: float = 30.0,
    pause: float = 0.05,
) -> httpx2.Response:
    """POST `body` (GET without one) until an answer that is not worth retrying; raises GaveUp after
    `deadline` seconds of failures, naming the last one."""
    give_up = time.monotonic() + deadline
    wait = pause
    while True:
        try:
            if body is None:
                answer = client.get(path)
            else:
                answer = client.post(path, content=js_json(body).encode(), headers=JSON_HEADERS)
            if answer.status_code not in RETRYABLE:
                return answer
            last = f"{answer.status_code} {answer.text[:300]}"
        except httpx2.TransportError as error:
            last = f"{type(error).__name__}: {error}"
        if time.monotonic() + wait > give_up:
            raise GaveUp(f"{path}: no answer in {deadline} s; last: {last}")
        time.sleep(wait)
        wait = min(wait * 2, 1.0)
