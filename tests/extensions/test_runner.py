"""The extension runner's rules for combining answers, and extension discovery."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from rein.agent import AgentMessage, Block, CustomMessage, ToolCallInfo, ToolOutput
from rein.ai import ToolCall
from rein.extensions import (
    ExtensionAPI,
    ExtensionContext,
    ExtensionRunner,
    Handled,
    InputEvent,
    Level,
    Registry,
    ToolCallEvent,
    ToolResultEvent,
    TurnStartEvent,
    discover_extensions,
)


@dataclass
class Host:
    entries: list[tuple[str, Mapping[str, object]]] = field(default_factory=list)
    messages: list[str] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)

    def append_entry(self, custom_type: str, data: Mapping[str, object]) -> None:
        self.entries.append((custom_type, data))

    def send_message(
        self, custom_type: str, content: str, *, display: bool, details: Mapping[str, object]
    ) -> None:
        self.messages.append(content)

    def emit_notice(self, event: str, payload: object) -> None:
        self.notices.append(event)


@dataclass
class View:
    cwd: str = "/p"
    messages: Sequence[AgentMessage] = ()

    def custom_entries(self, custom_type: str) -> Sequence[Mapping[str, object]]:
        return []

    @property
    def branch_messages(self) -> Sequence[AgentMessage]:
        return self.messages

    def user_message_count(self) -> int:
        return 0


class UI:
    def notify(self, message: str, level: Level = "info") -> None: ...

    def set_status(self, key: str, text: str | None) -> None: ...

    async def select(self, title: str, options: Sequence[str]) -> str | None:
        return None

    async def input(self, title: str, placeholder: str = "") -> str | None:
        return None


def make() -> tuple[Registry, ExtensionRunner, list[tuple[str, str]], Host]:
    registry = Registry()
    errors: list[tuple[str, str]] = []
    context = ExtensionContext(ui=UI(), session=View(), abort=lambda: None)
    runner = ExtensionRunner(
        registry, lambda: context, lambda name, event, error: errors.append((name, event))
    )
    return registry, runner, errors, Host()


INFO = ToolCallInfo(call=ToolCall(id="1", name="bash", arguments={"command": "ls"}), tool=None)


def test_tool_call_first_block_wins_and_a_raise_blocks() -> None:
    registry, runner, errors, host = make()
    a, b = ExtensionAPI("a", registry, host), ExtensionAPI("b", registry, host)
    a.on("tool_call", lambda event, ctx: None)
    b.on("tool_call", lambda event, ctx: Block(reason="b says no"))
    a.on("tool_call", lambda event, ctx: Block(reason="never asked"))
    assert asyncio.run(runner.tool_call(INFO)) == Block(reason="b says no")

    registry, runner, errors, host = make()

    async def boom(event: ToolCallEvent, ctx: ExtensionContext) -> None:
        raise RuntimeError("bad")

    ExtensionAPI("c", registry, host).on("tool_call", boom)
    blocked = asyncio.run(runner.tool_call(INFO))
    assert blocked is not None and "extension c failed" in blocked.reason
    assert errors == [("c", "tool_call")]


def test_tool_result_and_context_are_chained() -> None:
    registry, runner, _, host = make()
    api = ExtensionAPI("x", registry, host)

    def first(event: ToolResultEvent, ctx: ExtensionContext) -> ToolOutput | None:
        return ToolOutput(text=event.output.text + " +1")

    async def second(event: ToolResultEvent, ctx: ExtensionContext) -> ToolOutput | None:
        return ToolOutput(text=event.output.text + " +2")

    api.on("tool_result", first)
    api.on("tool_result", lambda event, ctx: None)
    api.on("tool_result", second)
    assert asyncio.run(runner.tool_result(INFO, ToolOutput(text="out"))).text == "out +1 +2"
    api.on("context", lambda event, ctx: [CustomMessage(custom_type="t", content="only")])
    assert asyncio.run(runner.context([])) == [CustomMessage(custom_type="t", content="only")]


def test_before_agent_start_appends_and_input_can_be_handled() -> None:
    registry, runner, _, host = make()
    api = ExtensionAPI("x", registry, host)
    api.on("before_agent_start", lambda event, ctx: "Budget: 5 minutes left.")
    api.on("before_agent_start", lambda event, ctx: None)
    assert asyncio.run(runner.before_agent_start("hi", "Base.")) == "Base.\n\nBudget: 5 minutes left."

    def rewrite(event: InputEvent, ctx: ExtensionContext) -> str | Handled | None:
        if event.text.startswith("$timebox"):
            return Handled()
        return event.text.upper()

    api.on("input", rewrite)
    assert asyncio.run(runner.input("hello")) == "HELLO"
    assert isinstance(asyncio.run(runner.input("$timebox 5m")), Handled)


def test_notifications_report_errors_and_go_on() -> None:
    registry, runner, errors, host = make()
    seen: list[str] = []
    api = ExtensionAPI("x", registry, host)

    def boom(event: TurnStartEvent, ctx: ExtensionContext) -> None:
        raise ZeroDivisionError("division by zero")

    api.on("turn_start", boom)
    api.on("turn_start", lambda event, ctx: seen.append("second"))
    asyncio.run(runner.notify("turn_start"))
    assert seen == ["second"] and errors == [("x", "turn_start")]


def test_api_writes_through_the_host() -> None:
    registry, _, _, host = make()
    api = ExtensionAPI("x", registry, host)
    api.append_entry("state", {"a": 1})
    api.send_message("note", "hello", display=False)
    api.emit("ttsr_triggered", ())
    assert (
        host.entries == [("state", {"a": 1})]
        and host.messages == ["hello"]
        and host.notices == ["ttsr_triggered"]
    )


def test_discovery_loads_project_then_home_and_reports_broken_ones(tmp_path: Path) -> None:
    project, home = tmp_path / "p", tmp_path / "h"
    (project / ".rein" / "extensions").mkdir(parents=True)
    (home / ".rein" / "extensions").mkdir(parents=True)
    (project / ".rein" / "extensions" / "good.py").write_text(
        "def extension(rein):\n    rein.on('x', print)\n"
    )
    (home / ".rein" / "extensions" / "good.py").write_text("raise SystemError('shadowed, never loaded')\n")
    (home / ".rein" / "extensions" / "broken.py").write_text("import no_such_module_xyz\n")
    (home / ".rein" / "extensions" / "empty.py").write_text("x = 1\n")
    found = {f.name: f for f in discover_extensions(project, home, entry_points=False)}
    assert found["good"].factory is not None and found["good"].origin.startswith(str(project))
    assert found["broken"].factory is None and "no_such_module_xyz" in (found["broken"].problem or "")
    assert found["empty"].problem == "defines no `extension(rein)` function"
