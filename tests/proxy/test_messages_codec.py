"""The Anthropic Messages codec driven directly: a small relay stand-in feeds scripted upstream events,
renders the outs in order (whole, in parts, or up to a cut), and the client's bytes are checked for event
order and parsed by the official SDK's own stream accumulator."""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field

import anthropic
import httpx2
import pytest
from anthropic.types import Message
from hypothesis import given, settings
from hypothesis import strategies as st

from rein.ai import JsonValue, TextContent, ThinkingContent, ToolCall
from rein.ai.testing import Event, anthropic_block, anthropic_reply, anthropic_stream_error
from rein.proxy._codec import Json, Out, SseEvent
from rein.proxy._messages import MessagesCodec
from rein.proxy._sse import SseParser
from rein.ttsr import MatchContext

BODY: Json = {
    "model": "claude-test",
    "max_tokens": 64,
    "stream": True,
    "messages": [{"role": "user", "content": "hi"}],
}


def upstream(steps: Sequence[Event]) -> list[SseEvent]:
    return [SseEvent(s.data if isinstance(s.data, str) else json.dumps(s.data), s.event) for s in steps]


def reply(*blocks: TextContent | ThinkingContent | ToolCall, **kw: object) -> list[SseEvent]:
    return upstream(anthropic_reply(*blocks, **kw))  # type: ignore[arg-type]


@dataclass
class Player:
    """Plays the relay: queues every out, renders them in order (content possibly in parts)."""

    codec: MessagesCodec = field(default_factory=lambda: MessagesCodec(BODY))
    queue: deque[list[object]] = field(default_factory=deque)
    outs: list[Out] = field(default_factory=list)
    client: bytearray = field(default_factory=bytearray)
    shown: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.codec.start_attempt()

    def feed(self, events: Sequence[SseEvent]) -> None:
        for event in events:
            for out in self.codec.feed(event):
                self.outs.append(out)
                self.queue.append([out, out.text])

    def render(self, budget: int | None = None) -> None:
        """Render queued outs in order; with `budget`, stop after that many characters of content."""
        while self.queue:
            out, text = self.queue[0]
            assert isinstance(out, Out) and isinstance(text, str)
            take = len(text) if budget is None else min(budget, len(text))
            if budget is not None and budget <= 0 and text:
                return
            part = text[:take]
            self.client += out.render(part)
            if out.context is not None and out.context.source == "text":
                self.shown.append(part)
            if budget is not None:
                budget -= take
            if take < len(text):
                self.queue[0][1] = text[take:]
                return
            self.queue.popleft()

    def cut(self) -> None:
        self.queue.clear()
        self.codec.cut()
        self.codec.start_attempt()

    def events(self) -> list[tuple[str | None, Json]]:
        return client_events(bytes(self.client))


def client_events(raw: bytes) -> list[tuple[str | None, Json]]:
    parser = SseParser()
    out: list[tuple[str | None, Json]] = []
    for event in [*parser.feed(raw), *parser.close()]:
        data = event.json()
        assert isinstance(data, dict)
        out.append((event.event, data))
    return out


_DELTA_BLOCK = {
    "text_delta": "text",
    "citations_delta": "text",
    "thinking_delta": "thinking",
    "signature_delta": "thinking",
    "input_json_delta": "tool_use",
}


def check_order(events: list[tuple[str | None, Json]], *, errored: bool = False) -> None:
    """The Messages stream grammar: one start, blocks numbered from 0 and never overlapping, deltas of
    the block's own kind, all closed before message_delta, message_stop last (or an error)."""
    kinds = [name for name, _ in events]
    assert all(name == data.get("type") for name, data in events), kinds
    assert kinds.count("message_start") <= 1
    assert errored or kinds[0] == "message_start", kinds
    open_block: tuple[int, str] | None = None
    count = 0
    for name, data in events:
        if name == "content_block_start":
            assert open_block is None and data["index"] == count, kinds
            block = data["content_block"]
            assert isinstance(block, dict) and isinstance(block["type"], str)
            open_block, count = (count, block["type"]), count + 1
        elif name == "content_block_delta":
            delta = data["delta"]
            assert isinstance(delta, dict) and isinstance(delta["type"], str)
            assert open_block == (data["index"], _DELTA_BLOCK[delta["type"]]), (open_block, data)
        elif name == "content_block_stop":
            assert open_block is not None and open_block[0] == data["index"], kinds
            open_block = None
        elif name in ("message_delta", "message_stop"):
            assert open_block is None, kinds
    if errored:
        assert kinds[-1] == "error" and "message_stop" not in kinds, kinds
    else:
        assert kinds[-2:] == ["message_delta", "message_stop"], kinds
        assert kinds.count("message_delta") == kinds.count("message_stop") == 1, kinds


