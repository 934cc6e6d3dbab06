"""rein's hooks inside the real Codex CLI (`codex exec`), against a mock of the OpenAI Responses API.

Codex runs as root in a container here, where its sandbox cannot start, so every run passes
`--dangerously-bypass-approvals-and-sandbox` (no sandbox, no approval prompts; hooks still run). The
mock provider is configured in `~/.codex/config.toml` before rein's install, so `--trust` has to keep
the user's own keys.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.hosts._common import BLOCKED, LIST, LISTED, STEERING, TAG, WRITTEN, WRITTEN_TEXT, Sandbox
from tests.hosts._responses_api import Call, ResponsesApi, patch, shell

pytestmark = pytest.mark.slow

EXEC = ("exec", "--dangerously-bypass-approvals-and-sandbox", "--color", "never")


def add_file(name: str, text: str) -> Call:
    lines = "".join(f"+{line}\n" for line in text.splitlines())
    return patch(f"*** Begin Patch\n*** Add File: {name}\n{lines}*** End Patch\n")


def configure(box: Sandbox, api: ResponsesApi) -> Path:
    """Point Codex (its home: `~/.codex`) at the mock; the config file, for the tests to read."""
    config = box.home / ".codex" / "config.toml"
    config.parent.mkdir(exist_ok=True)
    config.write_text(api.config())
    box.env["MOCK_API_KEY"] = "test-key"
    return config


def codex(box: Sandbox, host_bin: dict[str, Path], *flags: str) -> subprocess.CompletedProcess[str]:
    done = box.run([host_bin["codex"], *EXEC, *flags, "go"], timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    return done


@pytest.mark.parametrize("setup", ["no hooks", "installed", "installed --trust"])
def test_codex_runs_reins_hooks_only_once_trusted(
    box: Sandbox, host_bin: dict[str, Path], setup: str
) -> None:
    script = {"go": [shell(BLOCKED), shell(LIST), add_file(WRITTEN, WRITTEN_TEXT)]}
    with ResponsesApi(script) as api:
        config = configure(box, api)
        if setup != "no hooks":
            said = box.install("codex", *setup.split()[1:]).stdout
            assert ("Trusted in" if "--trust" in setup else "Not active yet") in said, said
        codex(box, host_bin)
        blocked, listed, written = api.outputs()
    assert api.unexpected == []
    if setup == "installed --trust":
        # What the model saw, for the README.
        assert blocked.text.startswith(f"Command blocked by PreToolUse hook: {TAG} ")
        assert blocked.text.endswith(f". Command: {BLOCKED}")
        assert not box.marker.exists()
        assert 'model_provider = "mock"' in config.read_text()  # the user's keys stay
    else:
        # Installed but not trusted: Codex skips rein's hooks without a word, as with none.
        assert TAG not in blocked.text and "Process exited with code 128" in blocked.text
        assert box.marker.exists()
    assert LISTED in listed.text and "Process exited with code 0" in listed.text
    assert "A written.txt" in written.text
    assert (box.project / WRITTEN).read_text() == WRITTEN_TEXT


FAKE_PYTEST = '#!/bin/sh\nif [ "$1" = failing ]; then echo "1 failed"; exit 1; fi\necho "3 passed"\n'
COMMIT = "git commit --allow-empty -q -m from-codex"


@pytest.mark.parametrize("rollout", [True, False], ids=["rollout", "ephemeral"])
def test_observers_see_codex_exit_codes_from_its_rollout(
    box: Sandbox, host_bin: dict[str, Path], rollout: bool
) -> None:
    """Codex's PostToolUse payload carries a shell command's bare output, never its exit code; rein
    reads it from the session's rollout. `codex exec --ephemeral` writes none, so there a passing
    `pytest` stays unknown and the commit stays blocked."""
    box.git("checkout", "-q", "-b", "work")  # rein's defaults keep commits off main
    (box.project / ".rein").mkdir()
    (box.project / ".rein" / "steering.toml").write_text(STEERING)
    tools = box.home / "bin"
    tools.mkdir()
    (tools / "pytest").write_text(FAKE_PYTEST)
    (tools / "pytest").chmod(0o755)
    box.env["PATH"] = f"{tools}:{box.env['PATH']}"
    script = [
        shell("pytest failing", login=False),
        shell(COMMIT),
        shell("pytest", login=False),
        shell(COMMIT),
        add_file("config/.env", "TOKEN=1"),
    ]
    with ResponsesApi({"go": script}) as api:
        configure(box, api)
        box.install("codex", "--trust")
        codex(box, host_bin, *(() if rollout else ("--ephemeral",)))
        failed, first, passed, second, env = api.outputs()
    assert "Process exited with code 1" in failed.text
    assert "[steering:commit-after-tests@" in first.text
    assert "Process exited with code 0" in passed.text and "3 passed" in passed.text
    log = subprocess.run(
        ["git", "log", "--format=%s"], cwd=box.project, capture_output=True, text=True, check=True
    ).stdout
    if rollout:
        assert "Process exited with code 0" in second.text
        assert log.splitlines()[0] == "from-codex"
    else:
        assert "[steering:commit-after-tests@" in second.text
        assert "from-codex" not in log
    assert "[steering:no-env-write@" in env.text
    assert not (box.project / "config" / ".env").exists()


HOOK = """\
#!/bin/sh
input=$(cat)
case "$input" in
  *ran-exit-1*) echo "hook crashed" >&2; exit 1 ;;
  *ran-garbage*) echo "this is not JSON"; exit 0 ;;
  *ran-exit-2*) echo "no, by exit code 2" >&2; exit 2 ;;
  *ran-timeout*) exec sleep 10 ;;
