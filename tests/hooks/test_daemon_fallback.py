"""The fast path fails closed: a daemon that hangs, answers garbage or sits in a directory that is not
private is not believed, and the hook answers in its own process (a blocked command stays blocked).

A fake daemon in this test listens on the real daemon's socket path and holds its lock file, so the
daemon a falling-back hook call starts cannot take its place.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import select
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from rein.hooks._client import socket_path
from tests.hooks._daemon_rig import DEADLINE, Rig, daemons, rigged, wait_gone

pytestmark = pytest.mark.slow

ALLOW = json.dumps({"stdout": "", "stderr": "", "code": 0}).encode()
"""A well-formed answer that allows the call: what a fake daemon must never get to say unheard."""


@pytest.fixture
def rig(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Rig]:
    yield from rigged(tmp_path, monkeypatch)


class Fake:
    """A unix server on the daemon's socket path: answers each request with `reply`, or with None
    reads the request and never answers (it notes when the client hangs up)."""

    def __init__(self, path: str, reply: bytes | None) -> None:
        self.path = path
        self.reply = reply
        self.requests: list[dict[str, object]] = []
        self.received = threading.Event()
        self.hung_up = threading.Event()
        self.times: dict[str, float] = {}
        self._stop = threading.Event()
        self._lock = Path(path).with_suffix(".lock").open("w")
        fcntl.flock(self._lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        self._server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._server.bind(path)
        self._server.listen(8)
        self._server.settimeout(0.05)  # so the loop sees `_stop`
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self._server.accept()
            except TimeoutError:
                continue
            with conn:
                conn.settimeout(30)
                data = b""
                while chunk := conn.recv(65536):
                    data += chunk
                self.requests.append(json.loads(data))
                self.times["received"] = time.monotonic()
                self.received.set()
                if self.reply is None:
                    # the client shut its side for writing already; POLLHUP comes when it closes
                    waiting = select.poll()
                    waiting.register(conn, select.POLLHUP)
                    if waiting.poll(DEADLINE * 1000):
                        self.times["hung up"] = time.monotonic()
                        self.hung_up.set()
                else:
                    conn.sendall(self.reply)

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=DEADLINE)
        self._server.close()
        self._lock.close()


@contextlib.contextmanager
def fake(rig: Rig, reply: bytes | None) -> Iterator[Fake]:
    server = Fake(socket_path(str(rig.home)), reply)
    try:
        yield server
    finally:
        server.close()


def force_push(rig: Rig) -> dict[str, object]:
    return {
        "session_id": "s",
        "cwd": str(rig.home),
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "git push --force origin main"},
        "tool_use_id": "t",
    }


def outcome(done: subprocess.CompletedProcess[str]) -> tuple[str, str, int]:
    return done.stdout, done.stderr, done.returncode


def in_process(rig: Rig) -> tuple[str, str, int]:
    done = rig.hook("claude", "pre-tool-use", force_push(rig), REIN_HOOK_DAEMON="off")
    assert "[steering:no-force-push@defaults]" in done.stdout and done.returncode == 0
    return outcome(done)


def test_a_daemon_that_does_not_answer_in_its_budget_is_not_waited_for(rig: Rig) -> None:
    denied = in_process(rig)
    with fake(rig, None) as server:
        done = rig.hook("claude", "pre-tool-use", force_push(rig), REIN_HOOK_DAEMON_TIMEOUT="0.3")
        assert outcome(done) == denied
        assert server.hung_up.wait(DEADLINE)
    [request] = server.requests
    assert (request["op"], request["host"], request["event"]) == ("hook", "claude", "pre-tool-use")
    assert json.loads(str(request["stdin"])) == force_push(rig)
    waited = server.times["hung up"] - server.times["received"]
    assert 0.2 < waited < 1.5  # the budget asked for, not the 2 s default


@pytest.mark.parametrize(
    "reply",
    [
        b"",
        b"not json",
        b"[]",
        b'"allow"',
        b'{"stdout": "", "stderr": "", "code": 0',
        b'{"stdout": "", "stderr": ""}',
        b'{"stdout": "", "stderr": "", "code": true}',
        b'{"stdout": "", "stderr": "", "code": "0"}',
        b'{"stdout": "", "stderr": "", "code": 0.0}',
        b'{"stdout": null, "stderr": "", "code": 0}',
        b'{"stdout": "", "stderr": 0, "code": 0}',
        b'{"allow": true}',
    ],
)
def test_a_garbled_answer_is_not_believed(rig: Rig, reply: bytes) -> None:
    denied = in_process(rig)
    with fake(rig, reply) as server:
        assert outcome(rig.hook("claude", "pre-tool-use", force_push(rig))) == denied
        assert len(server.requests) == 1


def test_a_well_formed_answer_is_used_so_the_fake_is_where_the_client_looks(rig: Rig) -> None:
    with fake(rig, ALLOW) as server:
        assert outcome(rig.hook("claude", "pre-tool-use", force_push(rig))) == ("", "", 0)
        assert len(server.requests) == 1


def test_a_runtime_directory_others_can_enter_is_not_used(rig: Rig) -> None:
    denied = in_process(rig)
    with fake(rig, ALLOW) as server:
        rig.runtime.chmod(0o755)
        assert outcome(rig.hook("claude", "pre-tool-use", force_push(rig))) == denied
        wait_gone(rig.runtime)  # the daemon that call started refused the directory
        started = rig.rein("hook", "daemon", "run")  # what that call started in the background
        assert started.returncode == 1
        assert Path(server.path).is_socket()  # left as it was: that daemon did not replace it
        assert server.requests == []


def test_a_runtime_directory_that_is_a_link_is_not_used(rig: Rig) -> None:
    denied = in_process(rig)
    link = rig.runtime / "link"  # inside the runtime directory, so the rig's cleanup covers it
    link.symlink_to(rig.runtime)
    with fake(rig, ALLOW) as server:
        done = rig.hook("claude", "pre-tool-use", force_push(rig), REIN_RUNTIME_DIR=str(link))
        assert outcome(done) == denied
        assert server.requests == []
        wait_gone(link)  # the daemon that call started refused the link and exited
    assert link.is_symlink()


def test_turned_off_the_daemon_is_neither_asked_nor_started(rig: Rig) -> None:
    with fake(rig, ALLOW) as server:
        done = rig.hook("claude", "pre-tool-use", force_push(rig), REIN_HOOK_DAEMON="off")
        assert "[steering:no-force-push@defaults]" in done.stdout
        assert server.requests == []
    assert daemons(rig.runtime) == []  # a hook starts its daemon before it exits, so none was
    rig.hook("claude", "pre-tool-use", force_push(rig))
    assert len(daemons(rig.runtime)) == 1  # the control: switched on, the same call starts one
    off = rig.rein("hook", "daemon", "start", extra={"REIN_HOOK_DAEMON": "off"})
    assert off.returncode == 1
    assert off.stdout == "rein hook daemon: the hook daemon is turned off (REIN_HOOK_DAEMON=off)\n"


def test_the_runtime_directory_is_made_private(rig: Rig) -> None:
    rig.runtime.rmdir()
    assert rig.rein("hook", "daemon", "start").returncode == 0
    assert rig.runtime.stat().st_mode & 0o777 == 0o700
    assert Path(rig.running().socket).stat().st_mode & 0o777 == 0o600