def sdk_message(raw: bytes) -> Message:
    """What the official SDK's stream helper makes of the client's bytes."""

    def handler(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=raw)

    http = httpx2.Client(transport=httpx2.MockTransport(handler))
    client = anthropic.Anthropic(
        api_key="test", base_url="http://upstream.test", http_client=http, max_retries=0
    )
    with client.messages.stream(
        model="claude-test", max_tokens=64, messages=[{"role": "user", "content": "hi"}]
    ) as s:
        for _ in s:
            pass
        return s.get_final_message()


def texts(message: Message) -> list[str]:
    return [b.text for b in message.content if b.type == "text"]


# One attempt ---------------------------------------------------------------------------------------


def test_plain_text_passes_through_byte_identical() -> None:
    events = reply(TextContent(text="Hello, world"))
    player = Player()
    player.feed(events)
    player.render()
    assert bytes(player.client) == b"".join(e.encode() for e in events)
    message = sdk_message(bytes(player.client))
    assert (message.id, texts(message), message.usage.input_tokens, message.usage.output_tokens) == (
        "msg_test",
        ["Hello, world"],
        12,
        34,
    )
    text_outs = [o for o in player.outs if o.context == MatchContext(source="text")]
    assert "".join(o.text for o in text_outs) == "Hello, world"
    assert [o.final for o in text_outs][-1] and sum(o.final for o in text_outs) == 1


@pytest.mark.parametrize("split", range(1, 12))
def test_text_split_at_every_boundary(split: int) -> None:
    player = Player()
    player.feed(reply(TextContent(text="Hello world"), chunk=4))
    for _ in range(12):  # render in parts of `split` characters, as a relay's window does
        player.render(split)
    player.render()
    check_order(player.events())
    assert texts(sdk_message(bytes(player.client))) == ["Hello world"]
    assert "".join(player.shown) == "Hello world"


def test_thinking_is_checked_and_its_signature_reaches_the_client_exactly() -> None:
    player = Player()
    player.feed(reply(ThinkingContent(thinking="let me think", signature="c2ln+/=="), TextContent(text="ok")))
    player.render(5)  # a part of the thinking
    player.render()
    message = sdk_message(bytes(player.client))
    thinking = message.content[0]
    assert thinking.type == "thinking"
    assert (thinking.thinking, thinking.signature) == ("let me think", "c2ln+/==")
    signature = [o for o in player.outs if o.text == "c2ln+/=="]
    assert len(signature) == 1 and signature[0].context is None and signature[0].stream == "1:signature:0"
    thinking_outs = [o for o in player.outs if o.context == MatchContext(source="thinking")]
    assert "".join(o.text for o in thinking_outs) == "let me think" and thinking_outs[-1].final


@pytest.mark.parametrize("split", [1, 3, 7])
def test_a_signature_released_in_parts_still_arrives_whole(split: int) -> None:
    player = Player()
    player.feed(reply(ThinkingContent(thinking="ab", signature="SIGNATURE=="), TextContent(text="ok")))
    player.render(2 + split)  # the relay stand-in splits the signature piece
    player.render()
    check_order(player.events())
    thinking = sdk_message(bytes(player.client)).content[0]
    assert thinking.type == "thinking" and thinking.signature == "SIGNATURE=="


def test_redacted_thinking_passes_as_a_structural_block() -> None:
    player = Player()
    player.feed(
        reply(ThinkingContent(thinking="", signature="opaque", redacted=True), TextContent(text="ok"))
    )
    player.render()
    message = sdk_message(bytes(player.client))
    assert [b.type for b in message.content] == ["redacted_thinking", "text"]
    assert not any(o.stream and ":0" in o.stream for o in player.outs)  # nothing of block 0 is held


