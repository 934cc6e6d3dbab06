"""`rein -p` and `--mode json` with a tool call that changes things: they never wait on a person, and
`--approve` or `[rein] approve` decide. The model is a local SSE server speaking OpenAI's wire format,
driven through the real SDK (`--provider openai --base-url`)."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from rein.ai import TextContent, ToolCall
from rein.ai.testing import Reply, SseServer, chat_reply

pytestmark = pytest.mark.slow

TOUCH = ToolCall(id="call_1", name="bash", arguments={"command": "touch made"})


async def rein(*args: str, cwd: Path, home: Path) -> tuple[subprocess.CompletedProcess[str], list[object]]:
    """Run `rein` against a model that asks for `touch made`, then answers "done"; returns the run and
    the message lists the model was sent."""
    async with SseServer(
        [
            Reply(steps=chat_reply(TOUCH, finish_reason="tool_calls")),
            Reply(steps=chat_reply(TextContent(text="done"))),
        ]
    ) as server:
        env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY") and k != "CODEX_HOME"}
        env.update(HOME=str(home), NO_COLOR="1", COLUMNS="200")
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "rein.cli",
            *("--provider", "openai", "--base-url", f"{server.url}/v1", "--model", "m", *args),
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        out, err = await asyncio.wait_for(process.communicate(), 60)
        sent: list[object] = [
            r.body.get("messages") if isinstance(r.body, dict) else None for r in server.requests
        ]
    assert process.returncode is not None
    done = subprocess.CompletedProcess(list(args), process.returncode, out.decode(), err.decode())
    return done, sent


def tool_result(sent: list[object]) -> str:
    """What the model read as the tool's result, in the second request."""
    assert len(sent) == 2, sent
    messages = sent[1]
    assert isinstance(messages, list)
    (result,) = [m for m in messages if isinstance(m, dict) and m.get("role") == "tool"]
    return str(result["content"])


@pytest.fixture
def dirs(tmp_path: Path) -> tuple[Path, Path]:
    home = tmp_path / "home"
    project = home / "project"
    project.mkdir(parents=True)
    return project, home


def test_print_mode_asks_nobody_and_denies_by_default(dirs: tuple[Path, Path]) -> None:
    project, home = dirs
    done, sent = asyncio.run(rein("-p", "make a file", cwd=project, home=home))
    assert done.returncode == 0, done.stderr
    assert not (project / "made").exists()
    said = tool_result(sent)
    assert said.startswith("[approval] not run: this bash call needs approval and nobody approved it")
    assert '--approve auto or set approve = "auto" in the [rein] group' in said
    assert done.stdout.rstrip().endswith("done")


def test_approve_auto_runs_the_call(dirs: tuple[Path, Path]) -> None:
    project, home = dirs
    done, sent = asyncio.run(rein("--approve", "auto", "-p", "make a file", cwd=project, home=home))
    assert done.returncode == 0, done.stderr
    assert (project / "made").exists()
    assert "[approval]" not in tool_result(sent)


def test_json_mode_with_approve_deny(dirs: tuple[Path, Path]) -> None:
    project, home = dirs
    done, sent = asyncio.run(rein("--mode", "json", "--approve", "deny", "-p", "go", cwd=project, home=home))
    assert done.returncode == 0, done.stderr
    assert not (project / "made").exists()
    events = [json.loads(line) for line in done.stdout.splitlines()]
    (end,) = [e for e in events if e["type"] == "tool_execution_end"]
    assert end["output"]["is_error"] and end["output"]["text"].startswith(
        "[approval] not run: approve is set to deny"
    )
    assert tool_result(sent) == end["output"]["text"]


def test_the_setting_decides_when_no_option_is_given(dirs: tuple[Path, Path]) -> None:
    project, home = dirs
    (project / ".rein").mkdir()
    (project / ".rein" / "settings.toml").write_text('[rein]\napprove = "auto"\n')
    done, _ = asyncio.run(rein("-p", "make a file", cwd=project, home=home))
    assert done.returncode == 0, done.stderr
    assert (project / "made").exists()


@pytest.mark.parametrize("mode", [("-p",), ("--mode", "json", "-p")], ids=["print", "json"])
def test_a_steering_rule_that_asks_blocks_where_nobody_can_answer(
    dirs: tuple[Path, Path], mode: tuple[str, ...]
) -> None:
    """Even with `--approve auto`: a rule that asks needs the person's yes, which nobody gives here."""
    project, home = dirs
    (project / ".rein").mkdir()
    (project / ".rein" / "steering.toml").write_text(
        '[[rule]]\nname = "ask-to-make"\nreason = "Making files needs a yes."\n'
        'command = "touch"\nverdict = "ask"\n'
    )
    done, sent = asyncio.run(rein("--approve", "auto", *mode, "make a file", cwd=project, home=home))
    assert done.returncode == 0, done.stderr
    assert not (project / "made").exists()
    said = tool_result(sent)
    assert said.startswith("[steering:ask-to-make@user] Making files needs a yes.")
    assert "Not run: nobody could answer here" in said
