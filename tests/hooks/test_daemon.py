"""The hook daemon, run for real: a hook call with no daemon answers in-process and starts one; later
calls are answered by the daemon, byte for byte as the in-process hook answers them."""

from __future__ import annotations

import json
import socket
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from rein.hooks import HOSTS
from rein.hooks._client import PROTOCOL, identity, socket_path
from rein.hooks._daemon import Daemon
from tests.hooks._daemon_rig import Rig, rigged

pytestmark = pytest.mark.slow

DENIED = "git reset --hard HEAD~1"
TAG = "[steering:no-reset-hard@defaults]"


@pytest.fixture
def rig(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Rig]:
    yield from rigged(tmp_path, monkeypatch)


def pre_tool(host: str, command: str, cwd: Path, session: str = "s-1") -> tuple[str, dict[str, object]]:
    """The event and payload of a shell call in `host`'s documented shape."""
    if host == "cursor":
        return "before-shell-execution", {
            "conversation_id": session,
            "generation_id": "g-1",
            "hook_event_name": "beforeShellExecution",
            "workspace_roots": [str(cwd)],
            "command": command,
            "cwd": str(cwd),
        }
    common = {"session_id": session, "cwd": str(cwd), "tool_input": {"command": command}}
    if host == "gemini":
        return "before-tool", {**common, "hook_event_name": "BeforeTool", "tool_name": "run_shell_command"}
    return "pre-tool-use", {
        **common,
        "hook_event_name": "PreToolUse",
        "tool_name": "Bash",
        "tool_use_id": "t",
    }


def outcome(done: subprocess.CompletedProcess[str]) -> tuple[str, str, int]:
    return done.stdout, done.stderr, done.returncode


def through_daemon(rig: Rig, host: str, event: str, stdin: dict[str, object] | str) -> tuple[str, str, int]:
    """One call answered by the daemon (its `served` count grows by one), checked byte for byte against
    the same call answered in-process."""
    expected = outcome(rig.hook(host, event, stdin, REIN_HOOK_DAEMON="off"))
    before = rig.served()
    got = outcome(rig.hook(host, event, stdin))
    assert rig.served() == before + 1, f"{host} {event}: not answered by the daemon"
    assert got == expected
    return got


def test_a_first_call_answers_in_process_and_starts_the_daemon_that_answers_the_next(rig: Rig) -> None:
    assert rig.status() is None
    event, body = pre_tool("claude", DENIED, rig.project)
    first = rig.hook("claude", event, body)
    assert first.returncode == 0 and TAG in first.stdout
    running = rig.running()
    assert running.served == 0  # the first answer came from the hook's own process
    assert Path(running.socket).parent == rig.runtime
    second = rig.hook("claude", event, body)
    assert outcome(second) == outcome(first)
    after = rig.running()
    assert (after.pid, after.served) == (running.pid, 1)


def test_every_host_gets_the_in_process_answer_from_the_daemon(rig: Rig) -> None:
    broken = rig.home / "broken"
    (broken / ".rein").mkdir(parents=True)
    (broken / ".rein" / "steering.toml").write_text("[[rule]\nname = 'x'\n")
    assert rig.rein("hook", "daemon", "start").returncode == 0
    for host in HOSTS:
        event, allowed = pre_tool(host, "ls -la", rig.project)
        _, denied = pre_tool(host, DENIED, rig.project)
        _, misconfigured = pre_tool(host, "ls", broken)
        assert through_daemon(rig, host, event, allowed)[2] == 0
        out, _, _ = through_daemon(rig, host, event, denied)
        assert TAG in out, host
        _, err, _ = through_daemon(rig, host, event, "this is not json")
        assert "hook input is not valid JSON" in err, host
        out, err, _ = through_daemon(rig, host, event, misconfigured)
        assert "[steering:hook-error@rein]" in out and "steering.toml" in err, host
        wrong = {**allowed, "hook_event_name": "SomethingElse"}
        assert "[steering:hook-error@rein]" in through_daemon(rig, host, event, wrong)[0], host


def test_an_unknown_event_is_a_usage_error_from_the_hook_itself(rig: Rig) -> None:
    assert rig.rein("hook", "daemon", "start").returncode == 0
    before = rig.served()
    done = rig.hook("claude", "no-such-event", "{}")
    assert done.returncode == 2 and "unknown claude event 'no-such-event'" in done.stderr
    assert outcome(done) == outcome(rig.hook("claude", "no-such-event", "{}", REIN_HOOK_DAEMON="off"))
    assert rig.served() == before


