"""The fork harness: the pi-server fork's own client driven against a server, its exchanges recorded.

Three pieces, none of the fork's code among them:

- `drive.ts` runs a ~50-step session through the fork's client modules (imported from the checkout
  named by REIN_PI_FORK) and prints, per step, what the client saw and its own
  `hashPiServerSessionEntries` of its entries beside the server's treeHash;
- `upstream.py` is the scripted model upstream both servers call;
- this module starts the fork's server from source, puts a recording proxy between the client and
  it, and writes every exchange to `tests/server/compat/recorded/client-session.json` (the format:
  `tests/server/compat/_recorded.py`), which `tests/server/test_recorded.py` replays against
  `rein serve` in CI without node.

To re-record (node 20.6 or later; REIN_PI_NODE may name a directory with the node binary to use):

    REIN_PI_FORK=/path/to/pi-client .venv/bin/python -m tests.server.fork.recorder

The checkout needs `npm ci --ignore-scripts`. At fork 54b1ac3 that fails on three `@averyyy/*`
packages the registry no longer has (pi-client's pinned coding-agent, pi-server's pi-ai and
pi-agent-core aliases), none of which the harness loads: drop their entries from a copy of
package-lock.json and of the two packages' `dependencies`, run `npm ci --ignore-scripts`, put the
three files back.

The fork's workspace packages are resolved to their TypeScript sources by `alias.mjs` (the fork's
vitest config does the same), so nothing is built. `tests/server/test_fork_live.py` runs the same
drive against `rein serve` itself when REIN_PI_FORK is set.

What varies between servers and is compared by type only: `varying.py`.
"""

from __future__ import annotations

import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from tests.server.compat._recorded import RECORDED, compact_text, read_body
from tests.server.fork.upstream import Upstream
from tests.server.fork.varying import mark_ignores, target
from tests.server.helpers import free_port

HERE = Path(__file__).parent
ALIAS = HERE / "alias.mjs"
DRIVE = HERE / "drive.ts"
OUT = RECORDED / "client-session.json"
TOKEN = "drive-token"
RECORDED_HEADERS = ("accept", "authorization", "content-type")
MAX_ANSWER = 200_000
"""Bytes of one recorded answer; the drive keeps big bodies out of answers."""

JsonObject = dict[str, object]


def tsx(fork: Path) -> list[str]:
    return [str(fork / "node_modules" / ".bin" / "tsx"), "--import", str(ALIAS)]


def fork_env(fork: Path, extra: Mapping[str, str]) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PI_", "OPENAI_", "ANTHROPIC_"))}
    node = os.environ.get("REIN_PI_NODE")  # a directory with the node binary to use
    if node:
        env["PATH"] = f"{node}{os.pathsep}{env.get('PATH', '')}"
    return {**env, "REIN_PI_FORK": str(fork), **extra}


class ForkServer:
    """The fork's server (packages/pi-server/src/cli.ts) on `port`, its sessions and uploads in
    `state`; `restart()` keeps both."""

    def __init__(self, fork: Path, port: int, state: Path, token: str) -> None:
        self.fork, self.port, self.state, self.token = fork, port, state, token
        self._process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        env = fork_env(self.fork, {
            "PI_SERVER_PORT": str(self.port), "PI_SERVER_AUTH_TOKEN": self.token,
            "PI_SERVER_SESSION_STORE_DIR": str(self.state / "sessions"),
            "PI_SERVER_UPLOAD_DIR": str(self.state / "uploads"), "OPENAI_API_KEY": "test",
        })  # fmt: skip
        command = [*tsx(self.fork), "packages/pi-server/src/cli.ts"]
        with (self.state / "server.log").open("ab") as log:  # the child keeps its own descriptor
            self._process = subprocess.Popen(command, cwd=self.fork, env=env, stdout=log, stderr=log)
        wait_for_port(self.port, self._process, self.state / "server.log")

    def stop(self) -> None:
        if self._process is not None and self._process.poll() is None:
            self._process.send_signal(signal.SIGTERM)
            try:
                self._process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait(timeout=10)

    def restart(self) -> None:
        self.stop()
        self.start()