def test_tool_calls_are_tool_streams_with_ids_and_names() -> None:
    calls = [
        ToolCall(id="toolu_1", name="write", arguments={"path": "a.py", "content": "x = 1\n"}),
        ToolCall(id="toolu_2", name="bash", arguments={"command": "ls"}),
    ]
    player = Player()
    player.feed(reply(TextContent(text="Two calls."), *calls, stop_reason="tool_use"))
    for call in calls:
        outs = [o for o in player.outs if o.context is not None and o.context.tool_call_id == call.id]
        assert {o.context for o in outs} == {
            MatchContext(source="tool", tool_name=call.name, tool_call_id=call.id)
        }
        assert (
            len({o.stream for o in outs}) == 1 and [o.final for o in outs].count(True) == 1 and outs[-1].final
        )
        assert json.loads("".join(o.text for o in outs)) == call.arguments
    player.render()
    check_order(player.events())
    message = sdk_message(bytes(player.client))
    assert [(b.id, b.name, b.input) for b in message.content if b.type == "tool_use"] == [
        (c.id, c.name, dict(c.arguments)) for c in calls
    ]


def test_initial_content_in_a_block_start_becomes_a_checked_delta() -> None:
    start: JsonValue = {
        "type": "content_block_start",
        "index": 0,
        "content_block": {"type": "text", "text": "Hi "},
    }
    tool: JsonValue = {
        "type": "content_block_start",
        "index": 1,
        "content_block": {"type": "tool_use", "id": "t", "name": "ls", "input": {"d": "."}},
    }
    events = reply()
    events[2:2] = upstream(
        [
            Event(event="content_block_start", data=start),
            *anthropic_block(0, TextContent(text="you"))[1:],
            Event(event="content_block_start", data=tool),
            *anthropic_block(1, ToolCall(id="t", name="ls"))[-1:],
        ]
    )
    player = Player()
    player.feed(events)
    assert "".join(o.text for o in player.outs if o.context == MatchContext(source="text")) == "Hi you"
    assert [o.text for o in player.outs if o.context and o.context.source == "tool"] == ["", '{"d": "."}', ""]
    player.render()
    check_order(player.events())
    message = sdk_message(bytes(player.client))
    assert texts(message) == ["Hi you"] and message.content[1].type == "tool_use"
    assert message.content[1].input == {"d": "."}


def test_unknown_events_and_fields_pass_through_byte_identical() -> None:
    events = reply(TextContent(text="abc"))
    start = json.loads(events[0].data)
    start["message"]["vendor"] = {"x": 1}
    events[0] = SseEvent(json.dumps(start), "message_start")
    delta = json.loads(events[3].data)
    delta["delta"]["extra"], delta["trace"] = True, "t-1"
    events[3] = SseEvent(json.dumps(delta), "content_block_delta")
    events.insert(2, SseEvent('{"type": "vendor_progress", "pct": 50}', "vendor_progress"))
    events.insert(3, SseEvent("a\nb", None))
    player = Player()
    player.feed(events)
    player.render()
    assert bytes(player.client) == b"".join(e.encode() for e in events)
    assert sdk_message(bytes(player.client)).content[0].type == "text"


@pytest.mark.parametrize(
    "event",
    [
        SseEvent("{not json", "content_block_delta"),
        SseEvent("[1, 2]", "content_block_delta"),
        SseEvent(
            '{"type": "content_block_delta", "index": 7, "delta": {"type": "text_delta", "text": "x"}}', "x"
        ),
        SseEvent('{"type": "content_block_start", "index": "0"}', "content_block_start"),
        SseEvent('{"type": "content_block_stop"}', "content_block_stop"),
        SseEvent('{"no_type": 1}', "message_delta"),
        SseEvent("", None),
    ],
)
def test_malformed_events_pass_unchanged_as_structure(event: SseEvent) -> None:
    player = Player()
    player.feed(reply(TextContent(text="ab"))[:4])
    outs = player.codec.feed(event)
    assert [(o.stream, o.context) for o in outs] == [(None, None)]
    assert outs[0].render("") == event.encode()


def test_an_upstream_error_event_passes_and_the_sdk_raises() -> None:
    player = Player()
    player.feed(reply(TextContent(text="partial"))[:5] + upstream([anthropic_stream_error()]))
    player.render()
    check_order(player.events(), errored=True)
    assert [o.final for o in player.outs if o.stream == "1:text:0"][-1]  # the open stream was finaled
    with pytest.raises(anthropic.APIStatusError, match="Overloaded"):
        sdk_message(bytes(player.client))
    assert player.codec.closing() == b""


# Cut and retry -------------------------------------------------------------------------------------


