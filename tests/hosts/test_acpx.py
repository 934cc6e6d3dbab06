"""`rein acp` driven by a real ACP client: acpx, the headless ACP command line from npm, starts the
venv's `rein acp --provider faux` as its custom agent (`--agent <command>`), with HOME in a temporary
directory and a git project as cwd; the faux provider's scripted replies are the model.

    acpx --approve-all --agent 'rein acp --provider faux --approve ask' exec 'make it'
"""

from __future__ import annotations

import hashlib
import itertools
import json
import shlex
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from rein.session import list_sessions
from tests.acp.client import faux_script  # skips this module without the acp extra
from tests.hosts._common import BLOCKED, REIN, TAG, Sandbox

pytestmark = pytest.mark.slow  # a real ACP client from npm, as the other hosts' tests

AGENT = f"{shlex.quote(str(REIN))} acp --provider faux --approve ask"
"""The agent command acpx starts: rein asks before bash, write and edit, so acpx's permission
flags decide."""
DENIED = 5
"""acpx's exit status when a permission request was denied."""


@pytest.fixture
def acpx_box(box: Sandbox) -> Iterator[Sandbox]:
    """`box`, and afterwards the folder acpx keeps its session sockets in (named from HOME) gone."""
    yield box
    shutil.rmtree(Path("/tmp") / f"acpx-{hashlib.sha256(str(box.home).encode()).hexdigest()[:10]}", True)


def acpx(
    box: Sandbox, host_bin: dict[str, Path], script: Path, *args: str
) -> subprocess.CompletedProcess[str]:
    """`acpx --agent AGENT ARGS` in the project, the model's replies from `script`."""
    return subprocess.run(
        [str(host_bin["acpx"]), "--agent", AGENT, *args],
        cwd=box.project,
        env={**box.env, "REIN_FAUX_SCRIPT": str(script)},
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def messages(stdout: str) -> list[dict[str, object]]:
    """The JSON-RPC messages `--format json` prints, one per line."""
    return [json.loads(line) for line in stdout.splitlines() if line.startswith("{")]


def updates(stdout: str, kind: str) -> list[dict[str, object]]:
    found = []
    for message in messages(stdout):
        params = message.get("params")
        update = params.get("update") if isinstance(params, dict) else None
        if (
            message.get("method") == "session/update"
            and isinstance(update, dict)
            and update.get("sessionUpdate") == kind
        ):
            found.append(update)
    return found


def chunks(stdout: str) -> list[str]:
    texts = [update.get("content") for update in updates(stdout, "agent_message_chunk")]
    return [str(text.get("text")) for text in texts if isinstance(text, dict)]


def test_a_prompt_streams_to_acpx(acpx_box: Sandbox, host_bin: dict[str, Path], tmp_path: Path) -> None:
    reply = "Hello from rein, streamed to acpx in small chunks."
    script = faux_script(tmp_path / "s.json", [[{"text": reply}]])
    done = acpx(acpx_box, host_bin, script, "--format", "json", "exec", "hi")
    assert done.returncode == 0, done.stderr
    said = chunks(done.stdout)
    assert "".join(said) == reply and len(said) > 3  # streamed, not sent whole
    (init,) = [m["result"] for m in messages(done.stdout) if m.get("id") == 0 and "result" in m]
    assert isinstance(init, dict) and init["agentInfo"]["name"] == "rein"
    # and the plain view a person reads
    text = acpx(acpx_box, host_bin, script, "exec", "hi")
    assert text.returncode == 0 and reply in text.stdout, text.stderr


@pytest.mark.parametrize(
    ("flag", "status", "runs"), [("--approve-all", 0, True), ("--deny-all", DENIED, False)]
)
def test_acpx_s_answer_decides_whether_a_call_runs(
    acpx_box: Sandbox, host_bin: dict[str, Path], tmp_path: Path, flag: str, status: int, runs: bool
) -> None:
    command = "echo made > marker.txt && echo ok"
    script = faux_script(
        tmp_path / "s.json",
        [[{"tool": "bash", "id": "c1", "arguments": {"command": command}}], [{"text": "Done here."}]],
    )
    done = acpx(acpx_box, host_bin, script, flag, "--format", "json", "exec", "make it")
    assert done.returncode == status, done.stderr
    (asked,) = [m for m in messages(done.stdout) if m.get("method") == "session/request_permission"]
    params = asked["params"]
    assert isinstance(params, dict) and params["toolCall"]["title"] == command
    assert {o["kind"] for o in params["options"]} == {"allow_once", "allow_always", "reject_once"}
    statuses = [u.get("status") for u in updates(done.stdout, "tool_call_update")]
    assert (acpx_box.project / "marker.txt").exists() is runs
    if runs:
        assert "completed" in statuses and "in_progress" in statuses
    else:
        assert "failed" in statuses and "in_progress" not in statuses
        assert "the user denied this bash call" in done.stdout
    assert "".join(chunks(done.stdout)).endswith("Done here.")


def test_a_steering_block_reaches_acpx(acpx_box: Sandbox, host_bin: dict[str, Path], tmp_path: Path) -> None:
    script = faux_script(
        tmp_path / "s.json",
        [[{"tool": "bash", "id": "c1", "arguments": {"command": BLOCKED}}], [{"text": "Understood."}]],
    )
    done = acpx(acpx_box, host_bin, script, "--approve-all", "exec", "push it")
    assert done.returncode == 0, done.stderr
    assert not acpx_box.marker.exists()
    assert f"[rein] bash not run: {TAG}" in done.stdout  # the notice in the transcript
    assert "(failed)" in done.stdout and "Understood." in done.stdout
    assert "session/request_permission" not in done.stdout  # blocked before anybody is asked


def test_an_acpx_session_goes_on_after_its_agent_restarts(
    acpx_box: Sandbox, host_bin: dict[str, Path], tmp_path: Path
) -> None:
    first = faux_script(tmp_path / "first.json", [[{"text": "The first answer."}]])
    second = faux_script(tmp_path / "second.json", [[{"text": "The second answer."}]])
    try:
        made = acpx(acpx_box, host_bin, first, "sessions", "new")
        assert made.returncode == 0, made.stderr
        session_id = made.stdout.strip()
        asked = acpx(acpx_box, host_bin, first, "prompt", "the first question")
        assert asked.returncode == 0 and "The first answer." in asked.stdout, asked.stderr
        # close stops acpx's agent process; resuming starts a new `rein acp` that loads the session
        assert acpx(acpx_box, host_bin, first, "sessions", "close").returncode == 0
        resumed = acpx(acpx_box, host_bin, second, "sessions", "new", "--resume-session", session_id)
        assert resumed.returncode == 0 and resumed.stdout.strip() == session_id, resumed.stderr
        again = acpx(acpx_box, host_bin, second, "prompt", "and then?")
        assert again.returncode == 0 and "The second answer." in again.stdout, again.stderr
        assert "session/load" in again.stdout
    finally:
        acpx(acpx_box, host_bin, first, "sessions", "close")
    (info,) = list_sessions(acpx_box.home, str(acpx_box.project.resolve()))
    assert info.id == session_id
    entries = [json.loads(line) for line in info.path.read_text().splitlines()[1:]]
    said = [
        (e["message"]["role"], e["message"]["content"][0]["text"]) for e in entries if e["type"] == "message"
    ]
    assert said == [
        ("user", "the first question"),
        ("assistant", "The first answer."),
        ("user", "and then?"),
        ("assistant", "The second answer."),
    ]
    assert all(later["parent_id"] == earlier["id"] for earlier, later in itertools.pairwise(entries))
