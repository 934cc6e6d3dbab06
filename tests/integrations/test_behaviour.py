"""One behavioural suite every framework adapter passes: the same three scenarios, the same scripted
model (the local SSE server, Chat Completions), the same assertions, one small driver per framework.

1. A bash call `git push --force origin main`: the tool never runs, and the model's next request carries
   rein's reason as the tool result.
2. A reply that breaks a stream rule: the model call is re-issued with the rule injected, and the run's
   output is the clean retry.
3. A `turns:1` timebox: the run stops after one model call.
4. The guard's own shell tool (`Guard.bash`): a commit waits for a passing `pytest`, so the exit code of
   each call must reach steering's observers through the framework.

Google ADK speaks the Gemini API, not Chat Completions: its own tests (`test_adk.py`) run the same three
scenarios on the Gemini mock. Each driver imports its framework inside itself, after `importorskip`, so a
missing extra skips its own cases only.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from rein.ai import TextContent, ToolCall
from rein.ai.testing import Reply, SseServer, chat_reply
from rein.integrations import Guard
from tests.ai.helpers import run
from tests.integrations.helpers import commit_gated_on_pytest, fake_pytest

Bash = Callable[[str], str]
REASON = "[steering:no-force-push@defaults]"
RULE = "---\ncondition: forbidden\n---\nNever write the f-o-r-b-i-d-d-e-n word.\n"
CLEAN = "A clean answer."


@dataclass(frozen=True, slots=True)
class Outcome:
    output: str
    stopped: bool
    """The timebox ended the run (an exception, or the framework's own end with rein's notice)."""


Driver = Callable[[str, Guard, Bash], Awaitable[Outcome]]


async def pydantic_ai(base_url: str, guard: Guard, bash: Bash) -> Outcome:
    pytest.importorskip("pydantic_ai", reason="the pydantic-ai extra is not installed")
    from pydantic_ai import Agent
    from pydantic_ai.models.openai import OpenAIChatModel
    from pydantic_ai.providers.openai import OpenAIProvider

    from rein.integrations.pydantic_ai import ReinCapability, TimeboxExceeded

    model = OpenAIChatModel("gpt-test", provider=OpenAIProvider(base_url=base_url, api_key="k"))
    agent = Agent(model, tools=[bash], capabilities=[ReinCapability(guard)])
    try:
        return Outcome((await agent.run("go")).output, False)
    except TimeboxExceeded as stop:
        return Outcome(str(stop), True)


async def openai_agents(base_url: str, guard: Guard, bash: Bash) -> Outcome:
    pytest.importorskip("agents", reason="the openai-agents extra is not installed")
    from agents import Agent, OpenAIChatCompletionsModel, Runner, function_tool, set_tracing_disabled
    from openai import AsyncOpenAI

    from rein.integrations.openai_agents import TimeboxExceeded, guard_agent

    set_tracing_disabled(True)
    client = AsyncOpenAI(base_url=base_url, api_key="k")
    model = OpenAIChatCompletionsModel(model="gpt-test", openai_client=client)
    agent = guard_agent(Agent(name="coder", tools=[function_tool(bash)], model=model), guard)
    try:
        result = Runner.run_streamed(agent, "go")  # the scripted model answers as a stream
        async for _ in result.stream_events():
            pass
        return Outcome(str(result.final_output), False)
    except TimeboxExceeded as stop:
        return Outcome(str(stop), True)


async def langchain(base_url: str, guard: Guard, bash: Bash) -> Outcome:
    pytest.importorskip("langchain", reason="the langchain extra is not installed")
    from langchain.agents import create_agent
    from langchain_core.tools import tool
    from langchain_openai import ChatOpenAI

    from rein.integrations.langchain import ReinMiddleware

    model = ChatOpenAI(model="gpt-test", base_url=base_url, api_key="k")  # type: ignore[arg-type]
    agent = create_agent(model, [tool(bash)], middleware=[ReinMiddleware(guard)])
    state = await agent.ainvoke({"messages": [{"role": "user", "content": "go"}]})
    output = str(state["messages"][-1].content)
    return Outcome(output, output.startswith("Timebox budget spent"))


DRIVERS: dict[str, Driver] = {
    "pydantic-ai": pydantic_ai,
    "openai-agents": openai_agents,
    "langchain": langchain,
}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    subprocess.run(["git", "init", "-q", "-b", "feature", str(root)], check=True)
    (root / ".rein" / "rules").mkdir(parents=True)
    (root / ".rein" / "rules" / "no-word.md").write_text(RULE)
    return root


def bash_writing(marker: Path) -> Bash:
    def bash(command: str) -> str:
        """Run a shell command."""
        marker.write_text(command)
        return f"ran {command}"

    return bash


def call(command: str, id: str = "call_1") -> Reply:
    arguments = json.dumps({"command": command})
    return Reply(
        steps=chat_reply(ToolCall(id=id, name="bash", raw_arguments=arguments), finish_reason="tool_calls")
    )


def said(words: str) -> Reply:
    return Reply(steps=chat_reply(TextContent(text=words)))


def scenario(
    driver: Driver, project: Path, replies: list[Reply], *, guard_bash: bool = False, **guard: str
) -> tuple[Outcome, list[str], Path]:
    marker = project / "ran.txt"

    async def go() -> tuple[Outcome, list[str]]:
        async with SseServer(replies) as server:
            rein = Guard(project, home=project.parent, **guard)  # type: ignore[arg-type]
            tool = rein.bash if guard_bash else bash_writing(marker)
            outcome = await driver(server.url + "/v1", rein, tool)
            return outcome, [json.dumps(r.body) for r in server.requests]

    outcome, bodies = run(go(), timeout=60)
    return outcome, bodies, marker


@pytest.mark.parametrize("name", DRIVERS)
def test_a_blocked_call_never_runs_and_the_model_reads_reins_reason(name: str, project: Path) -> None:
    outcome, bodies, marker = scenario(
        DRIVERS[name], project, [call("git push --force origin main"), said(CLEAN)]
    )
    assert not marker.exists()
    assert len(bodies) == 2 and REASON in bodies[1] and REASON not in bodies[0]
    assert outcome.output == CLEAN and not outcome.stopped


@pytest.mark.parametrize("name", DRIVERS)
def test_a_reply_breaking_a_stream_rule_is_reissued_with_the_rule(name: str, project: Path) -> None:
    outcome, bodies, _ = scenario(
        DRIVERS[name], project, [said("the forbidden word, then more words"), said(CLEAN)]
    )
    assert len(bodies) == 2 and "f-o-r-b-i-d-d-e-n" in bodies[1] and "f-o-r-b-i-d-d-e-n" not in bodies[0]
    assert "forbidden" not in bodies[1]  # the cut reply is not in the retried request
    assert outcome.output == CLEAN


@pytest.mark.parametrize("name", DRIVERS)
def test_the_timebox_stops_the_run(name: str, project: Path) -> None:
    outcome, bodies, _ = scenario(DRIVERS[name], project, [call("ls"), said(CLEAN)], timebox="turns:1")
    assert len(bodies) == 1 and outcome.stopped and "Timebox budget spent" in outcome.output


@pytest.mark.parametrize("name", DRIVERS)
@pytest.mark.parametrize("passed", [True, False], ids=["tests-pass", "tests-fail"])
def test_exit_codes_of_the_guard_s_bash_reach_the_observers(
    name: str, passed: bool, project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_pytest(tmp_path / "bin", monkeypatch)
    (project / ".rein" / "steering.toml").write_text(commit_gated_on_pytest())  # exit_code = 0
    commit = "git -c user.name=t -c user.email=t@t commit -q --allow-empty -m done"
    replies = [call(f"pytest {0 if passed else 1}"), call(commit, "call_2"), said(CLEAN)]
    outcome, bodies, _ = scenario(DRIVERS[name], project, replies, guard_bash=True)
    assert len(bodies) == 3 and outcome.output == CLEAN
    assert "pytest ran, exit" in bodies[1]  # the tool really ran, its output went to the model
    log = subprocess.run(
        ["git", "log", "--oneline"], check=False, cwd=project, capture_output=True, text=True
    )
    assert ("done" in log.stdout) is passed
    assert ("test-before-commit" in bodies[2]) is not passed
