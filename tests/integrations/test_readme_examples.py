"""The README's framework examples run as written: each is the shared preamble plus one framework's
lines, in its own Python process, with the framework's OpenAI client pointed at a scripted model on
127.0.0.1 (`OPENAI_BASE_URL`). The model asks for a force push, then answers; the example prints the
answer, and the model's second request carries rein's reason, so rein was in the agent as written."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from rein.ai import TextContent, ToolCall
from rein.ai.testing import Reply, Request, SseServer, chat_reply, response_object, responses_reply
from rein.ai.testing.sse_server import Event
from tests.test_docs import ROOT, split

pytestmark = pytest.mark.slow

REASON = "[steering:no-force-push@defaults]"
ANSWER = "The test passes now."
PUSH = json.dumps({"command": "git push --force origin main"})
FRAMEWORKS = {"pydantic-ai": "pydantic_ai", "OpenAI Agents SDK": "agents", "LangChain v1": "langchain"}


def examples() -> tuple[str, dict[str, str]]:
    """The preamble and each framework's example, by the comment on its first line."""
    readme = (ROOT / "README.md").read_text()
    (block,) = [
        b for b in split(readme)[0] if b.info == "python" and "rein.integrations" in "\n".join(b.lines)
    ]
    preamble, *parts = "\n".join(block.lines).split("\n\n")
    found = {}
    for part in parts:
        comment = part.splitlines()[0].split("# ", 1)[1]
        found[comment.split(":")[0]] = part
    return preamble, found


def scripted(request: Request, turn: int) -> Reply:
    """A force push first, then the answer; streamed or whole as asked, in the API the path names."""
    assert isinstance(request.body, dict)
    stream = bool(request.body.get("stream"))
    call = ToolCall(id="call_1", name="bash", raw_arguments=PUSH)
    if request.path.endswith("/responses"):
        if stream:
            return Reply(steps=responses_reply(call if turn == 0 else TextContent(text=ANSWER)))
        item: dict[str, object] = (
            {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "bash", "arguments": PUSH,
             "status": "completed"}
            if turn == 0
            else {"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
                  "content": [{"type": "output_text", "text": ANSWER, "annotations": []}]}
        )  # fmt: skip
        return Reply(body=response_object("gpt-5", "completed", [item], (20, 10, 0)))  # type: ignore[list-item]
    if stream:
        steps: list[Event] = (
            chat_reply(call, finish_reason="tool_calls")
            if turn == 0
            else chat_reply(TextContent(text=ANSWER))
        )
        return Reply(steps=steps)
    message: dict[str, object] = (
        {"role": "assistant", "content": None,
         "tool_calls": [{"id": "call_1", "type": "function",
                         "function": {"name": "bash", "arguments": PUSH}}]}
        if turn == 0
        else {"role": "assistant", "content": ANSWER}
    )  # fmt: skip
    finish = "tool_calls" if turn == 0 else "stop"
    return Reply(
        body={
            "id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "gpt-5",
            "choices": [{"index": 0, "message": message, "finish_reason": finish}],  # type: ignore[dict-item]
            "usage": {"prompt_tokens": 20, "completion_tokens": 10, "total_tokens": 30},
        }
    )  # fmt: skip


def run_example(
    source: str, project: Path, tmp_path: Path
) -> tuple[subprocess.CompletedProcess[str], list[str]]:
    async def go() -> tuple[subprocess.CompletedProcess[str], list[str]]:
        bodies: list[str] = []

        def route(request: Request) -> Reply:
            bodies.append(json.dumps(request.body))
            return scripted(request, len(bodies) - 1)

        async with SseServer(route=route) as server:
            env = {
                **os.environ,
                "HOME": str(tmp_path),
                "OPENAI_BASE_URL": server.url + "/v1",
                "OPENAI_API_KEY": "test-key",
                "OPENAI_AGENTS_DISABLE_TRACING": "1",  # no trace upload from the Agents SDK
            }
            process = await asyncio.create_subprocess_exec(
                sys.executable, "-c", source, cwd=project, env=env,
                stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
            )  # fmt: skip
            out, err = await asyncio.wait_for(process.communicate(), 120)
        done = subprocess.CompletedProcess(["python"], process.returncode or 0, out.decode(), err.decode())
        return done, bodies

    return asyncio.run(go())


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    subprocess.run(["git", "init", "-q", "-b", "feature", str(root)], check=True)
    return root


def test_the_readme_has_one_example_per_framework_of_at_most_ten_lines() -> None:
    preamble, found = examples()
    assert set(found) == {*FRAMEWORKS, "Google ADK"}
    assert all(len(part.splitlines()) + len(preamble.splitlines()) <= 10 for part in found.values())


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_a_readme_example_runs_with_rein_in_the_agent(framework: str, project: Path, tmp_path: Path) -> None:
    pytest.importorskip(FRAMEWORKS[framework], reason=f"the {framework} extra is not installed")
    preamble, found = examples()
    done, bodies = run_example(f"{preamble}\n{found[framework]}", project, tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip() == ANSWER
    assert len(bodies) == 2 and REASON in bodies[1] and REASON not in bodies[0]


def test_the_readme_s_adk_example_builds_its_agent(project: Path, tmp_path: Path) -> None:
    pytest.importorskip("google.adk", reason="the adk extra is not installed")
    preamble, found = examples()
    check = "print(type(agent).__name__, agent.before_tool_callback is not None)"
    source = f"{preamble}\n{found['Google ADK']}\n{check}"
    done, _ = run_example(source, project, tmp_path)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip() == "LlmAgent True"
