"""rein's hooks inside the real Claude Code (`claude -p`), against a mock of the Messages API.

Every case runs twice: with rein's hooks installed by `rein hook install claude` (user scope, as a user
installs them) and with none, so each assertion is shown to tell the two apart. What is asserted is
what Claude Code sent back to the model (the tool results) and what happened on disk.

What Claude Code 2.1.330 does with a hook that is not rein (`test_a_hook_that_*`), pinned here because
the README states it: a hook that exits 1 (any code but 0 and 2) with garbage on stdout is ignored and
the call runs; one that exits 2 blocks the call and the model reads its stderr; one that outlives its
`timeout` is cut off and the call runs. rein answers every call with exit 0 and JSON, so only a hung
rein lets a call through, after `timeout` seconds (30 by `rein hook install`).
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from rein.hooks import session_path
from tests.hosts._anthropic_api import AnthropicApi, Script, bash, write
from tests.hosts._common import BLOCKED, LIST, LISTED, STEERING, TAG, WRITTEN, WRITTEN_TEXT, Sandbox

pytestmark = pytest.mark.slow

HOOKED = pytest.mark.parametrize("hooked", [True, False], ids=["rein", "no-hooks"])

PYTEST = "pytest -q -p no:cacheprovider"


@pytest.fixture
def claude(host_bin: dict[str, Path]) -> Path:
    return host_bin["claude"]


@pytest.fixture
def steered(box: Sandbox) -> Sandbox:
    """The project with observers and rules of its own, on a branch (the defaults keep commits off
    main), and pytest on PATH."""
    box.git("switch", "-q", "-c", "feature")
    (box.project / ".rein").mkdir()
    (box.project / ".rein" / "steering.toml").write_text(STEERING)
    (box.project / "test_ok.py").write_text("def test_ok():\n    assert True\n")
    (box.project / "test_bad.py").write_text("def test_bad():\n    assert False\n")
    box.env.update(
        PATH=f"{Path(sys.executable).parent}:{box.env['PATH']}", PYTEST_DISABLE_PLUGIN_AUTOLOAD="1"
    )
    return box


@contextmanager
def serve(box: Sandbox, script: Script, *, tokens: int = 12) -> Iterator[AnthropicApi]:
    """The mock, with the box's Claude Code pointed at it."""
    with AnthropicApi(script, tokens=tokens) as api:
        box.env.update(api.env)
        yield api
    assert not api.unexpected, f"Claude Code asked the mock for more:\n{api.log()}"


def ask(
    box: Sandbox, claude: Path, prompt: str, *flags: str, api: AnthropicApi
) -> subprocess.CompletedProcess[str]:
    done = box.run([claude, "-p", prompt, "--allowedTools", "Bash,Write", *flags], timeout=60)
    assert done.returncode == 0, f"{done.stdout}\n{done.stderr}\nthe mock saw:\n{api.log()}"
    return done


@HOOKED
def test_the_shell_and_file_tools_are_steered(steered: Sandbox, claude: Path, hooked: bool) -> None:
    box = steered
    if hooked:
        box.install("claude")
    env_file = box.project / ".env"
    script = {
        "go": [
            bash(BLOCKED, "toolu_blocked"),
            bash(LIST, "toolu_ls"),
            write(str(box.project / WRITTEN), WRITTEN_TEXT, "toolu_write"),
            write(str(env_file), "KEY=1\n", "toolu_env"),
        ]
    }
    with serve(box, script) as api:
        ask(box, claude, "go", api=api)
        blocked, listed, env = (api.result(ident) for ident in ("toolu_blocked", "toolu_ls", "toolu_env"))
    assert LISTED in listed.text and not listed.is_error
    assert (box.project / WRITTEN).read_text() == WRITTEN_TEXT
    if hooked:
        assert blocked.is_error and f"PreToolUse:Bash hook error: {TAG} " in blocked.text, blocked.block
        assert not box.marker.exists()
        assert env.is_error and "[steering:no-env-write@" in env.text, env.block
        assert not env_file.exists()
    else:
        assert TAG not in blocked.text and box.marker.exists()
        assert "steering" not in env.text and env_file.exists()


