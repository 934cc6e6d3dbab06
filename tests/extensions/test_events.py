"""The typed events: one class per event, `on` typed per name, the runtime handing each handler its
class, and the event table of docs/extensions.md generated from `EVENTS`."""

from __future__ import annotations

import asyncio
import re
import typing
from pathlib import Path

import pytest
from mypy import api as mypy_api

from rein.agent import AgentEvent
from rein.extensions import (
    EVENTS,
    AgentNotice,
    ApprovalModeEvent,
    ExtensionAPI,
    ExtensionContext,
    MessageEndEvent,
    Notice,
    SessionStartEvent,
    SessionTreeEvent,
    TurnEndEvent,
)
from tests import extension_events_doc
from tests.extensions.test_runner import make

ROOT = Path(__file__).resolve().parents[2]


def test_the_docs_event_table_is_the_code_s() -> None:
    text = extension_events_doc.DOC.read_text()
    assert text == extension_events_doc.rendered(text), (
        "docs/extensions.md is stale: run python -m tests.extension_events_doc"
    )
    table = text[text.index(extension_events_doc.BEGIN) : text.index(extension_events_doc.END)]
    assert re.findall(r"^\| `(\w+)` \| `(\w+)` \|", table, re.MULTILINE) == [
        (kind.name, kind.event.__name__) for kind in EVENTS
    ]


def test_on_has_one_overload_per_event_typed_with_its_class() -> None:
    overloads = typing.get_overloads(ExtensionAPI.on)
    named = [o for o in overloads if o.__annotations__["event"] != "str"]
    assert [re.sub(r"Literal\[.(\w+).\]", r"\1", o.__annotations__["event"]) for o in named] == [
        kind.name for kind in EVENTS
    ]
    for kind, overload in zip(EVENTS, named, strict=True):
        assert overload.__annotations__["handler"].startswith(f"EventHandler[{kind.event.__name__}, ")
    assert len(overloads) == len(EVENTS) + 1  # and one for an extension's own events (a `Notice`)


def test_every_loop_event_has_its_class() -> None:
    loop_events = typing.get_args(typing.get_type_hints(AgentEvent)["type"])
    classes = {kind.name: kind.event for kind in EVENTS}
    assert loop_events and all(issubclass(classes[name], AgentNotice) for name in loop_events)
    assert len({kind.event for kind in EVENTS}) == len(EVENTS)


def test_each_handler_receives_its_event_s_class() -> None:
    registry, runner, errors, host = make()
    api = ExtensionAPI("x", registry, host)
    seen: list[Notice] = []

    def remember(event: Notice, ctx: ExtensionContext) -> None:
        seen.append(event)

    api.on("session_start", remember)
    api.on("session_tree", remember)
    api.on("turn_end", remember)
    api.on("message_end", remember)
    api.on("approval_mode", remember)
    api.on("my_own", remember)
    end = AgentEvent(type="turn_end")
    for name, payload in [
        ("session_start", None),
        ("session_tree", "e1"),
        ("turn_end", end),
        ("message_end", AgentEvent(type="message_end")),
        ("approval_mode", "deny"),
        ("my_own", 7),
    ]:
        asyncio.run(runner.notify(name, payload))
    assert [type(event) for event in seen] == [
        SessionStartEvent,
        SessionTreeEvent,
        TurnEndEvent,
        MessageEndEvent,
        ApprovalModeEvent,
        Notice,
    ]
    assert [(e.name, e.payload) for e in seen[1:3]] == [("session_tree", "e1"), ("turn_end", end)]
    assert seen[-1] == Notice(name="my_own", payload=7) and errors == []


def test_an_extension_cannot_emit_rein_s_events_or_a_wrong_payload() -> None:
    registry, _, _, host = make()
    api = ExtensionAPI("x", registry, host)
    for name in ("tool_call", "context", "turn_end", "session_start"):
        with pytest.raises(ValueError, match=f"{name} is rein's own event"):
            api.emit(name)
    with pytest.raises(TypeError, match="approval_mode must be"):
        api.emit("approval_mode", None)
    with pytest.raises(TypeError, match="ttsr_triggered must be"):
        api.emit("ttsr_triggered", ["a list"])
    api.emit("approval_mode", "ask")
    api.emit("my_own", {"any": "payload"})
    assert host.notices == ["approval_mode", "my_own"]


HANDLERS = """
from rein.agent import Block, ToolOutput
from rein.extensions import ExtensionAPI, ExtensionContext, ToolCallEvent, ToolResultEvent, TurnEndEvent


async def block(event: ToolCallEvent, ctx: ExtensionContext) -> Block | None:
    return None


def rewrite(event: ToolResultEvent, ctx: ExtensionContext) -> ToolOutput | None:
    return None


def extension(rein: ExtensionAPI) -> None:
    rein.on("tool_call", block)
    rein.on("tool_result", rewrite)
    rein.on("turn_end", lambda event, ctx: print(event.payload.message))
    rein.on("tool_call", rewrite)  # wrong: a tool_result handler
    rein.on("tool_result", block)  # wrong: answers a Block
    rein.on("input", lambda event, ctx: event.info)  # wrong: an InputEvent has no `info`
"""


def test_mypy_sees_a_handler_typed_for_another_event(tmp_path: Path) -> None:
    source = tmp_path / "handlers.py"
    source.write_text(HANDLERS)
    out, _, status = mypy_api.run(
        ["--strict", "--no-incremental", "--cache-dir=/dev/null", "--follow-imports=silent", str(source)]
    )
    wrong = sorted({int(line.split(":")[1]) for line in out.splitlines() if "error:" in line})
    lines = HANDLERS.splitlines()
    assert status == 1 and [lines[n - 1].split("#")[1].strip() for n in wrong] == [
        "wrong: a tool_result handler",
        "wrong: answers a Block",
        "wrong: an InputEvent has no `info`",
    ], out