def test_cut_after_part_of_the_text_continues_the_clients_block() -> None:
    player = Player()
    player.feed(reply(TextContent(text="Hello, forbidden"), usage=(12, 30, 2))[:-3])  # cut at the block's end
    player.render(len("Hello, "))
    player.cut()
    second = reply(TextContent(text="world."), message_id="msg_second", usage=(20, 5, 3))
    before = len(player.outs)
    player.feed(second)
    assert {o.stream for o in player.outs[before:]} == {None, "2:text:0"}
    player.render()
    events = player.events()
    check_order(events)
    assert [n for n, _ in events].count("content_block_start") == 1
    message = sdk_message(bytes(player.client))
    assert (message.id, texts(message)) == ("msg_test", ["Hello, world."])
    usage = message.usage
    # The first attempt reported 12 in and (start) 1 out before the cut; the second 20 in and 5 out.
    assert (usage.input_tokens, usage.output_tokens, usage.cache_read_input_tokens) == (32, 6, 5)


def test_cut_numbers_later_blocks_on_and_closes_an_open_thinking_block() -> None:
    player = Player()
    player.feed(reply(TextContent(text="Done."), ThinkingContent(thinking="hmm, bad idea", signature="s1")))
    player.render(len("Done.") + 4)
    player.cut()
    player.feed(
        reply(TextContent(text="Again."), ToolCall(id="toolu_9", name="ls", arguments={}), message_id="m2")
    )
    player.render()
    check_order(player.events())
    message = sdk_message(bytes(player.client))
    assert [b.type for b in message.content] == ["text", "thinking", "text", "tool_use"]
    assert texts(message) == ["Done.", "Again."] and message.content[1].type == "thinking"
    assert message.content[1].thinking == "hmm,"


def test_a_text_block_open_at_the_cut_is_closed_when_the_retry_starts_otherwise() -> None:
    player = Player()
    player.feed(reply(TextContent(text="I will run rm -rf")))
    player.render(len("I will "))
    player.cut()
    player.feed(reply(ToolCall(id="toolu_1", name="ls", arguments={"d": "."}), TextContent(text="Listed.")))
    player.render()
    check_order(player.events())
    message = sdk_message(bytes(player.client))
    assert [b.type for b in message.content] == ["text", "tool_use", "text"]
    assert texts(message) == ["I will ", "Listed."]


def test_cut_before_anything_was_rendered() -> None:
    player = Player()
    player.feed(reply(TextContent(text="forbidden"), usage=(12, 3, 0))[:4])
    player.cut()
    player.feed(reply(TextContent(text="fine"), message_id="msg_second", usage=(20, 4, 0)))
    player.render()
    check_order(player.events())
    message = sdk_message(bytes(player.client))
    assert (message.id, texts(message)) == ("msg_second", ["fine"])
    assert (message.usage.input_tokens, message.usage.output_tokens) == (32, 5)


def test_usage_counts_each_attempts_latest_numbers_once() -> None:
    first = reply(TextContent(text="abc bad"), usage=(10, 7, 0))
    delta = json.loads(first[-2].data)
    delta["usage"] = {"input_tokens": 10, "output_tokens": 3, "server_tool_use": {"web_search_requests": 1}}
    player = Player()
    player.feed([*first[:6], SseEvent(json.dumps(delta), "message_delta")])  # a delta the cut drops
    player.render(2)
    player.cut()
    second = reply(TextContent(text="c"), usage=(11, 2, 0))
    last = json.loads(second[-2].data)
    last["usage"] = {"output_tokens": 2, "server_tool_use": {"web_search_requests": 2}, "vendor": "v"}
    player.feed([*second[:-2], SseEvent(json.dumps(last), "message_delta"), second[-1]])
    player.render()
    usage = next(d for n, d in player.events() if n == "message_delta")["usage"]
    assert usage == {
        "input_tokens": 21,
        "output_tokens": 5,
        "cache_read_input_tokens": 0,
        "cache_creation_input_tokens": 0,
        "server_tool_use": {"web_search_requests": 3},
        "vendor": "v",
    }


# Closing -------------------------------------------------------------------------------------------


@pytest.mark.parametrize("rendered", [0, 1, 3, 6, 9])
def test_closing_after_a_cut_leaves_a_valid_finished_stream(rendered: int) -> None:
    player = Player()
    player.feed(
        reply(ThinkingContent(thinking="abc", signature="s"), TextContent(text="abcdef"), usage=(5, 9, 0))[
            :-3
        ]
    )
    player.render(rendered)
    player.cut()
    player.client += player.codec.closing()
    check_order(player.events())
    message = sdk_message(bytes(player.client))
    assert message.id == "msg_test" and message.stop_reason == "end_turn"
    assert "".join(texts(message)) == "abcdef"[: max(0, rendered - 4)]  # thinking and signature first
    assert (message.usage.input_tokens, message.usage.output_tokens) == (5, 1)
    assert player.codec.closing() == b""


