"""The Responses codec driven directly, with a small harness playing the relay: feed every event, render
every piece in order (optionally in parts), cut after a budget of content characters, retry. What the
client receives is checked by `validate`, which runs it through the openai SDK's own stream state
machine and checks numbering, ids and that every done / completed event carries what was streamed."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from openai import omit
from openai._models import construct_type
from openai.lib.streaming.responses._responses import ResponseStreamState
from openai.types.responses import ResponseStreamEvent

from rein.ai import JsonValue, TextContent, ThinkingContent, ToolCall
from rein.ai.testing import Event, responses_reply
from rein.proxy._codec import Json, Out, SseEvent
from rein.proxy._responses import ResponsesCodec
from rein.proxy._sse import SseParser
from rein.ttsr import MatchContext

BODY: Json = {"model": "gpt-test", "input": "hi", "stream": True}
Chunker = Callable[[str], list[str]]


# upstream streams as OpenAI writes them --------------------------------------------------------------


class Upstream:
    """A full Responses stream, every event OpenAI sends (content_part, text done events, ...)."""

    def __init__(self, rid: str = "resp_1", *, usage: tuple[int, int] | None = (10, 5)) -> None:
        self.rid, self.usage, self.seq = rid, usage, 0
        self.events: list[Event] = []
        self.output: list[JsonValue] = []
        self.add("response.created", response=self.response("in_progress"))
        self.add("response.in_progress", response=self.response("in_progress"))

    def add(self, kind: str, **fields: JsonValue) -> Upstream:
        self.events.append(Event(event=kind, data={"type": kind, "sequence_number": self.seq, **fields}))
        self.seq += 1
        return self

    def response(self, status: str) -> dict[str, JsonValue]:
        data: dict[str, JsonValue] = {
            "id": self.rid,
            "object": "response",
            "created_at": 7,
            "model": "gpt-test",
        }
        data.update(status=status, output=list(self.output), error=None, incomplete_details=None, usage=None)
        if status != "in_progress" and self.usage is not None:
            i, o = self.usage
            data["usage"] = {
                "input_tokens": i,
                "input_tokens_details": {"cached_tokens": 0},
                "output_tokens": o,
                "output_tokens_details": {"reasoning_tokens": 0},
                "total_tokens": i + o,
            }
        return data

    def message(self, item_id: str, *texts: str, chunk: int = 4) -> Upstream:
        oi = len(self.output)
        self.add("response.output_item.added", output_index=oi, item=_message(item_id, "in_progress", []))
        parts: list[JsonValue] = []
        for ci, text in enumerate(texts):
            at: dict[str, JsonValue] = {"item_id": item_id, "output_index": oi, "content_index": ci}
            self.add(
                "response.content_part.added",
                **at,
                part={"type": "output_text", "text": "", "annotations": []},
            )
            for piece in _pieces(text, chunk):
                self.add("response.output_text.delta", **at, delta=piece, logprobs=[])
            self.add("response.output_text.done", **at, text=text, logprobs=[])
            part: JsonValue = {"type": "output_text", "text": text, "annotations": []}
            self.add("response.content_part.done", **at, part=part)
            parts.append(part)
        item = _message(item_id, "completed", parts)
        self.add("response.output_item.done", output_index=oi, item=item)
        self.output.append(item)
        return self

    def reasoning(self, item_id: str, *summaries: str, chunk: int = 4) -> Upstream:
        oi = len(self.output)
        self.add(
            "response.output_item.added",
            output_index=oi,
            item={"type": "reasoning", "id": item_id, "summary": []},
        )
        parts: list[JsonValue] = []
        for si, text in enumerate(summaries):
            at: dict[str, JsonValue] = {"item_id": item_id, "output_index": oi, "summary_index": si}
            self.add("response.reasoning_summary_part.added", **at, part={"type": "summary_text", "text": ""})
            for piece in _pieces(text, chunk):
                self.add("response.reasoning_summary_text.delta", **at, delta=piece)
            self.add("response.reasoning_summary_text.done", **at, text=text)
            self.add(
                "response.reasoning_summary_part.done", **at, part={"type": "summary_text", "text": text}
            )
            parts.append({"type": "summary_text", "text": text})
        item: JsonValue = {"type": "reasoning", "id": item_id, "summary": parts, "encrypted_content": "ENC"}
        self.add("response.output_item.done", output_index=oi, item=item)
        self.output.append(item)
        return self

    def call(self, item_id: str, call_id: str, name: str, arguments: str, *, chunk: int = 5) -> Upstream:
        oi = len(self.output)
        added: dict[str, JsonValue] = {
            "type": "function_call",
            "id": item_id,
            "call_id": call_id,
            "name": name,
        }
        added.update(arguments="", status="in_progress")
        self.add("response.output_item.added", output_index=oi, item=added)
        for piece in _pieces(arguments, chunk):
            self.add("response.function_call_arguments.delta", item_id=item_id, output_index=oi, delta=piece)
        self.add(
            "response.function_call_arguments.done", item_id=item_id, output_index=oi, arguments=arguments
        )
        item: JsonValue = {**added, "arguments": arguments, "status": "completed"}
        self.add("response.output_item.done", output_index=oi, item=item)
        self.output.append(item)
        return self

    def completed(self) -> list[Event]:
        return [*self.add("response.completed", response=self.response("completed")).events]


def _message(item_id: str, status: str, content: list[JsonValue]) -> JsonValue:
    return {"type": "message", "id": item_id, "status": status, "role": "assistant", "content": content}


def _pieces(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]


def sse_event(event: Event) -> SseEvent:
    data = event.data if isinstance(event.data, str) else json.dumps(event.data)
    return SseEvent(data, event.event)


# the relay, played -----------------------------------------------------------------------------------


@dataclass
class Harness:
    """Plays the relay. `attempt` feeds a stream and renders its pieces in order, each content piece in
    the parts `chunker` makes; with `budget`, content is rendered only up to that many characters (a tool
    call only whole), then the attempt is cut and `attempt` returns False."""

    codec: ResponsesCodec = field(default_factory=lambda: ResponsesCodec(BODY))
    wire: bytearray = field(default_factory=bytearray)
    outs: list[Out] = field(default_factory=list)
    shown: str = ""
    attempts: int = 0

    def attempt(
        self, events: Sequence[Event | SseEvent], *, budget: int | None = None, chunker: Chunker | None = None
    ) -> bool:
        if self.attempts:
            self.codec.start_attempt()
        self.attempts += 1
        held: list[Out] = []
        left = budget
        for event in events:
            outs = self.codec.feed(event if isinstance(event, SseEvent) else sse_event(event))
            self.outs.extend(outs)
            for out in outs:
                if out.context is not None and out.context.source == "tool":
                    held.append(out)
                    if not out.final:
                        continue
                    size = sum(len(o.text) for o in held)
                    if left is not None and size > left:
                        self.codec.cut()
                        return False
                    left = None if left is None else left - size
                    for piece in held:
                        self.wire += piece.render(piece.text)
                    held = []
                    continue
                if held:  # a structural event after an unfinished tool call waits for it
                    held.append(out)
                    continue
                parts = (chunker or (lambda t: [t]))(out.text) if out.text else [""]
                for part in parts:
                    if left is not None and len(part) > left:
                        if left:
                            self.wire += out.render(part[:left])
                            self.shown += part[:left] if _is_text(out) else ""
                        self.codec.cut()
                        return False
                    left = None if left is None else left - len(part)
                    self.wire += out.render(part)
                    self.shown += part if _is_text(out) else ""
        for piece in held:
            self.wire += piece.render(piece.text)
        return True


def _is_text(out: Out) -> bool:
    return out.context is not None and out.context.source == "text"


# what the client receives, checked -------------------------------------------------------------------


@dataclass
class Client:
    events: list[dict[str, JsonValue]]
    raw: list[SseEvent]
    texts: dict[str, str]
    """Streamed text per item id (every part and summary joined)."""
    arguments: dict[str, str]
    """Streamed arguments per call id."""
    final: dict[str, JsonValue] | None


def validate(wire: bytes, *, finished: bool = True) -> Client:
    parser = SseParser()
    raw = [*parser.feed(wire), *parser.close()]
    events: list[dict[str, JsonValue]] = []
    for sse in raw:
        data = sse.json()
        assert isinstance(data, dict)
        events.append(data)
    assert [e["sequence_number"] for e in events] == list(range(len(events)))
    assert events[0]["type"] == "response.created"
    types = [str(e["type"]) for e in events]
    assert types.count("response.created") == 1
    state: ResponseStreamState[object] = ResponseStreamState(input_tools=omit, text_format=omit)
    for data in events:
        state.handle_event(construct_type(type_=ResponseStreamEvent, value=data))  # type: ignore[arg-type]
    parts: dict[tuple[str, str, int], str] = {}
    items: dict[int, dict[str, JsonValue]] = {}
    arguments: dict[str, str] = {}
    calls: dict[str, str] = {}
    for data in events:
        kind = str(data["type"])
        if kind == "response.output_item.added":
            index, item = data["output_index"], data["item"]
            assert isinstance(index, int) and isinstance(item, dict)
            assert index == len(items), "output indices continue from 0"
            items[index] = item
            if item["type"] == "function_call":
                calls[str(item["id"])] = str(item["call_id"])
                arguments[str(item["call_id"])] = ""
        elif kind.endswith(".delta") and "item_id" in data:
            if kind == "response.function_call_arguments.delta":
                arguments[calls[str(data["item_id"])]] += str(data["delta"])
            else:
                key = (str(data["item_id"]), "s" if "summary_index" in data else "c", _index(data))
                parts[key] = parts.get(key, "") + str(data["delta"])
        elif kind in ("response.output_text.done", "response.reasoning_summary_text.done"):
            key = (str(data["item_id"]), "s" if "summary_index" in data else "c", _index(data))
            assert data["text"] == parts.get(key, "")
        elif kind in ("response.content_part.done", "response.reasoning_summary_part.done"):
            key = (str(data["item_id"]), "s" if "summary_index" in data else "c", _index(data))
            part = data["part"]
            assert isinstance(part, dict) and part["text"] == parts.get(key, "")
        elif kind == "response.function_call_arguments.done":
            assert data["arguments"] == arguments[calls[str(data["item_id"])]]
        elif kind == "response.output_item.done":
            item = data["item"]
            assert isinstance(item, dict) and isinstance(data["output_index"], int)
            assert items[data["output_index"]]["id"] == item["id"]
            _check_item(item, parts, arguments)
            items[data["output_index"]] = item
    final: dict[str, JsonValue] | None = None
    terminal = [
        e for e in events if e["type"] in ("response.completed", "response.incomplete", "response.failed")
    ]
    if finished:
        assert len(terminal) == 1 and events[-1] is terminal[0]
        response = terminal[0]["response"]
        assert isinstance(response, dict)
        final = response
        ids = {str(r.get("id")) for e in events if isinstance(r := e.get("response"), dict)}
        assert len(ids) == 1
        output = final["output"]
        assert isinstance(output, list) and len(output) == len(items)
        for item in output:
            assert isinstance(item, dict)
            _check_item(item, parts, arguments)
    texts: dict[str, str] = {}
    for (item_id, _, _), text in sorted(parts.items()):
        texts[item_id] = texts.get(item_id, "") + text
    return Client(events, raw, texts, arguments, final)


def _index(data: dict[str, JsonValue]) -> int:
    value = data.get("summary_index", data.get("content_index"))
    assert isinstance(value, int)
    return value


def _check_item(
    item: dict[str, JsonValue], parts: dict[tuple[str, str, int], str], arguments: dict[str, str]
) -> None:
    """An item in a done or completed event holds exactly what was streamed for it."""
    for kind, name in (("c", "content"), ("s", "summary")):
        listed = item.get(name)
        if isinstance(listed, list) and item["type"] in ("message", "reasoning"):
            texts = [p["text"] for p in listed if isinstance(p, dict)]
            assert texts == [parts.get((str(item["id"]), kind, i), "") for i in range(len(listed))]
    if item["type"] == "function_call":
        assert item["arguments"] == arguments[str(item["call_id"])]


def text_of(client: Client) -> str:
    return "".join(client.texts.values())


# plain streams ---------------------------------------------------------------------------------------


def test_a_full_openai_stream_passes_through_byte_identical() -> None:
    events = Upstream().message("msg_1", "Hello there, ", "two parts.").completed()
    harness = Harness()
    assert harness.attempt(events)
    assert bytes(harness.wire) == b"".join(sse_event(e).encode() for e in events)
    client = validate(bytes(harness.wire))
    assert client.texts == {"msg_1": "Hello there, two parts."}
    text_outs = [o for o in harness.outs if o.stream is not None]
    assert {o.context for o in text_outs} == {MatchContext(source="text")}
    assert len({o.stream for o in text_outs}) == 2, "one stream per content part"
    assert [o.final for o in text_outs].count(True) == 2


def test_the_scripted_stream_gets_its_content_part_opened_for_the_sdk() -> None:
    harness = Harness()
    assert harness.attempt(responses_reply(TextContent(text="Hello world"), chunk=3))
    client = validate(bytes(harness.wire))
    types = [e["type"] for e in client.events]
    assert types.index("response.content_part.added") < types.index("response.output_text.delta")
    assert client.texts == {"msg_0": "Hello world"}
    assert client.final is not None and client.final["usage"] == {
        "input_tokens": 30,
        "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},
        "output_tokens": 15,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": 45,
    }


@settings(max_examples=60, deadline=None)
@given(st.text(min_size=1, max_size=40), st.lists(st.integers(1, 5), min_size=1, max_size=6))
def test_text_split_at_any_boundary_reaches_the_client_whole(text: str, sizes: list[int]) -> None:
    def chunker(piece: str) -> list[str]:
        out, at, i = [], 0, 0
        while at < len(piece):
            out.append(piece[at : at + sizes[i % len(sizes)]])
            at, i = at + sizes[i % len(sizes)], i + 1
        return out

    harness = Harness()
    assert harness.attempt(Upstream().message("msg_1", text, chunk=3).completed(), chunker=chunker)
    client = validate(bytes(harness.wire))
    assert client.texts == {"msg_1": text}


def test_thinking_is_a_thinking_stream_per_summary_part() -> None:
    events = Upstream().reasoning("rs_1", "First thought.", "Second.").message("msg_1", "Answer.").completed()
    harness = Harness()
    assert harness.attempt(events, chunker=list)
    client = validate(bytes(harness.wire))
    assert client.texts == {"rs_1": "First thought.Second.", "msg_1": "Answer."}
    thinking = [o for o in harness.outs if o.context == MatchContext(source="thinking")]
    streams = list(dict.fromkeys(o.stream for o in thinking))
    assert len(streams) == 2
    first_final = next(i for i, o in enumerate(thinking) if o.final)
    assert all(o.stream == streams[0] for o in thinking[: first_final + 1]), "finaled before the next starts"


def test_tool_calls_are_tool_streams_released_whole() -> None:
    events = (
        Upstream()
        .message("msg_1", "Let me look.")
        .call("fc_1", "call_a", "read", '{"path": "a.py"}')
        .call("fc_2", "call_b", "bash", '{"command": "ls -la"}')
        .completed()
    )
    harness = Harness()
    assert harness.attempt(events)
    client = validate(bytes(harness.wire))
    assert client.arguments == {"call_a": '{"path": "a.py"}', "call_b": '{"command": "ls -la"}'}
    tools = [o for o in harness.outs if o.context is not None and o.context.source == "tool"]
    assert {(o.context.tool_name, o.context.tool_call_id) for o in tools if o.context} == {
        ("read", "call_a"),
        ("bash", "call_b"),
    }
    assert all(o.context is not None and o.context.json_arguments for o in tools)
    assert [o.final for o in tools].count(True) == 2
    first_call = harness.outs.index(tools[0])
    assert all(o.stream is not None for o in harness.outs[first_call : harness.outs.index(tools[1])])


def test_a_tool_call_never_shows_before_its_arguments_are_complete() -> None:
    events = Upstream().call("fc_1", "call_a", "bash", '{"command": "rm -rf /"}').completed()
    harness = Harness()
    assert not harness.attempt(events, budget=5)
    assert b"function_call" not in harness.wire and b"rm -rf" not in harness.wire


def test_custom_tool_input_is_checked_as_free_text() -> None:
    up = Upstream()
    added: dict[str, JsonValue] = {
        "type": "custom_tool_call",
        "id": "ctc_1",
        "call_id": "call_p",
        "name": "apply_patch",
    }
    up.add("response.output_item.added", output_index=0, item={**added, "input": ""})
    up.add("response.custom_tool_call_input.delta", item_id="ctc_1", output_index=0, delta="*** Begin")
    up.add("response.custom_tool_call_input.done", item_id="ctc_1", output_index=0, input="*** Begin")
    up.add("response.output_item.done", output_index=0, item={**added, "input": "*** Begin"})
    harness = Harness()
    assert harness.attempt(up.completed())
    tools = [o for o in harness.outs if o.context is not None]
    assert tools and all(
        o.context
        == MatchContext(source="tool", tool_name="apply_patch", tool_call_id="call_p", json_arguments=False)
        for o in tools
    )
    assert b'"input":"*** Begin"' in harness.wire or b'"input": "*** Begin"' in harness.wire


def test_unknown_events_and_fields_pass_through_byte_identical() -> None:
    up = Upstream()
    up.add("response.web_search_call.searching", output_index=0, item_id="ws_1", novel={"x": [1, 2.5]})
    events = up.message("msg_1", "Hi.").completed()
    odd = Event(event="response.output_text.delta", data={**events[5].data, "obfuscation": "abc"})  # type: ignore[dict-item]
    events[5] = odd
    harness = Harness()
    assert harness.attempt(events)
    assert bytes(harness.wire) == b"".join(sse_event(e).encode() for e in events)


@pytest.mark.parametrize("data", ["not json", "[1, 2]", '{"no_type": 1}', "[DONE]", '{"type": 3}'])
def test_malformed_events_pass_through_unchanged(data: str) -> None:
    codec = ResponsesCodec(BODY)
    event = SseEvent(data, "weird")
    outs = codec.feed(event)
    assert len(outs) == 1 and outs[0].stream is None
    assert outs[0].render("") == event.encode()


# cuts and retries --------------------------------------------------------------------------------------


def test_a_cut_mid_text_is_continued_by_the_retry_with_the_clients_ids() -> None:
    harness = Harness()
    first = Upstream("resp_1", usage=None).message("msg_1", "Sure, I will run rm -rf now.").completed()
    assert not harness.attempt(first, budget=14)
    assert harness.shown == "Sure, I will r"
    second = Upstream("resp_2", usage=(40, 8)).message("msg_2", "Listing instead.").completed()
    assert harness.attempt(second)
    client = validate(bytes(harness.wire))
    assert client.texts == {"msg_1": "Sure, I will rListing instead."}
    assert client.final is not None and client.final["id"] == "resp_1"
    assert [e["type"] for e in client.events].count("response.output_item.added") == 1
    usage = client.final["usage"]
    assert isinstance(usage, dict) and (usage["input_tokens"], usage["output_tokens"]) == (40, 8)
    assert b"rm -rf" not in harness.wire


def test_usage_of_a_cut_attempt_that_reported_it_is_summed() -> None:
    harness = Harness()
    first = Upstream("resp_1", usage=(30, 10)).message("msg_1", "The end has a violation").completed()
    held: list[Out] = []
    for event in first:  # the relay checks the stream's end only after the completed event arrived
        held.extend(harness.codec.feed(sse_event(event)))
    for out in held[:6]:
        harness.wire += out.render(out.text)
    harness.codec.cut()
    harness.attempts = 1
    assert harness.attempt(Upstream("resp_2", usage=(45, 7)).message("msg_2", "Fixed.").completed())
    client = validate(bytes(harness.wire))
    assert client.final is not None
    usage = client.final["usage"]
    assert isinstance(usage, dict)
    assert (usage["input_tokens"], usage["output_tokens"], usage["total_tokens"]) == (75, 17, 92)


def test_a_cut_before_anything_was_rendered_gives_one_stream_with_the_first_id() -> None:
    harness = Harness()
    for event in Upstream("resp_1").message("msg_1", "bad").completed()[:4]:
        harness.codec.feed(sse_event(event))
    harness.codec.cut()
    harness.attempts = 1
    assert harness.attempt(Upstream("resp_2").message("msg_2", "good").completed())
    client = validate(bytes(harness.wire))
    assert client.texts == {"msg_2": "good"}
    assert client.final is not None and client.final["id"] == "resp_1"


def test_an_open_message_is_closed_when_the_retry_starts_with_reasoning() -> None:
    harness = Harness()
    first = Upstream("resp_1").reasoning("rs_1", "Think.").message("msg_1", "Partial answer here").completed()
    assert not harness.attempt(first, budget=len("Think.") + 7)
    second = Upstream("resp_2").reasoning("rs_2", "Again.").message("msg_2", "Whole.").completed()
    assert harness.attempt(second)
    client = validate(bytes(harness.wire))
    assert client.texts == {"rs_1": "Think.", "msg_1": "Partial", "rs_2": "Again.", "msg_2": "Whole."}
    assert client.final is not None
    output = client.final["output"]
    assert isinstance(output, list)
    assert [item["id"] for item in output if isinstance(item, dict)] == ["rs_1", "msg_1", "rs_2", "msg_2"]
    closed = output[1]
    assert isinstance(closed, dict) and closed["status"] == "incomplete"


def test_reused_upstream_ids_are_made_unique_for_the_client() -> None:
    harness = Harness()
    first = Upstream("resp_1").call("fc_0", "call_1", "ls", "{}").message("msg_0", "oops bad").completed()
    assert not harness.attempt(first, budget=6)
    second = Upstream("resp_1").call("fc_0", "call_1", "ls", "{}").completed()
    assert harness.attempt(second)
    client = validate(bytes(harness.wire))
    assert client.final is not None
    output = client.final["output"]
    assert isinstance(output, list)
    ids = [item["id"] for item in output if isinstance(item, dict)]
    assert len(ids) == len(set(ids)) == 3
    assert len(client.arguments) == 2


@settings(max_examples=80, deadline=None)
@given(
    st.integers(0, 60),
    st.lists(st.integers(1, 6), min_size=1, max_size=4),
    st.booleans(),
)
def test_any_cut_then_a_retry_gives_one_valid_stream_of_the_rendered_parts(
    budget: int, sizes: list[int], reasoning: bool
) -> None:
    def chunker(piece: str) -> list[str]:
        out, at, i = [], 0, 0
        while at < len(piece):
            out.append(piece[at : at + sizes[i % len(sizes)]])
            at, i = at + sizes[i % len(sizes)], i + 1
        return out

    first = Upstream("resp_1")
    if reasoning:
        first.reasoning("rs_1", "Thinking hard.")
    first.message("msg_1", "Alpha beta ", "gamma delta.").call("fc_1", "call_1", "ls", '{"d": "."}')
    harness = Harness()
    done = harness.attempt(first.completed(), budget=budget, chunker=chunker)
    shown = harness.shown
    if not done:
        second = Upstream("resp_2").message("msg_2", "Retry text.").call("fc_2", "call_2", "ls", "{}")
        assert harness.attempt(second.completed(), chunker=chunker)
    client = validate(bytes(harness.wire))
    assert client.final is not None and client.final["id"] == "resp_1"
    prose = "".join(t for k, t in client.texts.items() if k.startswith("msg"))
    expected = "Alpha beta gamma delta." if done else shown + "Retry text."
    assert prose == expected


# closing ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("budget", [0, 3, 12, 40])
@pytest.mark.parametrize("error", [None, "upstream failed: 500"])
def test_closing_leaves_a_finished_valid_stream(budget: int, error: str | None) -> None:
    harness = Harness()
    events = Upstream("resp_1").message("msg_1", "Some text here.").call("fc_1", "c1", "ls", "{}").completed()
    assert not harness.attempt(events, budget=budget) or budget == 40
    harness.wire += harness.codec.closing(error)
    client = validate(bytes(harness.wire))
    assert client.final is not None and client.final["id"] == "resp_1"
    if budget == 40:
        assert client.final["status"] == "completed"
        return
    if error is None:
        assert client.final["status"] == "incomplete"
        assert client.final["incomplete_details"] == {"reason": "content_filter"}
    else:
        assert client.final["status"] == "failed"
        assert client.final["error"] == {"code": "server_error", "message": error}
        errors = [e for e in client.events if e["type"] == "error"]
        assert len(errors) == 1 and errors[0]["message"] == error


def test_closing_after_the_end_adds_nothing() -> None:
    harness = Harness()
    harness.attempt(Upstream().message("msg_1", "Done.").completed())
    assert harness.codec.closing() == b""


def test_closing_reports_the_cut_attempts_usage() -> None:
    codec = ResponsesCodec(BODY)
    for event in Upstream(usage=(9, 3)).message("msg_1", "x").completed():
        codec.feed(sse_event(event))
    codec.cut()
    client = validate(codec.closing())
    assert client.final is not None and isinstance(usage := client.final["usage"], dict)
    assert (usage["input_tokens"], usage["output_tokens"]) == (9, 3)


# retry body, non-streaming -----------------------------------------------------------------------------


def test_retry_body_turns_a_string_input_into_messages() -> None:
    body: Json = {
        "model": "m",
        "input": "Do it",
        "instructions": "Be brief",
        "previous_response_id": "resp_0",
    }
    codec = ResponsesCodec(body)
    retry = codec.retry_body(body, "RULE", "Part")
    assert retry == {
        "model": "m",
        "instructions": "Be brief",
        "previous_response_id": "resp_0",
        "input": [
            {"role": "user", "content": "Do it"},
            {"role": "assistant", "content": "Part"},
            {"role": "user", "content": "RULE"},
        ],
    }
    assert body["input"] == "Do it"


def test_retry_body_appends_to_a_list_input_and_skips_empty_shown() -> None:
    given_input: list[JsonValue] = [
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "x"}]}
    ]
    body: Json = {
        "model": "m",
        "input": given_input,
        "tools": [{"type": "function", "name": "ls"}],
        "stream": True,
    }
    retry = ResponsesCodec(body).retry_body(body, "RULE", "")
    assert retry["input"] == [*given_input, {"role": "user", "content": "RULE"}]
    assert retry["tools"] == body["tools"] and retry["stream"] is True
    assert len(given_input) == 1
    assert ResponsesCodec({}).retry_body({"model": "m"}, "R", "")["input"] == [
        {"role": "user", "content": "R"}
    ]


def test_contents_lists_prose_thinking_and_calls() -> None:
    up = (
        Upstream()
        .reasoning("rs_1", "Hmm.")
        .message("msg_1", "Hello", "World")
        .call("fc_1", "call_1", "ls", '{"d":1}')
    )
    response = up.response("completed")
    output = response["output"]
    assert isinstance(output, list)
    message = output[1]
    assert isinstance(message, dict)
    content = message["content"]
    assert isinstance(content, list)
    content.append({"type": "refusal", "refusal": "No."})
    found = ResponsesCodec(BODY).contents(response)
    assert found == [
        (MatchContext(source="thinking"), "Hmm."),
        (MatchContext(source="text"), "Hello"),
        (MatchContext(source="text"), "World"),
        (MatchContext(source="text"), "No."),
        (MatchContext(source="tool", tool_name="ls", tool_call_id="call_1"), '{"d":1}'),
    ]


def test_summed_adds_usage_and_keeps_the_rest() -> None:
    codec = ResponsesCodec(BODY)
    last = Upstream("resp_2", usage=(10, 2)).message("msg", "ok").response("completed")
    earlier: list[Json] = [Upstream("resp_1", usage=(7, 5)).response("completed"), {"id": "x"}]
    summed = codec.summed(last, earlier)
    assert summed["id"] == "resp_2" and summed["output"] == last["output"]
    usage = summed["usage"]
    assert isinstance(usage, dict) and (
        usage["input_tokens"],
        usage["output_tokens"],
        usage["total_tokens"],
    ) == (17, 7, 24)
    assert codec.summed(last, []) == last


# upstreams that skip events ----------------------------------------------------------------------------


def test_text_that_arrives_only_whole_is_checked_and_streamed() -> None:
    up = Upstream()
    item = _message("msg_1", "completed", [{"type": "output_text", "text": "Whole text", "annotations": []}])
    up.add("response.output_item.added", output_index=0, item=_message("msg_1", "in_progress", []))
    up.add("response.output_item.done", output_index=0, item=item)
    up.output.append(item)
    harness = Harness()
    assert harness.attempt(up.completed())
    assert [o.text for o in harness.outs if o.context == MatchContext(source="text")] == ["Whole text", ""]
    assert validate(bytes(harness.wire)).texts == {"msg_1": "Whole text"}


def test_items_only_in_the_final_response_are_checked_and_streamed() -> None:
    up = Upstream()
    up.output.append(
        _message("msg_1", "completed", [{"type": "output_text", "text": "Late", "annotations": []}])
    )
    up.output.append(
        {"type": "function_call", "id": "fc_1", "call_id": "c1", "name": "ls", "arguments": "{}"}
    )
    harness = Harness()
    assert harness.attempt(up.completed())
    contexts = {o.context.source for o in harness.outs if o.context is not None}
    assert contexts == {"text", "tool"}
    client = validate(bytes(harness.wire))
    assert client.texts == {"msg_1": "Late"} and client.arguments == {"c1": "{}"}


def test_thinking_and_tool_calls_from_the_scripted_builder() -> None:
    events = responses_reply(
        ThinkingContent(thinking="hm", signature="ENC"),
        TextContent(text="ok"),
        ToolCall(id="call_9", name="ls", raw_arguments='{"d":"."}'),
    )
    harness = Harness()
    assert harness.attempt(events)
    client = validate(bytes(harness.wire))
    assert client.texts == {"rs_0": "hm", "msg_1": "ok"}
    assert client.arguments == {"call_9": '{"d":"."}'}
