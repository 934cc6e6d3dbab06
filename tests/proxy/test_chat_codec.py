"""The Chat Completions codec driven directly: a small relay stand-in feeds scripted upstream chunks,
renders the outs in order (whole, in parts, or up to a cut), and the client's bytes are read by the
official SDK (its stream decoder, chunk models and stream accumulator)."""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field

import httpx2
import openai
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from openai.lib.streaming.chat import ChatCompletionStreamState, ParsedChatCompletionSnapshot
from openai.types.chat import ChatCompletionChunk

from rein.ai import JsonValue, TextContent, ThinkingContent, ToolCall
from rein.ai.testing import Event, chat_chunk, chat_reply, chat_stream_error
from rein.proxy._chat import ChatCodec
from rein.proxy._codec import Json, Out, SseEvent
from rein.ttsr import MatchContext

BODY: Json = {
    "model": "gpt-test",
    "stream": True,
    "stream_options": {"include_usage": True},
    "messages": [{"role": "user", "content": "hi"}],
    "temperature": 0.5,
}
Block = TextContent | ThinkingContent | ToolCall


def upstream(steps: Sequence[Event]) -> list[SseEvent]:
    return [SseEvent(s.data if isinstance(s.data, str) else json.dumps(s.data), s.event) for s in steps]


def reply(*blocks: Block, ident: str = "chatcmpl-test", created: int = 1, **kw: object) -> list[SseEvent]:
    """`chat_reply`'s stream with its id and created replaced (a second attempt has its own)."""
    events = upstream(chat_reply(*blocks, **kw))  # type: ignore[arg-type]
    return [
        SseEvent(
            e.data.replace('"chatcmpl-test"', json.dumps(ident)).replace(
                '"created": 1,', f'"created": {created},'
            ),
            e.event,
        )
        for e in events
    ]


def raw_bytes(events: Sequence[SseEvent]) -> bytes:
    return b"".join(e.encode() for e in events)


@dataclass
class Queued:
    out: Out
    text: str
    """What is left of the out's text to render."""