def test_closing_with_nothing_from_upstream_invents_a_start() -> None:
    codec = MessagesCodec(BODY)
    codec.start_attempt()
    raw = codec.closing()
    check_order(client_events(raw))
    message = sdk_message(raw)
    assert message.id.startswith("msg_rein_") and message.model == "claude-test" and message.content == []


@pytest.mark.parametrize("rendered", [None, 0, 2, 4, 100])
def test_closing_with_an_error_makes_the_sdk_raise(rendered: int | None) -> None:
    player = Player()
    events = reply(TextContent(text="abcde"))
    player.feed(events if rendered is not None else [])
    if rendered == 100:
        player.queue.pop()  # the message_delta reached the client, the message_stop did not
    if rendered is not None:
        player.render(rendered)
    player.cut()
    player.client += player.codec.closing("rule fired again: no-rm")
    check_order(player.events(), errored=True)
    with pytest.raises(anthropic.APIStatusError, match="rule fired again: no-rm"):
        sdk_message(bytes(player.client))
    assert player.events()[-1][1] == {
        "type": "error",
        "error": {"type": "api_error", "message": "rule fired again: no-rm"},
    }


def test_streams_are_finaled_before_the_next_of_their_source_and_at_the_end() -> None:
    """Even when the upstream leaves blocks open: a second text block starts, the message ends."""
    events = upstream(
        [*anthropic_block(0, TextContent(text="one"))[:-1], *anthropic_block(1, TextContent(text="two"))[:-1]]
    )
    full = reply()
    player = Player()
    player.feed([*full[:2], *events, *full[2:]])
    finals = [(o.stream, o.final) for o in player.outs if o.stream is not None]
    assert finals.index(("1:text:0", True)) < finals.index(("1:text:1", False))
    assert ("1:text:1", True) in finals
    player.render()
    check_order(player.events())
    assert texts(sdk_message(bytes(player.client))) == ["one", "two"]


@given(
    first=st.text(min_size=1, max_size=30),
    second=st.text(min_size=1, max_size=20),
    chunk=st.integers(1, 7),
    fed=st.integers(1, 16),
    budgets=st.lists(st.integers(0, 6), min_size=16, max_size=16),
    retry_thinks=st.booleans(),
)
@settings(max_examples=150, deadline=None)
def test_any_cut_and_split_gives_one_valid_stream(
    first: str, second: str, chunk: int, fed: int, budgets: list[int], retry_thinks: bool
) -> None:
    player = Player()
    events = reply(TextContent(text=first), chunk=chunk)
    for event, budget in zip(events[: min(fed, len(events) - 2)], budgets, strict=False):  # a cut comes first
        player.feed([event])
        player.render(budget)
    shown_before = "".join(player.shown)
    player.cut()
    blocks = [ThinkingContent(thinking="think", signature="sig2")] if retry_thinks else []
    player.feed(
        reply(*blocks, TextContent(text=second), chunk=chunk, message_id="msg_retry", usage=(20, 4, 0))
    )
    player.render()
    check_order(player.events())
    message = sdk_message(bytes(player.client))
    assert message.id == "msg_test"
    assert "".join(texts(message)) == "".join(player.shown) == shown_before + second
    assert first.startswith(shown_before)
    assert message.usage.input_tokens == 32
    if retry_thinks:
        thinking = [b for b in message.content if b.type == "thinking"]
        assert [(b.thinking, b.signature) for b in thinking] == [("think", "sig2")]


def test_once_the_clients_stream_ended_a_later_attempt_shows_nothing() -> None:
    player = Player()
    player.feed(reply(TextContent(text="done")))
    player.render()
    ended = bytes(player.client)
    player.cut()
    player.feed(reply(TextContent(text="more"), message_id="msg_two"))
    player.render()
    assert bytes(player.client) == ended and player.codec.closing("late") == b""


# Retry request -------------------------------------------------------------------------------------