@HOOKED
def test_exit_codes_reach_the_observers(steered: Sandbox, claude: Path, hooked: bool) -> None:
    """A failing pytest (PostToolUseFailure, `Exit code 1`) does not satisfy the rule; a passing one
    (PostToolUse) does; the failure's exit code is read from Claude Code's error text."""
    box = steered
    if hooked:
        box.install("claude")
    session = str(uuid.uuid4())
    script = {
        "go": [
            bash(f"{PYTEST} test_bad.py", "toolu_fail"),
            bash("git commit --allow-empty -m early", "toolu_early"),
            bash(f"{PYTEST} test_ok.py", "toolu_pass"),
            bash("git commit --allow-empty -m tested", "toolu_tested"),
        ]
    }
    with serve(box, script) as api:
        ask(box, claude, "go", "--session-id", session, api=api)
        early, tested = api.result("toolu_early"), api.result("toolu_tested")
    assert api.result("toolu_fail").text.startswith("Exit code 1\n")
    assert "1 passed" in api.result("toolu_pass").text
    assert "tested" in tested.text and not tested.is_error
    log = subprocess.run(
        ["git", "log", "--format=%s"],
        cwd=box.project,
        env=box.env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    if hooked:
        assert early.is_error and "[steering:commit-after-tests@" in early.text, early.block
        assert log == ["tested", "init"]
        lines = session_path(box.home, "claude", session).read_text().splitlines()
        entries = [json.loads(line) for line in lines]
        assert [(e["type"], e["data"]["exit_code"]) for e in entries if "observer" in e.get("data", {})] == [
            ("tests-failed", 1),
            ("tests-passed", 0),
        ]
    else:
        assert "steering" not in early.text and log == ["tested", "early", "init"]


@HOOKED
def test_the_timebox_stops_prompts_past_a_turn_budget(box: Sandbox, claude: Path, hooked: bool) -> None:
    if hooked:
        box.install("claude")
    session = str(uuid.uuid4())
    script = {"first": [bash(LIST, "toolu_first")], "second": [bash(f"touch {WRITTEN}", "toolu_second")]}
    with serve(box, script) as api:
        set_up = ask(box, claude, "$timebox turns:1", "--session-id", session, api=api)
        first = ask(box, claude, "first", "--resume", session, api=api)
        second = ask(box, claude, "second", "--resume", session, api=api)
        prompts = api.prompts()
    assert LISTED in api.result("toolu_first").text and "All done." in first.stdout
    if hooked:
        assert "Timebox set: 1 turn." in set_up.stdout
        assert "Timebox budget spent (1 turn)." in second.stdout
        assert prompts == ["first"]  # neither `$timebox` nor the prompt past the budget reached Claude
        assert not (box.project / WRITTEN).exists()
    else:
        assert prompts == ["$timebox turns:1", "first", "second"]
        assert (box.project / WRITTEN).exists()


@HOOKED
def test_the_timebox_ends_a_turn_past_a_token_budget(box: Sandbox, claude: Path, hooked: bool) -> None:
    """Each reply reports 6000 input tokens: the second passes the 10k budget, so rein ends the turn
    at the next checked event (the second call's PreToolUse or, when Claude Code has not written the
    reply to its transcript yet, its PostToolUse); the third call is never asked for."""
    if hooked:
        box.install("claude")
    session = str(uuid.uuid4())
    script = {"go": [bash(LIST, "toolu_1"), bash("touch second", "toolu_2"), bash("touch third", "toolu_3")]}
    with serve(box, script, tokens=6000) as api:
        ask(box, claude, "$timebox tokens:10k", "--session-id", session, api=api)
        done = ask(box, claude, "go", "--resume", session, "--output-format", "json", api=api)
        answered = set(api.results())
    result = json.loads(done.stdout)
    transcript = next((box.home / ".claude" / "projects").rglob(f"{session}.jsonl")).read_text()
    if hooked:
        assert result["terminal_reason"] == "hook_stopped", result
        assert "Timebox budget spent (10k tokens)." in transcript
        assert "toolu_3" not in answered and not (box.project / "third").exists()
    else:
        assert result["terminal_reason"] != "hook_stopped" and "Timebox" not in transcript
        assert answered == {"toolu_1", "toolu_2", "toolu_3"} and (box.project / "third").exists()


ASK = """\
[[rule]]
name = "ask-to-ship"
reason = "Shipping needs the user's yes."
command = "touch"
args = ["shipped"]
verdict = "ask"
"""


@HOOKED
def test_a_rule_that_asks_is_refused_in_print_mode_with_its_reason(
    box: Sandbox, claude: Path, hooked: bool
) -> None:
    """rein answers `permissionDecision: "ask"`. `claude -p` has nobody to ask, so Claude Code does not
    run the call, even with Bash in --allowedTools, and the model reads the reason as the tool's error:
    the reason alone, where a deny reads `PreToolUse:Bash hook error: <reason>`."""
    if hooked:
        box.install("claude")
    (box.project / ".rein").mkdir()
    (box.project / ".rein" / "steering.toml").write_text(ASK)
    with serve(box, {"go": [bash("touch shipped", "toolu_ask"), bash(LIST, "toolu_ls")]}) as api:
        ask(box, claude, "go", api=api)
        asked, listed = api.result("toolu_ask"), api.result("toolu_ls")
    assert LISTED in listed.text and not listed.is_error
    if hooked:
        assert asked.is_error and asked.text.startswith("[steering:ask-to-ship@user] Shipping needs"), asked
        assert not (box.project / "shipped").exists()
    else:
        assert not asked.is_error and (box.project / "shipped").exists()


def test_rein_fails_closed_inside_claude_code(box: Sandbox, claude: Path) -> None:
    box.install("claude")
    (box.project / ".rein").mkdir()
    (box.project / ".rein" / "steering.toml").write_text("[[rule]\n")
    with serve(box, {"go": [bash(LIST, "toolu_ls")]}) as api:
        ask(box, claude, "go", api=api)
        listed = api.result("toolu_ls")
    assert listed.is_error and "[steering:hook-error@rein]" in listed.text and LISTED not in listed.text
    assert "steering.toml" in listed.text


def handler(box: Sandbox, command: str, timeout: int | None = None) -> None:
    """A PreToolUse handler of one's own for Bash, instead of rein's."""
    hook: dict[str, object] = {"type": "command", "command": command}
    if timeout is not None:
        hook["timeout"] = timeout
    settings = {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [hook]}]}}
    (box.home / ".claude").mkdir(exist_ok=True)
    (box.home / ".claude" / "settings.json").write_text(json.dumps(settings))


