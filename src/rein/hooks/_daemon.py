"""The per-user hook daemon: answers `rein hook HOST EVENT` calls with the engine already loaded.

    rein hook claude pre-tool-use  ─(unix socket, JSON)─►  serve(): handle(host, event, stdin)

One daemon serves one interpreter, rein install and home directory (`_client.identity`), on a socket
in a private directory (0700, owned by the user; the daemon refuses any other, and every peer whose
uid is not its own). It answers exactly as the in-process hook would (`_run.handle`), with two
things kept warm: the imported engine, and the built policy of each directory, rebuilt when any of
its config files changes (path, size, mtime, inode). It exits when its code changes on disk (an
upgrade or an edit: the next call answers in-process and starts a fresh daemon), when asked
(`rein hook daemon stop`), or after `IDLE` seconds without a call. One request per connection,
answered in turn; a lock file keeps a second daemon for the same socket from starting.
"""

from __future__ import annotations

import contextlib
import fcntl
import importlib
import json
import os
import socket
import struct
import sys
import time
import tomllib
from collections import OrderedDict
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import cast

from rein.diskio import signature
from rein.hooks import HOSTS
from rein.hooks._client import LIMIT, PROTOCOL, identity, private, runtime_dir, socket_path
from rein.hooks._run import Answer, Event, handle
from rein.steering import Built, load_policy
from rein.steering.config import config_files

IDLE = 1800.0
"""Seconds without a call after which the daemon exits (`REIN_HOOK_DAEMON_IDLE`)."""
CACHED = 64
"""Built policies kept, most recently used first."""
READ_TIMEOUT = 5.0
LOOK = 30.0
"""Seconds between looks, while idle, at whether the socket and the home directory are still there."""


class Policies:
    """`load_policy`, remembered per set of config files and rebuilt when one of them, or a plugin
    they name (a `.py` file or a module), changes: the daemon decides as a fresh process would."""

    def __init__(self) -> None:
        self._built: OrderedDict[tuple[object, ...], tuple[Built, Watched]] = OrderedDict()

    def __call__(self, cwd: Path, home: Path) -> Built:
        files = config_files(cwd, home)
        key = tuple(signature(path) for path in files)
        cached = self._built.get(key)
        if cached is None or any(signature(path) != seen for path, seen in cached[1].files):
            for name in cached[1].modules if cached else ():
                sys.modules.pop(name, None)  # a changed module plugin is imported again
            built = load_policy(cwd, home)
            cached = (built, _watched(files))
            self._built[key] = cached
            if len(self._built) > CACHED:
                self._built.popitem(last=False)
        self._built.move_to_end(key)
        return cached[0]

    def __len__(self) -> int:
        return len(self._built)


@dataclass(frozen=True, slots=True)
class Watched:
    files: tuple[tuple[Path, tuple[object, ...]], ...]
    """Each plugin's source file with its signature when the policy was built."""
    modules: tuple[str, ...]
    """The module plugins' names, dropped from `sys.modules` before a rebuild."""


def _watched(configs: list[Path]) -> Watched:
    """The plugins the config files name (`plugins = [...]`): `.py` files relative to the file's
    directory, and modules, by the source file they were imported from."""
    files: list[Path] = []
    modules: list[str] = []
    for config in configs:
        try:
            plugins = tomllib.loads(config.read_text(encoding="utf-8")).get("plugins", [])
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
            continue  # load_policy has reported it
        for spec in plugins if isinstance(plugins, list) else []:
            if not isinstance(spec, str):
                continue
            if spec.endswith(".py"):
                files.append((config.parent / spec).resolve())
                continue
            modules.append(spec)
            source = getattr(sys.modules.get(spec), "__file__", None)
            if isinstance(source, str):
                files.append(Path(source))
    return Watched(files=tuple((path, signature(path)) for path in files), modules=tuple(modules))


ROOT = str(Path(__file__).resolve().parents[1])


def _loaded() -> dict[str, int | None]:
    """The source file of every rein module this process has loaded, with its mtime (None: gone)."""
    stamps: dict[str, int | None] = {}
    for module in list(sys.modules.values()):
        path = getattr(module, "__file__", None)
        if isinstance(path, str) and path.startswith(ROOT):
            try:
                stamps[path] = Path(path).stat().st_mtime_ns
            except OSError:
                stamps[path] = None
    return stamps


