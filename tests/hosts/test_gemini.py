"""rein's hooks inside the real Gemini CLI (`gemini -p`, headless), against a mock of the Gemini API.

Gemini CLI reads `GOOGLE_GEMINI_BASE_URL` with a dummy `GEMINI_API_KEY` once the user's settings
select API-key auth. It runs no hooks at all in a folder it does not trust, and headless it refuses
to start there, so every run but the trust tests has the project in `~/.gemini/trustedFolders.json`.
`--yolo` approves every tool call (hooks still run).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.hosts._common import BLOCKED, LIST, LISTED, TAG, WRITTEN, WRITTEN_TEXT, Sandbox
from tests.hosts._gemini_api import GeminiApi, Result, shell, write_file

pytestmark = pytest.mark.slow

SETTINGS = {
    "security": {"auth": {"selectedType": "gemini-api-key"}},
    "telemetry": {"enabled": False},
    "privacy": {"usageStatisticsEnabled": False},
    "general": {"enableAutoUpdate": False, "enableAutoUpdateNotification": False},
}
"""The user's settings before rein's install: API-key auth (the key and URL come from the mock), no
telemetry, no update checks."""
BLOCKED_AS_SEEN = "Tool execution blocked: " + TAG
"""How the model sees a call rein denied: Gemini CLI's prefix, then rein's reason."""


def configure(box: Sandbox, api: GeminiApi, *, trusted: bool = True) -> None:
    gemini = box.home / ".gemini"
    gemini.mkdir(exist_ok=True)
    (gemini / "settings.json").write_text(json.dumps(SETTINGS))
    if trusted:
        (gemini / "trustedFolders.json").write_text(json.dumps({str(box.project): "TRUST_FOLDER"}))
    box.env.update(api.env)


def gemini(box: Sandbox, host_bin: dict[str, Path], *flags: str) -> subprocess.CompletedProcess[str]:
    done = box.run([host_bin["gemini"], "-p", "go", "--yolo", *flags], timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    return done


def outputs(api: GeminiApi) -> list[str]:
    assert api.unexpected == []
    return [result.text for result in api.results()]


def first(api: GeminiApi) -> Result:
    assert api.unexpected == []
    return api.results()[0]


@pytest.mark.parametrize("setup", ["no hooks", "installed"])
def test_gemini_cli_runs_reins_hooks(box: Sandbox, host_bin: dict[str, Path], setup: str) -> None:
    script = {"go": [shell(BLOCKED), shell(LIST), write_file(str(box.project / WRITTEN), WRITTEN_TEXT)]}
    with GeminiApi(script) as api:
        configure(box, api)
        if setup == "installed":
            box.install("gemini")
        gemini(box, host_bin)
        blocked, listed, written = api.results()
    assert api.unexpected == []
    assert LISTED in listed.text and "Exit Code" not in listed.text
    assert (box.project / WRITTEN).read_text() == WRITTEN_TEXT and "error" not in written.response
    if setup == "installed":
        # What the model saw, for the README.
        assert str(blocked.response["error"]).startswith(BLOCKED_AS_SEEN + " ")
        assert not box.marker.exists()
    else:
        assert TAG not in blocked.text and "error" not in blocked.response
        assert box.marker.exists()


def test_headless_gemini_cli_refuses_an_untrusted_folder(box: Sandbox, host_bin: dict[str, Path]) -> None:
    with GeminiApi({"go": [shell(BLOCKED)]}) as api:
        configure(box, api, trusted=False)
        box.install("gemini")
        done = box.run([host_bin["gemini"], "-p", "go", "--yolo"], timeout=120)
    assert done.returncode != 0 and "not running in a trusted directory" in done.stderr
    assert api.requests == [] and not box.marker.exists()


@pytest.mark.parametrize("how", ["--skip-trust", "GEMINI_CLI_TRUST_WORKSPACE", "install --trust"])
def test_project_hooks_load_only_in_a_trusted_folder(
    box: Sandbox, host_bin: dict[str, Path], how: str
) -> None:
    """`--skip-trust` trusts the folder only after Gemini CLI has read its settings without the
    project's, so a `--project` install silently does nothing; the variable, or the folder in
    `trustedFolders.json` (what `--trust` writes), loads them."""
    with GeminiApi({"go": [shell(BLOCKED)]}) as api:
        configure(box, api, trusted=False)
        if how == "install --trust":
            assert "Trusted in" in box.install("gemini", "--project", "--trust").stdout
        else:
            said = box.install("gemini", "--project").stdout
            assert "Not active yet" in said and "rein hook install gemini --project --trust" in said
        if how == "GEMINI_CLI_TRUST_WORKSPACE":
            box.env["GEMINI_CLI_TRUST_WORKSPACE"] = "true"
        done = gemini(box, host_bin, *(["--skip-trust"] if how == "--skip-trust" else []))
        blocked = first(api)
    if how == "--skip-trust":
        assert box.marker.exists() and TAG not in blocked.text
        assert "hook" not in done.stderr.lower()  # not a word about it
    else:
        assert not box.marker.exists() and str(blocked.response["error"]).startswith(BLOCKED_AS_SEEN)


OBSERVED = """\
[[observer]]
name = "listed"
writes = ["listed"]
watch = { tool = "bash", command = "^ls", exit_code = 0 }