def wait_for_port(port: int, process: subprocess.Popen[bytes], log: Path, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the server exited {process.returncode}: {log.read_text(errors='replace')}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError(f"nothing listened on {port} in {timeout} s: {log.read_text(errors='replace')}")


# the recording proxy ------------------------------------------------------------------------------


class RecordingProxy:
    """Forwards each request to 127.0.0.1:`target`, one at a time (so the order is the server's),
    streaming the answer back, and records the exchange with the upstream's fields."""

    def __init__(self, target: int, upstream: Upstream) -> None:
        self.target, self.upstream = target, upstream
        self.exchanges: list[JsonObject] = []
        self.lock = threading.Lock()
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:
                proxy.forward(self)

            do_POST = do_DELETE = do_GET

            def log_message(self, format: str, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def __enter__(self) -> RecordingProxy:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()

    def mark_restart(self) -> None:
        with self.lock:
            self.exchanges.append({"name": "restart", "restart": True})

    def forward(self, handler: BaseHTTPRequestHandler) -> None:
        length = int(handler.headers.get("content-length") or 0)
        body = handler.rfile.read(length)
        step = handler.headers.get("x-rein-step", "")
        headers = {k.lower(): v for k, v in handler.headers.items() if k.lower() in RECORDED_HEADERS}
        with self.lock:
            self.upstream.take()
            connection = http.client.HTTPConnection("127.0.0.1", self.target, timeout=120)
            started = time.monotonic()
            connection.request(handler.command, handler.path, body if length else None, headers)
            answer = connection.getresponse()
            content_type = answer.getheader("content-type", "")
            handler.send_response(answer.status)
            handler.send_header("Content-Type", content_type)
            handler.send_header("Transfer-Encoding", "chunked")
            handler.send_header("Connection", "close")
            handler.end_headers()
            chunks, first = [], None
            while data := answer.read1(65536):
                first = first if first is not None else time.monotonic() - started
                chunks.append(data)
                handler.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
                handler.wfile.flush()
            handler.wfile.write(b"0\r\n\r\n")
            connection.close()
            raw = b"".join(chunks)
            assert len(raw) <= MAX_ANSWER, f"{step} {handler.path}: a {len(raw)}-byte answer"
            kind, value = read_body(content_type, raw)
            response: JsonObject = {"status": answer.status, "contentType": content_type, kind: value}
            compaction = kind == "sse" and target(handler.path, body) == "/api/session/compact"
            if compaction and first is not None and first < 1.0:
                response["firstByteWithinMs"] = 1000  # a proxy's read timeout must not cut it
            self.exchanges.append({
                "name": step, "request": {
                    "method": handler.command, "path": handler.path, "headers": headers,
                    "body": compact_text(body.decode("utf-8")),
                }, "response": response, "upstream": self.upstream.take(),
            })  # fmt: skip


# running the drive --------------------------------------------------------------------------------


def run_drive(
    fork: Path,
    url: str,
    upstream_url: str,
    restart: Callable[[], None],
    scratch: Path,
    on_step: Callable[[str], None] = lambda name: None,
) -> JsonObject:
    """Run drive.ts against `url`, calling `restart()` and `on_step(name)` when it says so; its
    result document."""
    env = fork_env(fork, {
        "PI_SERVER_URL": url, "PI_SERVER_AUTH_TOKEN": TOKEN, "UPSTREAM_BASE_URL": upstream_url,
        "DRIVE_TMP": str(scratch),
    })  # fmt: skip
    command = [*tsx(fork), str(DRIVE)]
    result: JsonObject | None = None
    with (
        (scratch / "drive.err").open("wb") as stderr,
        subprocess.Popen(
            command, cwd=fork, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr
        ) as process,
    ):
        assert process.stdin is not None and process.stdout is not None
        for line in process.stdout:
            text = line.decode().rstrip("\n")
            if text.startswith("@@result "):
                result = json.loads(text[len("@@result ") :])
            elif text.startswith("@@"):
                asked, _, argument = text[2:].partition(" ")
                if asked == "restart":
                    restart()
                else:
                    on_step(argument)
                process.stdin.write(b"ok\n")
                process.stdin.flush()
    if process.returncode != 0 or result is None:
        log = (scratch / "drive.err").read_text(errors="replace")
        raise RuntimeError(f"drive.ts exited {process.returncode}: {log[-4000:]}")
    return result


# recording ----------------------------------------------------------------------------------------


@contextmanager
def fork_server(fork: Path, state: Path) -> Iterator[ForkServer]:
    server = ForkServer(fork, free_port(), state, TOKEN)
    server.start()
    try:
        yield server
    finally:
        server.stop()


def record(fork: Path, out: Path = OUT) -> None:
    commit = subprocess.run(
        ["git", "-C", str(fork), "rev-parse", "HEAD"], capture_output=True, text=True, check=True
    ).stdout.strip()
    with tempfile.TemporaryDirectory(prefix="rein-fork-") as tmp:
        state = Path(tmp)
        with (
            Upstream() as upstream,
            fork_server(fork, state) as server,
            RecordingProxy(server.port, upstream) as proxy,
        ):

            def restart() -> None:
                with proxy.lock:
                    server.restart()
                proxy.mark_restart()

            client = run_drive(fork, proxy.url, upstream.base_url, restart, state)
    exchanges = proxy.exchanges
    mark_ignores(exchanges)
    document = {
        "doc": "The fork's own client (pi-server-client.ts, pi-server-request.ts, pi-client send) driven "
        "through tests/server/fork/drive.ts against the fork's server: every route the client calls, "
        "the divergence codes, chunked bodies over 512 KB, run recovery and replay, compaction, "
        "uploads, a restart. `client` is what the client saw on the fork, per step.",
        "source": {
            "fork": commit,
            "how": "REIN_PI_FORK=<checkout> python -m tests.server.fork.recorder (see its docstring)",
        },
        "client": client,
        "exchanges": exchanges,
    }
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(document, indent=1) + "\n", encoding="utf-8")
    steps = client.get("steps")
    print(f"recorded {len(exchanges)} exchanges, {len(steps) if isinstance(steps, list) else 0} steps: {out}")


def main() -> None:
    fork = os.environ.get("REIN_PI_FORK")
    if not fork:
        sys.exit("REIN_PI_FORK must name a checkout of the pi-server fork (with node_modules)")
    record(Path(fork).resolve())


if __name__ == "__main__":
    main()