esac
"""
FAILURES = ("exit-1", "garbage", "exit-2", "timeout")


def test_a_failing_or_hanging_hook_lets_the_call_through_except_exit_2(
    box: Sandbox, host_bin: dict[str, Path]
) -> None:
    """Codex treats a PreToolUse hook that exits 1, prints something other than JSON, or outlives its
    `timeout` as failed and runs the call; exit 2 blocks it with stderr as the reason. rein never says
    no by failing: its own errors answer a deny in JSON with exit 0."""
    hook = box.home / "hook.sh"
    hook.write_text(HOOK)
    hook.chmod(0o755)
    handler = {"type": "command", "command": str(hook), "timeout": 1}
    hooks = {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [handler]}]}}
    script = [shell(f"touch ran-{name}") for name in FAILURES]
    with ResponsesApi({"go": script}) as api:
        configure(box, api)
        (box.home / ".codex" / "hooks.json").write_text(json.dumps(hooks))
        # Trust is not what this test is about: the flag runs the hand-written hook untrusted.
        codex(box, host_bin, "--dangerously-bypass-hook-trust")
        outputs = {name: output.text for name, output in zip(FAILURES, api.outputs(), strict=True)}
    ran = {name for name in FAILURES if (box.project / f"ran-{name}").exists()}
    assert ran == {"exit-1", "garbage", "timeout"}
    assert (
        outputs["exit-2"]
        == "Command blocked by PreToolUse hook: no, by exit code 2. Command: touch ran-exit-2"
    )
    for name in ("exit-1", "garbage", "timeout"):
        assert outputs[name].startswith("Chunk ID: ") and "Process exited with code 0" in outputs[name]


ASK_RULE = """\
[[rule]]
name = "ask-to-ship"
reason = "Shipping needs the user's yes."
command = "touch"
args = ["shipped"]
verdict = "ask"
"""


def test_a_rule_that_asks_is_denied_with_its_reason(box: Sandbox, host_bin: dict[str, Path]) -> None:
    """Codex takes no "ask" from a PreToolUse hook (it reports it as unsupported and runs the call),
    so rein denies."""
    (box.project / ".rein").mkdir()
    (box.project / ".rein" / "steering.toml").write_text(ASK_RULE)
    with ResponsesApi({"go": [shell("touch shipped"), shell(LIST)]}) as api:
        configure(box, api)
        box.install("codex", "--trust")
        codex(box, host_bin)
        asked, listed = api.outputs()
    assert LISTED in listed.text
    assert asked.text.startswith("Command blocked by PreToolUse hook: [steering:ask-to-ship@user] Shipping")
    assert not (box.project / "shipped").exists()
