"""The session's events as the screen shows them: what stays live, what goes to the scrollback, in
what order, and how a cut, an abort and an error read."""

from __future__ import annotations

from prompt_toolkit.formatted_text import StyleAndTextTuples

from rein.agent import AgentEvent, CustomMessage, StreamDelta, ToolOutput
from rein.ai import AssistantMessage, TextContent, ThinkingContent, ToolCall, Usage
from rein.tui._events import EventView, live_lines
from rein.tui._live import Live
from rein.tui._scrollback import Scrollback
from rein.tui._style import STYLE


class Recorder(Scrollback):
    def __init__(self) -> None:
        super().__init__(STYLE)
        self.lines: list[str] = []

    def write(self, fragments: StyleAndTextTuples) -> None:
        self.lines.append("".join(fragment[1] for fragment in fragments))


def view(keep: int = 2) -> tuple[EventView, Live, Recorder, list[object]]:
    live, out = Live(), Recorder()
    calls: list[object] = []
    events = EventView(
        live, out, lambda: None, abort=lambda: calls.append("abort"), switched=calls.append, keep=keep
    )
    return events, live, out, calls


def reply(
    *blocks: TextContent | ThinkingContent | ToolCall, stop: str = "stop", error: str | None = None
) -> AssistantMessage:
    return AssistantMessage(
        content=tuple(blocks),
        provider="test",
        model="m",
        usage=Usage(input=10, output=5),
        stop_reason=stop,  # type: ignore[arg-type]
        error_message=error,
    )


def delta(
    source: str, text: str, partial: AssistantMessage, *, index: int = 0, final: bool = False
) -> AgentEvent:
    piece = StreamDelta(source=source, delta=text, index=index, partial=partial, final=final)  # type: ignore[arg-type]
    return AgentEvent(type="message_update", message=partial, delta=piece)


def text_of(live: Live) -> str:
    return "".join(fragment[1] for fragment in live_lines(live))


def test_finished_lines_move_to_the_scrollback_and_the_last_ones_stay_live() -> None:
    events, live, out, _ = view(keep=2)
    partial = reply()
    events.event(AgentEvent(type="message_start", message=partial))
    events.event(delta("text", "one\ntwo\nthree\nfour", partial))
    assert out.lines == ["one"]
    assert text_of(live) == "two\nthree\nfour"
    events.event(AgentEvent(type="message_end", message=reply(TextContent(text="one\ntwo\nthree\nfour"))))
    assert out.lines == ["one", "two\nthree\nfour"]
    assert text_of(live) == "" and live.tokens == 15


def test_thinking_folds_to_one_line_before_the_text_that_follows() -> None:
    events, live, out, _ = view()
    partial = reply()
    events.event(delta("thinking", "First I look.\nThen I decide.", partial))
    assert "[thinking] First I look. Then I decide." in text_of(live)
    events.event(delta("text", "Answer.", partial, index=1))
    events.event(AgentEvent(type="message_end", message=reply()))
    assert out.lines == ["[thinking] First I look. ...", "Answer."]


def test_a_tool_call_shows_while_it_runs_and_folds_with_its_output() -> None:
    events, live, out, _ = view()
    call = ToolCall(id="c1", name="bash", arguments={"command": "pytest -q"})
    events.event(delta("tool", '{"command": "pytest -q"}', reply(call), index=0))
    assert text_of(live) == "[bash] pytest -q"
    events.event(AgentEvent(type="message_end", message=reply(call, stop="tool_use")))
    events.event(AgentEvent(type="tool_execution_start", tool_call=call))
    assert text_of(live).startswith("[bash] pytest -q  running 0s")
    output = ToolOutput(text="\n".join(f"line {i}" for i in range(1, 8)))
    events.event(AgentEvent(type="tool_execution_end", tool_call=call, output=output))
    assert out.lines == ["[bash] pytest -q\n  line 1\n  line 2\n  line 3\n  line 4\n  ... 3 more lines"]
    assert text_of(live) == ""


def test_a_cut_drops_the_live_text_and_says_why() -> None:
    events, live, out, _ = view(keep=5)
    partial = reply()
    events.event(delta("text", "console.lo", partial))
    events.event(AgentEvent(type="stream_retry", message=partial, reason="stream rule: no-console"))
    assert text_of(live) == ""
    assert out.lines == ["[cut] stream rule: no-console: the reply is dropped and retried"]
    events.notice("ttsr_triggered", ("a rule",))
    assert live.firings == 1


def test_an_abort_and_an_error_are_one_line_each() -> None:
    events, _, out, _ = view()
    events.event(delta("text", "half", reply()))
    events.event(AgentEvent(type="message_end", message=reply(TextContent(text="half"), stop="aborted")))
    failed = reply(stop="error", error="HTTP 500: upstream died\nretry later")
    events.event(AgentEvent(type="message_end", message=failed))
    assert out.lines == ["half", "[aborted]", "[error] HTTP 500: upstream died ..."]


def test_shown_custom_messages_and_the_session_switch() -> None:
    events, live, out, calls = view()
    live.firings = 3
    shown = CustomMessage(custom_type="note", content="timebox: 5 minutes left", display=True)
    hidden = CustomMessage(custom_type="ttsr-injection", content="secret", display=False)
    events.event(AgentEvent(type="message_end", message=shown))
    events.event(AgentEvent(type="message_end", message=hidden))
    events.notice("session_switched", "store")
    assert out.lines == ["timebox: 5 minutes left"]
    assert calls == ["store"] and live.firings == 0


def test_an_abort_asked_before_the_run_began_is_repeated_when_it_begins() -> None:
    events, live, _, calls = view()
    live.begin()
    live.abort_requested = True
    events.event(AgentEvent(type="agent_start"))
    assert calls == ["abort"] and not live.abort_requested


def test_queued_prompts_show_in_the_live_area() -> None:
    live = Live()
    live.queued.extend(["fix it", "then test\nall of it"])
    assert text_of(live) == "queued: fix it\nqueued: then test ..."