def test_retry_body_appends_shown_and_the_injection_and_keeps_the_rest() -> None:
    body: Json = {**BODY, "system": "be brief", "tools": [{"name": "ls"}], "vendor": {"x": 1}}
    snapshot = json.dumps(body)
    out = MessagesCodec(body).retry_body(body, "<rule>no rm</rule>", "Hello, ")
    assert json.dumps(body) == snapshot  # the client's body is not changed in place
    assert {k: v for k, v in out.items() if k != "messages"} == {
        k: v for k, v in body.items() if k != "messages"
    }
    assert out["messages"] == [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": [{"type": "text", "text": "Hello, "}]},
        {"role": "user", "content": [{"type": "text", "text": "<rule>no rm</rule>"}]},
    ]


def test_retry_body_without_shown_adds_only_the_injection() -> None:
    body: Json = {**BODY, "messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}]}
    out = MessagesCodec(body).retry_body(body, "rule", "")
    assert out["messages"] == [
        *body["messages"],
        {"role": "user", "content": [{"type": "text", "text": "rule"}]},
    ]  # type: ignore[misc]


@pytest.mark.parametrize(
    ("prefill", "merged"),
    [
        ("Sure: ", "Sure: Hello"),
        ([{"type": "text", "text": "Sure: "}], [{"type": "text", "text": "Sure: Hello"}]),
        (
            [{"type": "thinking", "thinking": "t", "signature": "s"}],
            [{"type": "thinking", "thinking": "t", "signature": "s"}, {"type": "text", "text": "Hello"}],
        ),
        (None, [{"type": "text", "text": "Hello"}]),
    ],
)
def test_retry_body_puts_shown_after_an_assistant_prefill(prefill: JsonValue, merged: JsonValue) -> None:
    body: Json = {
        **BODY,
        "messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": prefill}],
    }
    out = MessagesCodec(body).retry_body(body, "rule", "Hello")
    assert out["messages"] == [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": merged},
        {"role": "user", "content": [{"type": "text", "text": "rule"}]},
    ]


# Non-streaming -------------------------------------------------------------------------------------


def _message(usage: JsonValue, *content: JsonValue) -> Json:
    return {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": "claude-test",
        "content": list(content),
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": usage,
    }


def test_contents_lists_prose_thinking_and_tool_inputs_per_block() -> None:
    response = _message(
        {"input_tokens": 1, "output_tokens": 2},
        {"type": "thinking", "thinking": "plan", "signature": "s"},
        {"type": "redacted_thinking", "data": "opaque"},
        {"type": "text", "text": "Here."},
        {"type": "tool_use", "id": "toolu_1", "name": "write", "input": {"path": "a.py", "content": "x"}},
        {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"query": "q"}},
        {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": []},
        {"type": "text", "text": ""},
        "junk",
    )
    found = MessagesCodec(BODY).contents(response)
    assert [(c.source, c.tool_name, c.tool_call_id) for c, _ in found] == [
        ("thinking", None, None),
        ("text", None, None),
        ("tool", "write", "toolu_1"),
        ("tool", "web_search", "srvtoolu_1"),
    ]
    assert [json.loads(t) if c.source == "tool" else t for c, t in found] == [
        "plan",
        "Here.",
        {"path": "a.py", "content": "x"},
        {"query": "q"},
    ]


def test_summed_adds_every_count_and_keeps_the_rest() -> None:
    last = _message(
        {
            "input_tokens": 10,
            "output_tokens": 5,
            "cache_read_input_tokens": None,
            "service_tier": "standard",
            "server_tool_use": {"web_search_requests": 1, "web_fetch_requests": 0},
        },
        {"type": "text", "text": "ok"},
    )
    earlier = [
        _message({"input_tokens": 7, "output_tokens": 3, "cache_read_input_tokens": 4}),
        _message(
            {
                "input_tokens": 8,
                "output_tokens": 0,
                "server_tool_use": {"web_search_requests": 2, "web_fetch_requests": 1},
            }
        ),
    ]
    out = MessagesCodec(BODY).summed(last, earlier)
    assert out["usage"] == {
        "input_tokens": 25,
        "output_tokens": 8,
        "cache_read_input_tokens": 4,
        "service_tier": "standard",
        "server_tool_use": {"web_search_requests": 3, "web_fetch_requests": 1},
    }
    assert {k: v for k, v in out.items() if k != "usage"} == {k: v for k, v in last.items() if k != "usage"}
    Message.model_validate(out)
    assert MessagesCodec(BODY).summed({"id": "x"}, []) == {"id": "x"}