[[rule]]
name = "commit-after-ls"
reason = "List the files in this agent loop before committing."
command = "git"
subcommand = "commit"
[rule.when]
not = { happened = { event = "listed", in = "agent_loop" } }
"""
COMMIT = "git commit -q --allow-empty -m from-gemini"


def test_observers_see_gemini_exit_codes(box: Sandbox, host_bin: dict[str, Path]) -> None:
    """A passing command's result names no exit code, a failing one `Exit Code: N`: the first counts
    as a success, the second does not."""
    (box.project / ".rein").mkdir()
    (box.project / ".rein" / "steering.toml").write_text(OBSERVED)
    box.git("add", ".")
    box.git("commit", "-q", "-m", "rules")
    box.git("checkout", "-q", "-b", "work")  # rein's defaults keep commits off main
    script = [shell(COMMIT), shell("ls no-such-file"), shell(COMMIT), shell(LIST), shell(COMMIT)]
    with GeminiApi({"go": script}) as api:
        configure(box, api)
        box.install("gemini")
        gemini(box, host_bin)
        before, failed, still, listed, after = outputs(api)
    assert "[steering:commit-after-ls@" in before and "[steering:commit-after-ls@" in still
    assert "Exit Code: 2" in failed and LISTED in listed and "Exit Code" not in listed
    assert "error" not in json.loads(after)
    log = subprocess.run(
        ["git", "log", "--format=%s"], cwd=box.project, capture_output=True, text=True, check=True
    ).stdout
    assert log.splitlines()[0] == "from-gemini"


HOOK = """\
#!/bin/sh
input=$(cat)
case "$input" in
  *ran-exit-1*) echo "hook crashed" >&2; exit 1 ;;
  *ran-garbage*) echo "this is not JSON"; exit 0 ;;
  *ran-exit-2*) echo "no, by exit code 2" >&2; exit 2 ;;
  *ran-timeout*) exec sleep 10 ;;
esac
echo '{}'
"""
FAILURES = ("exit-1", "garbage", "exit-2", "timeout")


def test_a_failing_or_hanging_hook_lets_the_call_through_except_exit_2(
    box: Sandbox, host_bin: dict[str, Path]
) -> None:
    """Gemini CLI treats a BeforeTool hook that exits 1, prints something other than JSON (shown to
    the user as a message), or outlives its `timeout` (milliseconds) as failed and runs the call; exit 2
    blocks it with stderr as the reason. rein never says no by failing: its own errors answer a deny in
    JSON with exit 0."""
    hook = box.home / "hook.sh"
    hook.write_text(HOOK)
    hook.chmod(0o755)
    handler = {"name": "probe", "type": "command", "command": str(hook), "timeout": 1000}
    script = [shell(f"touch ran-{name}") for name in FAILURES]
    with GeminiApi({"go": script}) as api:
        configure(box, api)
        settings = box.home / ".gemini" / "settings.json"
        hooks = {"BeforeTool": [{"matcher": "run_shell_command", "hooks": [handler]}]}
        settings.write_text(json.dumps({**SETTINGS, "hooks": hooks}))
        gemini(box, host_bin)
        seen = dict(zip(FAILURES, api.results(), strict=True))
    ran = {name for name in FAILURES if (box.project / f"ran-{name}").exists()}
    assert ran == {"exit-1", "garbage", "timeout"}
    assert seen["exit-2"].response == {"error": "Tool execution blocked: no, by exit code 2"}
    for name in ("exit-1", "garbage", "timeout"):
        assert "error" not in seen[name].response and "Process Group PGID" in seen[name].text


ASKS = """\
#!/bin/sh
cat >/dev/null
echo '{"decision": "ask", "reason": "asked by the hook", "systemMessage": "asked by the hook"}'
"""
ASK_RULE = """\
[[rule]]
name = "ask-to-ship"
reason = "Shipping needs the user's yes."
command = "touch"
args = ["shipped"]
verdict = "ask"
"""


def test_an_ask_answer_hangs_headless_gemini_cli(box: Sandbox, host_bin: dict[str, Path]) -> None:
    """Gemini CLI 0.61.0 takes an undocumented BeforeTool `decision: "ask"`: it forces its confirmation
    prompt, which headless nobody answers, so the run never ends (a normal run here takes seconds).
    Hence rein answers a rule that asks with a deny on Gemini CLI."""
    hook = box.home / "hook.sh"
    hook.write_text(ASKS)
    hook.chmod(0o755)
    handler = {"name": "probe", "type": "command", "command": str(hook), "timeout": 5000}
    with GeminiApi({"go": [shell("touch shipped")]}) as api:
        configure(box, api)
        hooks = {"BeforeTool": [{"matcher": "run_shell_command", "hooks": [handler]}]}
        (box.home / ".gemini" / "settings.json").write_text(json.dumps({**SETTINGS, "hooks": hooks}))
        with pytest.raises(subprocess.TimeoutExpired):
            box.run([host_bin["gemini"], "-p", "go", "--yolo"], timeout=20)
        assert api.requests and api.results() == []  # the call was asked for, and never answered
    assert not (box.project / "shipped").exists()


def test_a_rule_that_asks_is_denied_with_its_reason(box: Sandbox, host_bin: dict[str, Path]) -> None:
    (box.project / ".rein").mkdir()
    (box.project / ".rein" / "steering.toml").write_text(ASK_RULE)
    with GeminiApi({"go": [shell("touch shipped"), shell(LIST)]}) as api:
        configure(box, api)
        box.install("gemini")
        gemini(box, host_bin)
        asked, listed = api.results()
    assert LISTED in listed.text
    error = str(asked.response["error"])
    assert error.startswith("Tool execution blocked: [steering:ask-to-ship@user] Shipping needs")
    assert not (box.project / "shipped").exists()