def test_a_hook_that_exits_1_with_garbage_lets_the_call_through(box: Sandbox, claude: Path) -> None:
    handler(box, "echo 'not json {'; echo broken >&2; exit 1")
    with serve(box, {"go": [bash(BLOCKED, "toolu_1")]}) as api:
        ask(box, claude, "go", api=api)
        result = api.result("toolu_1")
    assert box.marker.exists() and "broken" not in result.text and "hook" not in result.text


def test_a_hook_that_exits_2_blocks_the_call_with_its_stderr(box: Sandbox, claude: Path) -> None:
    handler(box, "echo 'not json {'; echo 'no, says the hook' >&2; exit 2")
    with serve(box, {"go": [bash(BLOCKED, "toolu_1")]}) as api:
        ask(box, claude, "go", api=api)
        result = api.result("toolu_1")
    assert not box.marker.exists()
    assert (
        result.is_error
        and "PreToolUse:Bash hook error:" in result.text
        and "no, says the hook" in result.text
    )


def test_a_hook_that_times_out_lets_the_call_through(box: Sandbox, claude: Path) -> None:
    started = box.home / "hook-started"
    handler(box, f"touch {started}; sleep 30", timeout=1)
    with serve(box, {"go": [bash(BLOCKED, "toolu_1")]}) as api:
        began = time.monotonic()
        ask(box, claude, "go", api=api)
        took = time.monotonic() - began
        result = api.result("toolu_1")
    assert started.exists() and box.marker.exists() and "hook" not in result.text
    assert took < 20, f"Claude Code waited {took:.1f} s for a hook with a 1 s timeout"