@dataclass
class Player:
    """Plays the relay: queues every out, renders them in order (content possibly in parts)."""

    body: Json = field(default_factory=lambda: dict(BODY))
    codec: ChatCodec = field(init=False)
    queue: deque[Queued] = field(default_factory=deque)
    outs: list[Out] = field(default_factory=list)
    client: bytearray = field(default_factory=bytearray)
    shown: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.codec = ChatCodec(self.body)
        self.codec.start_attempt()

    def feed(self, events: Sequence[SseEvent]) -> None:
        for event in events:
            for out in self.codec.feed(event):
                self.outs.append(out)
                self.queue.append(Queued(out, out.text))

    def render(self, budget: int | None = None, *, pieces: int = 0) -> None:
        """Render queued outs in order; with `budget`, stop after that many characters of content; with
        `pieces`, render each content part in that many slices (the relay's partial releases)."""
        while self.queue:
            out, text = self.queue[0].out, self.queue[0].text
            if out.context is not None and out.context.source == "tool":
                if not any(q.out.final and q.out.stream == out.stream for q in self.queue):
                    return  # the relay holds a tool call until it is complete, then releases it whole
                self.client += out.render(text)
                self.queue.popleft()
                continue
            if budget is not None and budget <= 0 and text:
                return
            take = len(text) if budget is None else min(budget, len(text))
            part = text[:take]
            step = max(1, len(part) // pieces) if pieces and part else len(part) or 1
            for start in range(0, max(len(part), 1), step):
                self.client += out.render(part[start : start + step])
            if out.context is not None and out.context.source == "text":
                self.shown.append(part)
            if budget is not None:
                budget -= take
            if take < len(text):
                self.queue[0].text = text[take:]
                return
            self.queue.popleft()

    def cut(self) -> None:
        self.queue.clear()
        self.codec.cut()
        self.codec.start_attempt()

    def chunks(self) -> list[ChatCompletionChunk]:
        return sdk_chunks(bytes(self.client))

    def snapshot(self) -> ParsedChatCompletionSnapshot:
        return accumulate(self.chunks())


def sdk_chunks(raw: bytes) -> list[ChatCompletionChunk]:
    """What the official SDK's async-free stream yields for the client's bytes (raises as it would)."""

    def handler(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=raw)

    http = httpx2.Client(transport=httpx2.MockTransport(handler))
    client = openai.OpenAI(
        api_key="test", base_url="http://upstream.test/v1", http_client=http, max_retries=0
    )
    stream = client.chat.completions.create(
        model="gpt-test", messages=[{"role": "user", "content": "hi"}], stream=True
    )
    return list(stream)


def accumulate(chunks: Sequence[ChatCompletionChunk]) -> ParsedChatCompletionSnapshot:
    state: ChatCompletionStreamState[None] = ChatCompletionStreamState()
    for chunk in chunks:
        list(state.handle_chunk(chunk))
    return state.current_completion_snapshot


def data_lines(raw: bytes) -> list[JsonValue]:
    """Every event's data of the client's bytes, JSON decoded ([DONE] as the string)."""
    out: list[JsonValue] = []
    for block in raw.decode().split("\n\n"):
        if block.startswith("data: "):
            data = block.removeprefix("data: ")
            out.append(data if data == "[DONE]" else json.loads(data))
    return out


def check_valid(raw: bytes, *, done: bool = True) -> None:
    """One id, created and model; one role per choice, first; a finish reason once, after the choice's
    content; tool call indices increasing per choice; [DONE] last."""
    datas = data_lines(raw)
    if done:
        assert datas[-1] == "[DONE]" and datas.count("[DONE]") == 1
    chunks = [d for d in datas if isinstance(d, dict)]
    assert len({(c["id"], c["created"], c["model"]) for c in chunks}) <= 1, chunks
    roles: set[int] = set()
    finished: set[int] = set()
    tools: dict[int, int] = {}
    for chunk in chunks:
        choices = chunk["choices"]
        assert isinstance(choices, list)
        for choice in choices:
            assert isinstance(choice, dict)
            index = choice["index"]
            assert isinstance(index, int)
            delta = choice["delta"]
            assert isinstance(delta, dict)
            assert index not in finished, "content after the finish reason"
            if "role" in delta:
                assert index not in roles, "a second role delta"
                roles.add(index)
            calls = delta.get("tool_calls") or []
            assert isinstance(calls, list)
            for call in calls:
                assert isinstance(call, dict) and isinstance(call["index"], int)
                assert call["index"] >= tools.get(index, 0)
                tools[index] = call["index"]
            if choice.get("finish_reason") is not None:
                finished.add(index)
    sdk_chunks(raw)


def test_plain_text_passes_byte_identical() -> None:
    events = reply(TextContent(text="Hello, world"))
    player = Player()
    player.feed(events)
    player.render()
    assert bytes(player.client) == raw_bytes(events)
    snap = player.snapshot()
    assert snap.choices[0].message.content == "Hello, world"
    assert snap.choices[0].finish_reason == "stop"
    assert snap.usage is not None and snap.usage.total_tokens == 30
    texts = [o for o in player.outs if o.context == MatchContext(source="text")]
    assert "".join(o.text for o in texts) == "Hello, world"
    assert [o.final for o in texts][-1] and sum(o.final for o in texts) == 1
    assert len({o.stream for o in texts}) == 1


@pytest.mark.parametrize("pieces", [2, 3, 100])
def test_text_split_in_parts_stays_valid(pieces: int) -> None:
    player = Player()
    player.feed(reply(TextContent(text="Hello, world and more"), chunk=7))
    player.render(pieces=pieces)
    check_valid(bytes(player.client))
    assert player.snapshot().choices[0].message.content == "Hello, world and more"


@pytest.mark.parametrize("cut_at", range(13))
def test_text_cut_at_every_boundary(cut_at: int) -> None:
    player = Player()
    player.feed(reply(TextContent(text="Hello, world"), chunk=5)[:-3])  # a cut comes before the finish
    player.render(cut_at)
    player.cut()
    player.feed(reply(TextContent(text=" Fine."), ident="chatcmpl-second", created=9, model="other"))
    player.render()
    check_valid(bytes(player.client))
    snap = player.snapshot()
    assert snap.id == "chatcmpl-test"  # the role chunk went out before any text
    assert snap.choices[0].message.content == "Hello, world"[:cut_at] + " Fine."
    assert snap.choices[0].message.role == "assistant"


def test_thinking_is_its_own_stream_and_reaches_the_client() -> None:
    for field_name in ("reasoning_content", "reasoning"):
        player = Player()
        events = reply(
            ThinkingContent(thinking="let me think"), TextContent(text="Answer"), reasoning_field=field_name
        )
        player.feed(events)
        player.render()
        assert bytes(player.client) == raw_bytes(events)
        sources = [(o.context.source, o.final) for o in player.outs if o.context is not None]
        assert sources.index(("thinking", True)) < sources.index(("text", False))
        assert (
            "".join(o.text for o in player.outs if o.context == MatchContext(source="thinking"))
            == "let me think"
        )
        said = "".join(
            str((ch.delta.model_extra or {}).get(field_name) or "")
            for c in player.chunks()
            for ch in c.choices
        )
        assert said == "let me think"


def test_tool_calls_are_streams_with_ids_names_and_finals() -> None:
    calls = (
        ToolCall(id="call_a", name="write", raw_arguments='{"path": "a.py", "content": "x = 1"}'),
        ToolCall(id="call_b", name="bash", raw_arguments='{"command": "ls"}'),
    )
    events = reply(TextContent(text="Doing it"), *calls, finish_reason="tool_calls")
    player = Player()
    player.feed(events)
    tool_outs = [o for o in player.outs if o.context is not None and o.context.source == "tool"]
    by_stream: dict[str, list[Out]] = {}
    for out in tool_outs:
        by_stream.setdefault(out.stream or "", []).append(out)
    assert len(by_stream) == 2
    for call, outs in zip(calls, by_stream.values(), strict=True):
        assert {o.context for o in outs} == {
            MatchContext(source="tool", tool_name=call.name, tool_call_id=call.id)
        }
        assert "".join(o.text for o in outs) == call.arguments_text
        assert [o.final for o in outs].count(True) == 1 and outs[-1].final
    text_final = next(
        i for i, o in enumerate(player.outs) if o.final and o.context == MatchContext(source="text")
    )
    first_tool = player.outs.index(tool_outs[0])
    assert text_final < first_tool
    player.render()
    assert bytes(player.client) == raw_bytes(events)
    message = player.snapshot().choices[0].message
    assert message.tool_calls is not None
    assert [(t.id, t.function.name, t.function.arguments) for t in message.tool_calls] == [
        (c.id, c.name, c.arguments_text) for c in calls
    ]


def test_unknown_fields_and_events_pass_byte_identical() -> None:
    events = [
        SseEvent(
            '{"id":"chatcmpl-x","object":"chat.completion.chunk","created":5,"model":"m","system_fingerprint":"fp","x_top":{"a":1},'
            '"choices":[{"index":0,"delta":{"role":"assistant","content":"","x_delta":true},"logprobs":null,"finish_reason":null,"x_choice":[1]}]}'
        ),
        SseEvent(
            '{"id":"chatcmpl-x","object":"chat.completion.chunk","created":5,"model":"m","choices":[{"index":0,"delta":{"content":"hey","x_delta":"k"},"finish_reason":null}],"obfuscation":"abc"}'
        ),
        SseEvent('{"custom": "event"}', "vendor.note"),
        SseEvent(": not json at all"),
        SseEvent("[1, 2]"),
        SseEvent(
            '{"id":"chatcmpl-x","object":"chat.completion.chunk","created":5,"model":"m","choices":"odd"}'
        ),
        SseEvent(
            '{"id":"chatcmpl-x","object":"chat.completion.chunk","created":5,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop"}],'
            '"usage":{"prompt_tokens":3,"completion_tokens":1,"total_tokens":4},"timings":{"predicted_ms":12.5}}'
        ),
        SseEvent("[DONE]"),
    ]
    player = Player()
    player.feed(events)
    player.render()
    assert bytes(player.client) == raw_bytes(events)
    structural = [o for o in player.outs if o.stream is None]
    assert len(structural) == 7


def test_content_with_finish_and_usage_in_one_chunk_is_split_validly() -> None:
    """llama.cpp's last chunk may carry content, finish reason, usage and timings at once."""
    data: Json = {
        "id": "c1", "object": "chat.completion.chunk", "created": 3, "model": "llama",
        "choices": [
            {"index": 0, "delta": {"role": "assistant", "content": "All done"}, "finish_reason": "stop"}
        ],
        "usage": {"prompt_tokens": 5, "completion_tokens": 2, "total_tokens": 7}, "timings": {"n": 1},
    }  # fmt: skip
    player = Player()
    player.feed([SseEvent(json.dumps(data)), SseEvent("[DONE]")])
    kinds = [(o.context.source if o.context else None, o.final) for o in player.outs]
    assert kinds == [("text", False), ("text", True), (None, False), (None, False)]
    player.render(pieces=3)
    check_valid(bytes(player.client))
    datas = [d for d in data_lines(bytes(player.client)) if isinstance(d, dict)]
    assert sum(d.get("usage") is not None for d in datas) == 1
    assert all(d["timings"] == {"n": 1} for d in datas)
    snap = player.snapshot()
    assert snap.choices[0].message.content == "All done" and snap.choices[0].finish_reason == "stop"
    assert snap.usage is not None and snap.usage.total_tokens == 7


def test_cut_after_partial_text_continues_the_clients_stream() -> None:
    player = Player()
    player.feed(reply(TextContent(text="Hello world, bad"), usage=None, finish_reason=None)[:4])
    player.render(8)
    assert "".join(player.shown) == "Hello wo"
    player.cut()
    second = reply(TextContent(text="rld, fine"), ident="chatcmpl-other", created=77, model="gpt-other")
    player.feed(second)
    player.render()
    raw = bytes(player.client)
    check_valid(raw)
    datas = [d for d in data_lines(raw) if isinstance(d, dict)]
    assert {(d["id"], d["created"], d["model"]) for d in datas} == {("chatcmpl-test", 1, "gpt-test")}
    snap = player.snapshot()
    assert snap.choices[0].message.content == "Hello world, fine"
    assert snap.usage is not None and snap.usage.prompt_tokens == 20  # the first attempt reported none


def test_usage_reported_before_a_cut_is_summed() -> None:
    """A server that reports usage on its finish chunk; the rule fires at the end-of-stream check, after
    that chunk was fed: its usage counts."""
    player = Player()
    first = reply(TextContent(text="bad text"), usage=None)
    finish = json.loads(first[-2].data)
    finish["usage"] = {
        "prompt_tokens": 11,
        "completion_tokens": 4,
        "total_tokens": 15,
        "completion_tokens_details": {"reasoning_tokens": 1},
    }
    player.feed([*first[:-2], SseEvent(json.dumps(finish))])
    player.render(0)
    player.cut()
    player.feed(reply(TextContent(text="good"), ident="chatcmpl-2", usage=(20, 10, 3)))
    player.render()
    check_valid(bytes(player.client))
    snap = player.snapshot()
    assert snap.choices[0].message.content == "good"
    assert snap.usage is not None
    assert (snap.usage.prompt_tokens, snap.usage.completion_tokens, snap.usage.total_tokens) == (31, 14, 45)
    assert (
        snap.usage.prompt_tokens_details is not None and snap.usage.prompt_tokens_details.cached_tokens == 3
    )
    assert snap.usage.completion_tokens_details is not None
    assert snap.usage.completion_tokens_details.reasoning_tokens == 1


def test_cut_before_anything_rendered_takes_the_retrys_ids() -> None:
    player = Player()
    player.feed(reply(TextContent(text="bad"))[:3])
    player.cut()
    player.feed(reply(TextContent(text="good"), ident="chatcmpl-2", created=2))
    player.render()
    check_valid(bytes(player.client))
    snap = player.snapshot()
    assert (snap.id, snap.choices[0].message.content, snap.choices[0].message.role) == (
        "chatcmpl-2",
        "good",
        "assistant",
    )


def test_tool_indices_continue_after_a_cut() -> None:
    call = ToolCall(id="call_1", name="ls", raw_arguments='{"d": "."}')
    player = Player()
    player.feed(reply(call, TextContent(text="and then bad things"), usage=None)[:-3])
    player.render(5)
    player.cut()
    again = ToolCall(id="call_2", name="cat", raw_arguments='{"f": "x"}')
    player.feed(reply(again, ident="chatcmpl-2", finish_reason="tool_calls"))
    player.render()
    check_valid(bytes(player.client))
    message = player.snapshot().choices[0].message
    assert message.content == "and t"
    assert message.tool_calls is not None
    assert [(t.id, t.function.arguments) for t in message.tool_calls] == [
        ("call_1", '{"d": "."}'),
        ("call_2", '{"f": "x"}'),
    ]
    heads = [t for c in player.chunks() for ch in c.choices for t in ch.delta.tool_calls or () if t.id]
    assert [(t.index, t.id) for t in heads] == [(0, "call_1"), (1, "call_2")]


def test_choices_are_lanes_and_a_finished_one_is_left_out_of_the_retry() -> None:
    def two(a: JsonValue, b: JsonValue, ident: str = "chatcmpl-n") -> SseEvent:
        data = json.loads(chat_chunk(None).encode().decode().removeprefix("data: ").strip())
        data["id"], data["choices"] = ident, [a, b]
        return SseEvent(json.dumps(data))

    def choice(index: int, delta: JsonValue, finish: str | None = None) -> JsonValue:
        return {"index": index, "delta": delta, "finish_reason": finish}

    player = Player(body={**BODY, "n": 2})
    player.feed(
        [
            two(
                choice(0, {"role": "assistant", "content": "one"}),
                choice(1, {"role": "assistant", "content": "tw"}),
            ),
            two(choice(0, {}, "stop"), choice(1, {"content": "o bad"})),
        ]
    )
    assert {o.lane for o in player.outs if o.context is not None} == {0, 1}
    player.render(5)
    player.cut()
    player.feed(
        [
            two(
                choice(0, {"role": "assistant", "content": "again"}),
                choice(1, {"content": " fine"}, "stop"),
                "c-2",
            ),
            SseEvent("[DONE]"),
        ]
    )
    assert {o.lane for o in player.outs[-4:] if o.context is not None} == {1}
    player.render()
    check_valid(bytes(player.client))
    snap = player.snapshot()
    assert [c.message.content for c in snap.choices] == ["one", "tw fine"]
    assert [c.finish_reason for c in snap.choices] == ["stop", "stop"]


@pytest.mark.parametrize("rendered", [0, 3, 9, None])
def test_closing_ends_the_stream_validly(rendered: int | None) -> None:
    player = Player()
    player.feed(reply(TextContent(text="partial text"), finish_reason=None, usage=None)[:-1])
    player.render(rendered)
    player.cut()
    player.client += player.codec.closing()
    raw = bytes(player.client)
    check_valid(raw)
    snap = player.snapshot()
    assert snap.id == "chatcmpl-test"
    assert snap.choices[0].finish_reason == "content_filter"
    expected = "partial text"[:rendered] if rendered is not None else "partial text"
    assert (snap.choices[0].message.content or "") == expected
    assert player.codec.closing() == b""


def test_closing_reports_the_usage_known() -> None:
    player = Player()
    first = reply(TextContent(text="xx"), usage=(7, 3, 0))
    player.feed(first[:-1])  # the usage chunk was fed, [DONE] not
    player.render(1)
    player.cut()
    player.client += player.codec.closing()
    snap = player.snapshot()
    assert snap.usage is not None and snap.usage.total_tokens == 10
    no_usage = Player(body={**BODY, "stream_options": None})
    no_usage.feed(first[:-1])
    no_usage.render(1)
    no_usage.cut()
    no_usage.client += no_usage.codec.closing()
    assert all(not isinstance(d, dict) or not d.get("usage") for d in data_lines(bytes(no_usage.client))[-2:])


@pytest.mark.parametrize("rendered", [None, 0, 4])
def test_closing_with_error_makes_the_sdk_raise(rendered: int | None) -> None:
    player = Player()
    if rendered is not None:
        player.feed(reply(TextContent(text="some text"), finish_reason=None, usage=None)[:-1])
        player.render(rendered)
        player.cut()
    player.client += player.codec.closing("rein proxy: upstream 500")
    with pytest.raises(openai.APIError, match="upstream 500"):
        sdk_chunks(bytes(player.client))
    assert player.codec.closing() == b""


def test_upstream_error_chunk_passes_and_ends_the_streams() -> None:
    events = [
        *reply(TextContent(text="half"), finish_reason=None, usage=None)[:-1],
        *upstream([chat_stream_error("boom")]),
    ]
    player = Player()
    player.feed(events)
    assert player.outs[-2].final and player.outs[-2].context == MatchContext(source="text")
    player.render()
    assert bytes(player.client) == raw_bytes(events)
    with pytest.raises(openai.APIError, match="boom"):
        sdk_chunks(bytes(player.client))
    assert player.codec.closing() == b""


def test_done_ends_open_tool_call_without_finish_reason() -> None:
    call = ToolCall(id="call_z", name="ls", raw_arguments="{}")
    player = Player()
    player.feed(reply(call, finish_reason=None, usage=None))
    tool = [o for o in player.outs if o.stream is not None]
    assert tool[-1].final and tool[-1].context is not None and tool[-1].context.tool_call_id == "call_z"
    assert player.outs[-1].stream is None


def test_retry_body_shapes() -> None:
    codec = ChatCodec(BODY)
    before = json.dumps(BODY)
    body = codec.retry_body(BODY, "Rule: do not.", "Hello wor")
    assert json.dumps(BODY) == before
    assert body["messages"] == [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": "Hello wor"},
        {"role": "user", "content": "Rule: do not."},
    ]
    assert {k: v for k, v in body.items() if k != "messages"} == {
        k: v for k, v in BODY.items() if k != "messages"
    }
    assert codec.retry_body(BODY, "Rule.", "")["messages"] == [
        {"role": "user", "content": "hi"},
        {"role": "user", "content": "Rule."},
    ]
    assert codec.retry_body({"model": "m"}, "Rule.", "")["messages"] == [{"role": "user", "content": "Rule."}]


RESPONSE: Json = {
    "id": "chatcmpl-1",
    "object": "chat.completion",
    "created": 1,
    "model": "gpt-test",
    "choices": [
        {
            "index": 0,
            "message": {
                "role": "assistant",
                "content": "The answer",
                "reasoning_content": "thinking it over",
                "tool_calls": [
                    {
                        "id": "call_1",
                        "type": "function",
                        "function": {"name": "write", "arguments": '{"path": "a"}'},
                    }
                ],
            },
            "finish_reason": "tool_calls",
        }
    ],
    "usage": {
        "prompt_tokens": 10,
        "completion_tokens": 5,
        "total_tokens": 15,
        "prompt_tokens_details": {"cached_tokens": 2},
    },
}


def test_contents_of_a_non_streamed_response() -> None:
    codec = ChatCodec({**BODY, "stream": False})
    assert list(codec.contents(RESPONSE)) == [
        (MatchContext(source="thinking"), "thinking it over"),
        (MatchContext(source="text"), "The answer"),
        (MatchContext(source="tool", tool_name="write", tool_call_id="call_1"), '{"path": "a"}'),
    ]
    assert list(codec.contents({"choices": [{"message": {"content": None}}, "junk"]})) == []
    parts: Json = {
        "choices": [{"message": {"content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}}]
    }
    assert list(codec.contents(parts)) == [(MatchContext(source="text"), "ab")]


def test_summed_adds_usage_and_keeps_the_rest() -> None:
    codec = ChatCodec({**BODY, "stream": False})
    earlier: Json = {"id": "x", "usage": {"prompt_tokens": 1, "completion_tokens": 2, "total_tokens": 3}}
    out = codec.summed(RESPONSE, [earlier, {"id": "y"}])
    assert out["usage"] == {
        "prompt_tokens": 11,
        "completion_tokens": 7,
        "total_tokens": 18,
        "prompt_tokens_details": {"cached_tokens": 2},
    }
    assert {k: v for k, v in out.items() if k != "usage"} == {
        k: v for k, v in RESPONSE.items() if k != "usage"
    }
    assert codec.summed({"id": "z"}, [earlier]) == {"id": "z"}


@settings(max_examples=40, deadline=None)
@given(
    budgets=st.lists(st.integers(min_value=0, max_value=12), min_size=0, max_size=3),
    pieces=st.integers(min_value=0, max_value=4),
    size=st.integers(min_value=1, max_value=6),
    cut_event=st.integers(min_value=1, max_value=12),
    close=st.booleans(),
)
def test_any_cut_points_leave_a_valid_stream(
    budgets: list[int], pieces: int, size: int, cut_event: int, close: bool
) -> None:
    """For any cut points, the client stream is valid and its prose is the rendered parts in order."""
    player = Player()
    attempts = [
        reply(ThinkingContent(thinking="hmm"), TextContent(text="Hello, world"), chunk=size),
        reply(TextContent(text="Second try"), ident="chatcmpl-b", created=3, chunk=size),
        reply(
            TextContent(text="Third"),
            ToolCall(id="c", name="ls", raw_arguments='{"a": 1}'),
            ident="chatcmpl-c",
            chunk=size,
        ),
    ]
    for number, budget in enumerate(budgets):
        events = attempts[number % 3]
        player.feed(events[: min(cut_event, len(events) - 3)])  # a rule fires before the finish chunk
        player.render(budget, pieces=pieces)
        player.cut()
    if close:
        player.client += player.codec.closing()
    else:
        player.feed(attempts[len(budgets) % 3])
        player.render(pieces=pieces)
    raw = bytes(player.client)
    check_valid(raw)
    snap = player.snapshot()
    assert (snap.choices[0].message.content or "") == "".join(player.shown)
    assert snap.id == next(c.id for c in player.chunks())


def test_legacy_function_call_is_held_and_checked_as_a_tool_call() -> None:
    def chunk(delta: JsonValue, finish: str | None = None) -> SseEvent:
        return upstream([chat_chunk({"index": 0, "delta": delta, "finish_reason": finish})])[0]

    events = [
        chunk({"role": "assistant", "content": None}),
        chunk({"function_call": {"name": "get_weather", "arguments": ""}}),
        chunk({"function_call": {"arguments": '{"city": '}}),
        chunk({"function_call": {"arguments": '"Oslo"}'}}),
        chunk({}, "function_call"),
        SseEvent("[DONE]"),
    ]
    player = Player()
    player.feed(events)
    tool = [o for o in player.outs if o.context is not None]
    assert {o.context for o in tool} == {MatchContext(source="tool", tool_name="get_weather")}
    assert "".join(o.text for o in tool) == '{"city": "Oslo"}' and tool[-1].final
    assert len({o.stream for o in tool}) == 1
    player.render()
    assert bytes(player.client) == raw_bytes(events)
    call = player.snapshot().choices[0].message.function_call
    assert call is not None and (call.name, call.arguments) == ("get_weather", '{"city": "Oslo"}')