class Daemon:
    def __init__(self, home: str) -> None:
        self.home = home
        self.identity = identity(home)
        self.policies = Policies()
        self.code = _loaded()
        self.checked = time.monotonic()
        self.started = time.time()
        self.served = 0

    def stale(self) -> bool:
        """Whether the code of a rein module it runs changed on disk (checked at most once a second)."""
        now = time.monotonic()
        if now - self.checked < 1.0:
            return False
        self.checked = now
        loaded = _loaded()
        if any(self.code.get(path, stamp) != stamp for path, stamp in loaded.items()):
            return True
        self.code = loaded
        return False

    def respond(self, request: Mapping[str, object]) -> dict[str, object] | None:
        """The answer to one request, or None to close without one (the client then answers)."""
        if request.get("v") != PROTOCOL or any(request.get(k) != v for k, v in self.identity.items()):
            return None
        op = request.get("op")
        if op == "status":
            return {
                "pid": os.getpid(),
                "started": self.started,
                "served": self.served,
                "policies": len(self.policies),
            }
        if op == "stop":
            return {"stopping": True}
        host, name, stdin = request.get("host"), request.get("event"), request.get("stdin")
        if op != "hook" or not isinstance(stdin, str) or not isinstance(host, str) or host not in HOSTS:
            return None
        events = cast(Mapping[str, Event], importlib.import_module(HOSTS[host]).EVENTS)
        event = events.get(str(name))
        if event is None:
            return None  # the in-process path prints the usage error
        answer: Answer = handle(host, event, stdin, home=Path(self.home), policies=self.policies)
        self.served += 1
        return {"stdout": answer.stdout, "stderr": answer.stderr, "code": answer.code}


def _peer_uid(conn: socket.socket) -> int | None:
    try:
        raw = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    except (OSError, AttributeError):  # no SO_PEERCRED (not Linux): the private directory must do
        return os.getuid()
    return int(struct.unpack("3i", raw)[1])


def _read(conn: socket.socket) -> Mapping[str, object] | None:
    conn.settimeout(READ_TIMEOUT)
    chunks: list[bytes] = []
    size = 0
    while chunk := conn.recv(65536):
        chunks.append(chunk)
        size += len(chunk)
        if size > LIMIT:
            return None
    value = json.loads(b"".join(chunks))
    return cast(Mapping[str, object], value) if isinstance(value, dict) else None


@contextlib.contextmanager
def _listening(home: str) -> Iterator[socket.socket | None]:
    """The bound socket, or None when the directory is not private or another daemon holds the lock."""
    directory = runtime_dir()
    with contextlib.suppress(FileExistsError):
        Path(directory).mkdir(mode=0o700, parents=True)
    if not private(directory):
        yield None
        return
    path = Path(socket_path(home))
    with path.with_suffix(".lock").open("w") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield None
            return
        path.unlink(missing_ok=True)
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as server:
            server.bind(str(path))
            path.chmod(0o600)
            server.listen(64)
            try:
                yield server
            finally:
                path.unlink(missing_ok=True)


def _still_ours(home: str, bound: int) -> bool:
    """Whether the home directory exists and the socket path is still this daemon's socket (a removed
    runtime directory or home, as a test's clean-up leaves, ends the daemon)."""
    try:
        return Path(home).is_dir() and Path(socket_path(home)).stat().st_ino == bound
    except OSError:
        return False


def serve(home: str, idle: float = IDLE) -> int:
    """Run the daemon for `home` until it is stopped, idle or stale. 0 when it served, 1 when it could
    not start (the directory is not private, or a daemon already runs)."""
    with _listening(home) as server:
        if server is None:
            return 1
        daemon = Daemon(home)
        bound = Path(socket_path(home)).stat().st_ino
        server.settimeout(min(idle, LOOK))
        last = time.monotonic()
        while True:
            try:
                conn, _ = server.accept()
            except TimeoutError:
                if time.monotonic() - last >= idle or not _still_ours(home, bound):
                    return 0
                continue
            last = time.monotonic()
            with conn:
                if _peer_uid(conn) != os.getuid():
                    continue
                try:
                    request = _read(conn)
                except (OSError, ValueError):
                    continue
                if daemon.stale():
                    return 0  # closing unanswered: the client answers in-process
                reply = daemon.respond(request) if request is not None else None
                if reply is not None:
                    with contextlib.suppress(OSError):
                        conn.sendall(json.dumps(reply).encode())
                if reply is not None and reply.get("stopping"):
                    return 0