def claude(rig: Rig, event: str, session: str, **fields: object) -> tuple[str, str, int]:
    """A Claude Code call answered by the daemon, with the answer the in-process hook gives the same
    call in a twin session (state is per session, so the twin must see the same history)."""
    names = {
        "pre-tool-use": "PreToolUse",
        "post-tool-use": "PostToolUse",
        "user-prompt-submit": "UserPromptSubmit",
    }
    body = {"session_id": session, "cwd": str(rig.project), "hook_event_name": names[event], **fields}
    expected = outcome(
        rig.hook("claude", event, {**body, "session_id": f"{session}-twin"}, REIN_HOOK_DAEMON="off")
    )
    before = rig.served()
    got = outcome(rig.hook("claude", event, body))
    assert rig.served() == before + 1
    assert got == expected
    return got


def test_observers_feed_later_decisions_through_the_daemon(rig: Rig) -> None:
    assert rig.rein("hook", "daemon", "start").returncode == 0
    commit = {"tool_name": "Bash", "tool_input": {"command": "git commit -m x"}, "tool_use_id": "t1"}
    pytest_ran = {
        "tool_name": "Bash",
        "tool_input": {"command": "pytest -q"},
        "tool_response": {"stdout": "ok", "stderr": "", "interrupted": False},
        "tool_use_id": "t2",
    }
    assert claude(rig, "user-prompt-submit", "flow", prompt="go") == ("", "", 0)
    out, _, _ = claude(rig, "pre-tool-use", "flow", **commit)
    assert "[steering:commit-after-tests@user]" in out
    assert claude(rig, "post-tool-use", "flow", **pytest_ran) == ("", "", 0)
    assert claude(rig, "pre-tool-use", "flow", **commit) == ("", "", 0)
    assert claude(rig, "user-prompt-submit", "flow", prompt="again") == ("", "", 0)
    assert "[steering:commit-after-tests@user]" in claude(rig, "pre-tool-use", "flow", **commit)[0]


def test_two_homes_get_two_daemons(rig: Rig) -> None:
    other = rig.home.parent / "other-home"
    other.mkdir()
    assert socket_path(str(rig.home)) != socket_path(str(other))
    assert rig.rein("hook", "daemon", "start").returncode == 0
    mine = rig.running()
    event, body = pre_tool("claude", DENIED, rig.project)
    theirs = rig.rein("hook", "claude", event, stdin=json.dumps(body), home=other)
    assert TAG in theirs.stdout
    second = rig.running(other)  # started by that call, for that home
    assert second.pid != mine.pid and second.socket != mine.socket
    assert (rig.running().served, second.served) == (0, 0)


def raw(path: str, request: dict[str, object]) -> bytes:
    """What a daemon sends back on `path` for `request`, as the client would send it."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as client:
        client.settimeout(10)
        client.connect(path)
        client.sendall(json.dumps(request).encode())
        client.shutdown(socket.SHUT_WR)
        chunks = []
        while chunk := client.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks)


def test_a_request_for_another_identity_gets_no_answer(rig: Rig) -> None:
    assert rig.rein("hook", "daemon", "start").returncode == 0
    path = socket_path(str(rig.home))
    mine = {"op": "status", "v": PROTOCOL, **identity(str(rig.home))}
    assert json.loads(raw(path, mine))["served"] == 0  # the control: the same request, right identity
    assert raw(path, {**mine, "home": str(rig.home.parent)}) == b""
    assert raw(path, {**mine, "python": "/usr/bin/python0"}) == b""
    assert raw(path, {**mine, "rein": "/elsewhere/rein"}) == b""
    assert raw(path, {**mine, "v": PROTOCOL + 1}) == b""
    assert raw(path, {"op": "status"}) == b""
    assert raw(path, {**mine, "op": "hook", "host": "nohost", "event": "x", "stdin": "{}"}) == b""
    assert rig.running().served == 0


def test_respond_checks_identity_and_request_shape(tmp_path: Path) -> None:
    daemon = Daemon(str(tmp_path))
    mine = {"v": PROTOCOL, **identity(str(tmp_path))}
    assert daemon.respond({**mine, "op": "status"}) is not None
    assert daemon.respond({**mine, "op": "status", "home": "/"}) is None
    for bad in (
        {"op": "nothing"},
        {"op": "hook", "host": "claude", "event": "pre-tool-use"},  # no stdin
        {"op": "hook", "host": "claude", "event": "pre-tool-use", "stdin": 3},
        {"op": "hook", "host": "vim", "event": "pre-tool-use", "stdin": "{}"},
        {"op": "hook", "host": "claude", "event": "nope", "stdin": "{}"},
    ):
        assert daemon.respond({**mine, **bad}) is None, bad
    assert daemon.served == 0
    done = daemon.respond({**mine, "op": "hook", "host": "claude", "event": "pre-tool-use", "stdin": "["})
    assert done is not None and done["code"] == 0 and "hook-error" in str(done["stdout"])
    assert daemon.served == 1
