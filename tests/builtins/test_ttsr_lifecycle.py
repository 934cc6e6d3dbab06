"""The stream-rule lifecycle in a real session on the faux provider (seed 001, sections 3 to 9)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path
from typing import Literal

from rein.agent import CustomMessage, StreamDelta
from rein.ai import (
    AssistantMessage,
    Context,
    FauxReply,
    TextContent,
    ThinkingContent,
    ToolCall,
    ToolResultMessage,
    UserMessage,
)
from rein.ai.providers.faux import FauxTurn
from rein.builtins.ttsr import StreamedText
from rein.session import Session
from tests.builtins.conftest import MakeHarness


def rule(project: Path, name: str, body: str = "Use the logger.", **front: str) -> None:
    folder = project / ".rein" / "rules"
    folder.mkdir(parents=True, exist_ok=True)
    meta = "\n".join(f"{k}: {v}" for k, v in {"condition": "'console\\.log\\('", **front}.items())
    (folder / f"{name}.md").write_text(f"---\n{meta}\n---\n{body}\n")


def lines(store: Session) -> list[dict[str, object]]:
    assert store.path is not None
    return [json.loads(line) for line in store.path.read_text().splitlines()[1:]]


def contexts() -> tuple[list[Context], Callable[[str], Callable[[Context], FauxTurn]]]:
    seen: list[Context] = []

    def reply(text: str) -> Callable[[Context], FauxTurn]:
        def make(context: Context) -> FauxTurn:
            seen.append(context)
            return [TextContent(text=text)]

        return make

    return seen, reply


def test_interrupt_cuts_injects_persists_and_retries(harness: MakeHarness) -> None:
    seen, reply = contexts()
    h = harness([[TextContent(text="function f() { console.log(x); return 1 }")], reply("log.info(x)")])
    rule(h.project, "no-console")
    asyncio.run(h.session.start())
    added = asyncio.run(h.session.prompt("write f"))
    assert h.faux.calls == 2
    retry_context = str(seen[0].messages)
    assert "Use the logger." in retry_context and "console.log(x)" not in retry_context
    assert "system-interrupt" in retry_context
    assert [type(m).__name__ for m in added] == ["UserMessage", "CustomMessage", "AssistantMessage"]
    injection = added[1]
    assert isinstance(injection, CustomMessage) and not injection.display
    assert [e.type for e in h.events].count("stream_retry") == 1
    assert [name for name, _ in h.notices if name != "approval_mode"] == ["ttsr_triggered"]
    stored = lines(h.store)
    kinds = [(e["type"], e.get("custom_type")) for e in stored]
    assert ("custom", "ttsr_injection") in kinds and ("custom_message", "ttsr-injection") in kinds
    assert "console.log(x)" not in json.dumps(stored)


def test_keep_mode_keeps_the_partial_reply(harness: MakeHarness) -> None:
    seen, reply = contexts()
    h = harness(
        [[TextContent(text="a console.log(1) b")], reply("ok")],
        settings={"ttsr": {"context_mode": "keep"}},
    )
    rule(h.project, "no-console")
    asyncio.run(h.session.start())
    asyncio.run(h.session.prompt("go"))
    kept = [m for m in seen[0].messages if isinstance(m, AssistantMessage)]
    assert len(kept) == 1 and "console.log(" in kept[0].text


def test_once_rules_do_not_fire_again_and_survive_a_resume(harness: MakeHarness) -> None:
    h = harness(
        [[TextContent(text="console.log(1)")], [TextContent(text="ok")], [TextContent(text="console.log(2)")]]
    )
    rule(h.project, "no-console")
    asyncio.run(h.session.start())
    asyncio.run(h.session.prompt("one"))
    assert h.faux.calls == 2
    added = asyncio.run(h.session.prompt("two"))
    assert (
        h.faux.calls == 3 and isinstance(added[-1], AssistantMessage) and "console.log(2)" in added[-1].text
    )
    assert h.store.path is not None
    resumed = harness([[TextContent(text="console.log(3)")]], store=Session.open(h.store.path))
    asyncio.run(resumed.session.start())
    asyncio.run(resumed.session.prompt("three"))
    assert resumed.faux.calls == 1  # restored: the rule was already injected


def test_after_gap_fires_again_after_enough_turns(harness: MakeHarness) -> None:
    script: list[FauxTurn] = []
    for text in ["console.log(1)", "ok", "x", "y", "console.log(2)", "ok2"]:
        script.append([TextContent(text=text)])
    h = harness(script)
    rule(h.project, "gap", repeatMode="after-gap", repeatGap="2")
    asyncio.run(h.session.start())
    asyncio.run(h.session.prompt("a"))  # fires, retry: turn 1 completed
    asyncio.run(h.session.prompt("b"))  # turn 2
    asyncio.run(h.session.prompt("c"))  # turn 3
    asyncio.run(h.session.prompt("d"))  # gap reached: fires again, retry
    assert h.faux.calls == 6
    assert [n for n, _ in h.notices].count("ttsr_triggered") == 2


def test_non_interrupting_tool_match_becomes_a_reminder_on_the_result(harness: MakeHarness) -> None:
    h = harness(
        [
            [ToolCall(id="w1", name="write", arguments={"path": "a.js", "content": "console.log(1)\n"})],
            [TextContent(text="done")],
        ]
    )
    rule(h.project, "no-console", interruptMode="never", scope="'tool:write(*.js)'")
    asyncio.run(h.session.start())
    added = asyncio.run(h.session.prompt("write a.js"))
    result = next(m for m in added if isinstance(m, ToolResultMessage))
    text = result.content[0].text if isinstance(result.content[0], TextContent) else ""
    assert text.startswith("<system-reminder") and "Use the logger." in text and "Wrote" in text
    assert (h.project / "a.js").exists() and h.faux.calls == 2
    assert any(e.get("custom_type") == "ttsr_injection" for e in lines(h.store))


def test_tool_reminders_are_dropped_when_the_reply_fails(harness: MakeHarness) -> None:
    h = harness(
        [
            FauxReply(
                blocks=(
                    ToolCall(id="w1", name="write", arguments={"path": "a.js", "content": "console.log(1)"}),
                ),
                error="connection reset",
            ),
            [ToolCall(id="w2", name="write", arguments={"path": "b.js", "content": "console.log(2)"})],
            [TextContent(text="done")],
        ]
    )
    rule(h.project, "no-console", interruptMode="never", scope="'tool:write(*.js)'")
    asyncio.run(h.session.start())
    asyncio.run(h.session.prompt("first"))
    assert not any(e.get("custom_type") == "ttsr_injection" for e in lines(h.store))
    added = asyncio.run(h.session.prompt("second"))
    result = next(m for m in added if isinstance(m, ToolResultMessage))
    assert "<system-reminder" in str(result.content[0])  # still eligible after the failed reply


def test_non_interrupting_prose_match_queues_a_hidden_follow_up(harness: MakeHarness) -> None:
    seen, reply = contexts()
    h = harness([[TextContent(text="try console.log(x)")], reply("noted")])
    rule(h.project, "no-console", interruptMode="never")
    asyncio.run(h.session.start())
    added = asyncio.run(h.session.prompt("debug"))
    assert h.faux.calls == 2
    assert isinstance(added[1], AssistantMessage) and "console.log(x)" in added[1].text
    assert isinstance(added[2], CustomMessage) and "Use the logger." in added[2].content
    assert isinstance(seen[0].messages[-1], UserMessage)


def test_bad_rules_are_reported_and_the_others_load(harness: MakeHarness) -> None:
    h = harness([[TextContent(text="console.log(1)")], [TextContent(text="ok")]])
    rule(h.project, "good")
    (h.project / ".rein" / "rules" / "bad.md").write_text("---\ncondition: '('\n---\nx\n")
    asyncio.run(h.session.start())
    assert any("bad" in message and level == "warning" for message, level in h.ui.notices)
    asyncio.run(h.session.prompt("go"))
    assert h.faux.calls == 2


def test_extensions_hear_ttsr_triggered(harness: MakeHarness) -> None:
    heard: list[object] = []
    h = harness([[TextContent(text="console.log(1)")], [TextContent(text="ok")]])
    rule(h.project, "no-console")
    h.session.load_extension(
        "listener", lambda rein: rein.on("ttsr_triggered", lambda event, ctx: heard.append(event))
    )
    asyncio.run(h.session.start())
    asyncio.run(h.session.prompt("go"))
    assert len(heard) == 1
    payload = getattr(heard[0], "payload", ())
    assert [r.name for r in payload] == ["no-console"]


def _records(store: Session) -> list[dict[str, object]]:
    found: list[dict[str, object]] = []
    for entry in lines(store):
        data = entry.get("data")
        if entry.get("custom_type") == "ttsr_injection" and isinstance(data, dict):
            found.append(data)
    return found


def test_a_cut_records_the_text_it_dropped(harness: MakeHarness) -> None:
    reply = "function f() { console.log(x); return 1 }"
    h = harness([[TextContent(text=reply)], [TextContent(text="log.info(x)")]])
    rule(h.project, "no-console")
    asyncio.run(h.session.start())
    asyncio.run(h.session.prompt("write f"))
    (record,) = _records(h.store)
    cut = record["cut"]
    assert isinstance(cut, dict) and cut["source"] == "text" and "toolName" not in cut
    text = cut["text"]
    assert isinstance(text, str) and reply.startswith(text), "the streamed text, as it came"
    assert "console.log(" in text, "the matching delta is included"
    assert "return" not in text, "nothing streamed after the cut"
    assert record["rules"] == ["no-console"] and isinstance(record["records"], list)


def test_a_cut_keeps_only_the_last_2000_characters_of_its_source(harness: MakeHarness) -> None:
    reply = "".join(f"line {i}\n" for i in range(600)) + "console.log(x) and more"
    h = harness([[ThinkingContent(thinking="t" * 5000), TextContent(text=reply)], [TextContent(text="ok")]])
    rule(h.project, "no-console")
    asyncio.run(h.session.start())
    asyncio.run(h.session.prompt("go"))
    (record,) = _records(h.store)
    cut = record["cut"]
    assert isinstance(cut, dict) and cut["source"] == "text"
    text = cut["text"]
    assert isinstance(text, str) and len(text) == 2000 and "t" * 10 not in text  # text only
    end = reply.index(text) + len(text)
    assert reply.index("console.log(") + len("console.log(") <= end < reply.index("more")


def test_a_cut_in_a_tool_call_names_the_tool(harness: MakeHarness) -> None:
    write = ToolCall(id="w1", name="write", arguments={"path": "a.js", "content": "x = 1\nconsole.log(x)\n"})
    h = harness([[TextContent(text="writing"), write], [TextContent(text="done")]])
    rule(h.project, "no-console", scope="'tool:write(*.js)'")
    asyncio.run(h.session.start())
    asyncio.run(h.session.prompt("write a.js"))
    assert not (h.project / "a.js").exists(), "the cut call never ran"
    (record,) = _records(h.store)
    cut = record["cut"]
    assert isinstance(cut, dict) and (cut["source"], cut["toolName"]) == ("tool", "write")
    assert isinstance(cut["text"], str) and "console.log(" in cut["text"] and "writing" not in cut["text"]


def test_a_reminder_records_no_cut(harness: MakeHarness) -> None:
    h = harness([[TextContent(text="try console.log(x)")], [TextContent(text="noted")]])
    rule(h.project, "no-console", interruptMode="never")
    asyncio.run(h.session.start())
    asyncio.run(h.session.prompt("debug"))
    (record,) = _records(h.store)
    assert record["rules"] == ["no-console"] and "cut" not in record


def test_streamed_text_is_kept_per_source_and_per_call_until_reset() -> None:
    streamed = StreamedText()
    partial = AssistantMessage(provider="faux", model="faux-1")

    def delta(source: Literal["text", "thinking", "tool"], text: str, call: str | None = None) -> StreamDelta:
        name = "bash" if call else None
        return StreamDelta(
            source=source, delta=text, index=0, partial=partial, tool_call_id=call, tool_name=name
        )

    for piece in ("ab", "cd"):
        streamed.add(delta("text", piece))
        streamed.add(delta("thinking", piece.upper()))
    streamed.add(delta("tool", '{"command": "ls', "c1"))
    streamed.add(delta("tool", '{"command": "rm', "c2"))
    assert streamed.cut(delta("text", "")) == {"source": "text", "text": "abcd"}
    assert streamed.cut(delta("thinking", "")) == {"source": "thinking", "text": "ABCD"}
    assert streamed.cut(delta("tool", "", "c2")) == {
        "source": "tool", "text": '{"command": "rm', "toolName": "bash",
    }  # fmt: skip
    streamed.add(delta("text", "x" * 2500))
    assert streamed.cut(delta("text", "")) == {"source": "text", "text": "x" * 2000}
    streamed.reset()
    assert streamed.cut(delta("text", "")) == {"source": "text", "text": ""}
