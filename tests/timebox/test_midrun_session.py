"""The mid-run stop in rein's own agent session (issue 12, point 4): a tool call cut by the timer (fake
clock and timer), and a slow faux reply cut under a real one-second budget on the real event loop."""

from __future__ import annotations

import asyncio
import json
import re
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Literal

import pytest

from rein.agent import ToolContext, ToolOutput
from rein.ai import AssistantMessage, FauxProvider, Model, TextContent, ToolCall
from rein.ai.providers.faux import FauxScript
from rein.builtins.timebox import TimeboxExtension, extension
from rein.extensions import ExtensionAPI
from rein.session import AgentSession, Session
from tests.timebox.rein_harness import MIN, T0, UI, Clock, Scheduler

FAUX = Model(provider="faux", id="faux-1")


class Wait:
    """A tool that lets time pass while it runs (`during`), then says whether its run was aborted."""

    name = "wait"
    description = "Wait a while."
    parameters: Mapping[str, object] = {"type": "object", "properties": {}}
    execution_mode: Literal["parallel", "sequential"] = "sequential"

    def __init__(self, during: Callable[[], None]) -> None:
        self._during = during
        self.aborted: bool | None = None

    def mutates(self, args: Mapping[str, object], cwd: str) -> str | None:
        return None

    async def execute(self, args: Mapping[str, object], context: ToolContext) -> ToolOutput:
        self._during()
        self.aborted = context.abort.aborted
        return ToolOutput(text="waited")


def session(
    tmp_path: Path, script: FauxScript, ui: UI, *, delay: float = 0.0, tools: list[Wait]
) -> AgentSession:
    store = Session.create(str(tmp_path), home=tmp_path)
    provider = FauxProvider(script, delay=delay)
    return AgentSession(store=store, provider=provider, model=FAUX, cwd=str(tmp_path), ui=ui, tools=tools)


def stored(agent: AgentSession) -> list[dict[str, object]]:
    """The session file's entries, as written."""
    path = agent.store.path
    assert path is not None
    return [json.loads(line) for line in path.read_text().splitlines()[1:]]


def spent_records(agent: AgentSession) -> list[object]:
    return [
        entry["data"]
        for entry in stored(agent)
        if "timebox-active" in entry.values() and isinstance(entry.get("data"), dict)
    ]


def test_a_stop_while_a_tool_runs_aborts_the_tool_and_ends_the_run(tmp_path: Path) -> None:
    clock, scheduler, ui = Clock(T0), Scheduler(), UI()

    def ten_minutes_pass() -> None:
        clock.advance(10 * MIN)
        scheduler.tick()  # the timer set for the stop fires while the tool runs

    wait = Wait(ten_minutes_pass)
    call = ToolCall(id="c1", name="wait", arguments={})
    script: FauxScript = [[call], [TextContent(text="never asked for")]]
    agent = session(tmp_path, script, ui, tools=[wait])

    def load(rein: ExtensionAPI) -> None:
        TimeboxExtension(rein, clock=clock, scheduler=scheduler, run_on_stop=lambda _: None).register()

    agent.load_extension("timebox", load)

    async def main() -> None:
        await agent.start()
        await agent.prompt("/timebox 10m")
        await agent.prompt("wait for it")

    asyncio.run(main())
    assert wait.aborted is True
    assert isinstance(agent.provider, FauxProvider) and agent.provider.calls == 1  # no request after
    assert ui.notices[-1] == (
        "error",
        "Timebox budget spent (10m). Used 0 turns, 10m 0s. "
        "The agent stops for this turn. The chat continues.",
    )
    assert [record["active"] for record in spent_records(agent) if isinstance(record, dict)] == [True, False]


@pytest.mark.slow
def test_a_slow_reply_is_cut_when_a_one_second_budget_runs_out(tmp_path: Path) -> None:
    """The real clock and event loop: a reply that would stream for 20 s is aborted at about 1 s."""
    text = "word " * 400  # 500 deltas of 4 characters, 40 ms apart
    ui = UI()
    agent = session(tmp_path, [[TextContent(text=text)]], ui, delay=0.04, tools=[])
    agent.load_extension("timebox", extension)

    async def main() -> float:
        await agent.start()
        await agent.prompt("/timebox 1s")
        began = time.monotonic()
        await agent.prompt("talk for a long time")
        took = time.monotonic() - began
        await agent.shutdown()
        return took

    took = asyncio.run(main())
    [cut] = [m for m in agent.messages if isinstance(m, AssistantMessage)]
    assert cut.stop_reason == "aborted"
    assert 0 < len(cut.text) < len(text)
    assert took < 15  # cut, not streamed to the end (20 s): a bound for a loaded machine
    assert [level for level, _ in ui.notices] == ["info", "warning", "error"]
    assert re.fullmatch(r"Timebox budget spent \(1s\)\. Used 0 turns, \d+s\. .*", ui.notices[-1][1])
    records = spent_records(agent)
    assert [record["active"] for record in records if isinstance(record, dict)] == [True, False]
    replies = [entry["message"] for entry in stored(agent) if isinstance(entry.get("message"), dict)]
    assert [r["stop_reason"] for r in replies if isinstance(r, dict) and r["role"] == "assistant"] == [
        "aborted"
    ]
