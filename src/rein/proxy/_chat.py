"""OpenAI Chat Completions (`/v1/chat/completions`) through the proxy.

Each upstream chunk becomes, per choice, content pieces (reasoning, prose, each tool-call fragment) and a
structural piece for the rest (a finish reason, a role-only or otherwise empty delta); a chunk without
choices (the usage chunk, Azure's prompt-filter chunk) and anything that is not a chunk pass through
whole. A piece rendered whole from a chunk nothing was changed in goes out as the upstream's own bytes.
The choice index is the `lane`, so each of `n` choices is checked by its own rules.

Streams: reasoning (`reasoning_content` or `reasoning`) ends when prose or a tool call starts; prose ends
when a tool call starts; a tool call ends when another index, prose or reasoning starts; all end at the
choice's finish reason, at `[DONE]` and at an error chunk (the relay ends the rest at EOF).

Across attempts: the client keeps the first attempt's id, created, model and system_fingerprint, one
role delta per choice, tool call indices continue after the highest it received, and usage is the sum
of all attempts'. Chat Completions reports usage only at the end (the usage chunk of
`stream_options.include_usage`, or on the finish chunk for llama.cpp), so a cut attempt usually adds
nothing; what it did report before the cut (servers that report usage on every chunk) is kept. With
`n` > 1, a choice the client already received finished is left out of later attempts. A `function_call`
delta (the deprecated `functions` API) is checked and held as a tool call.

`closing()` finishes each open choice with `content_filter` (OpenAI's reason for a reply a filter
stopped; the SDK's `.stream()` helper raises `ContentFilterFinishReasonError` on it in
`get_final_completion()`), then the summed usage if the client asked for it, then `[DONE]`; with an
error, a `{"error": {...}}` chunk, on which the SDK raises `APIError`.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from rein.ai import JsonValue
from rein.proxy._chat_client import REASONING_KEYS, Client, Part, add_usage, chunk_of, tool_fragment
from rein.proxy._codec import Api, Json, Out, Render, SseEvent, sse
from rein.ttsr import MatchContext

TEXT = MatchContext(source="text")
THINKING = MatchContext(source="thinking")
STOPPED = "content_filter"
"""The finish reason `closing()` gives: OpenAI's own for a reply stopped by a filter."""


@dataclass(slots=True)
class _Call:
    index: JsonValue
    key: str
    context: MatchContext


@dataclass(slots=True)
class _Lane:
    """One choice's open streams in the current attempt (upstream side)."""

    text: str | None = None
    thinking: str | None = None
    call: _Call | None = None
    last: _Call | None = None
    """The latest tool call, open or ended (a fragment continuing it keeps its name and id)."""


@dataclass(slots=True)
class _Struct:
    """A structural piece of a chunk; `usage` when it is the chunk's last piece and carries the usage."""

    parts: list[Part] = field(default_factory=list)
    usage: bool = False


def _nothing(_: str) -> bytes:
    return b""


class ChatCodec:
    """The `Codec` for Chat Completions (see the module docstring)."""

    api: Api = "chat"

    def __init__(self, body: Json) -> None:
        options = body.get("stream_options")
        self._include_usage = isinstance(options, dict) and options.get("include_usage") is True
        model = body.get("model")
        self._model = model if isinstance(model, str) else ""
        self._attempt = 0
        self._seq = 0
        self._lanes: dict[int, _Lane] = {}
        self._usage: JsonValue = None  # this attempt's latest report
        self._earlier: JsonValue = None  # the cut attempts' reports, summed
        self._skip: frozenset[int] = frozenset()
        self._fed_ids: Json = {}
        self._client = Client()

    # streaming -------------------------------------------------------------------------------------

    def start_attempt(self) -> None:
        self._attempt += 1
        self._lanes = {}
        self._usage = None

    def feed(self, event: SseEvent) -> list[Out]:
        if "[DONE]" in event.data and event.data.strip() == "[DONE]":
            return [*self._end_all(), Out(render=lambda _: self._client.note(event))]
        try:
            raw = event.json()
        except ValueError:
            return [self._raw(event)]
        if not isinstance(raw, dict):
            return [self._raw(event)]
        if raw.get("error") is not None:
            return [*self._end_all(), Out(render=lambda _: self._client.note(event))]
        choices = raw.get("choices")
        if not isinstance(choices, list):
            return [self._raw(event)]
        for key in ("id", "created", "model"):
            if key not in self._fed_ids and (value := raw.get(key)):
                self._fed_ids[key] = value
        usage = raw.get("usage")
        if isinstance(usage, dict):
            self._usage = usage
        outs: list[Out] = []
        last: _Struct | None = None
        loose: list[JsonValue] = []  # choices that are not readable choices: kept, unchecked
        for choice in choices:
            if not isinstance(choice, dict) or not isinstance(lane := choice.get("index"), int):
                loose.append(choice)
            elif lane not in self._skip:
                last = self._choice(outs, raw, event, choice, lane)
        if loose or not choices:
            last = _Struct()
            outs.append(Out(render=self._struct(raw, event, last, loose)))
        if usage is not None:
            if last is None or outs[-1].stream is not None:
                last = _Struct()
                outs.append(Out(render=self._struct(raw, event, last, [])))
            last.usage = True
        return outs

    def cut(self) -> None:
        if self._usage is not None:
            self._earlier = add_usage(self._earlier, self._usage)
        self._usage = None
        self._lanes = {}
        self._skip = frozenset(self._client.finished)

    def closing(self, error: str | None = None) -> bytes:
        client = self._client
        if client.done:
            return b""
        client.done = True
        if error is not None:
            return sse({"error": {"message": error, "type": "proxy_error", "param": None, "code": None}})
        head: Json = {
            "id": self._fed_ids.get("id") or f"chatcmpl-rein-{time.time_ns():x}",
            "object": "chat.completion.chunk",
            "created": self._fed_ids.get("created") or int(time.time()),
            "model": self._fed_ids.get("model") or self._model,
        }
        head.update(client.ids)
        parts: list[bytes] = []
        for lane in sorted(client.lanes - client.finished) if client.lanes else [0]:
            delta: Json = {} if lane in client.roles else {"role": "assistant", "content": ""}
            choice: JsonValue = {"index": lane, "delta": delta, "finish_reason": STOPPED}
            parts.append(sse({**head, "choices": [choice]}))
            client.finished.add(lane)
        usage = add_usage(self._earlier, self._usage)
        if self._include_usage and usage is not None:
            parts.append(sse({**head, "choices": [], "usage": usage}))
        parts.append(b"data: [DONE]\n\n")
        return b"".join(parts)

    def retry_body(self, body: Json, injection: str, shown: str) -> Json:
        messages = body.get("messages")
        added: list[JsonValue] = list(messages) if isinstance(messages, list) else []
        if shown:
            added.append({"role": "assistant", "content": shown})
        added.append({"role": "user", "content": injection})
        return {**body, "messages": added}

    # non-streaming ---------------------------------------------------------------------------------

    def contents(self, response: Json) -> Sequence[tuple[MatchContext, str]]:
        found: list[tuple[MatchContext, str]] = []
        choices = response.get("choices")
        for choice in choices if isinstance(choices, list) else ():
            message = choice.get("message") if isinstance(choice, dict) else None
            if not isinstance(message, dict):
                continue
            reasoning = next((v for k in REASONING_KEYS if isinstance(v := message.get(k), str) and v), None)
            if reasoning is not None:
                found.append((THINKING, reasoning))
            if text := _text(message.get("content")):
                found.append((TEXT, text))
            calls = message.get("tool_calls")
            for call in calls if isinstance(calls, list) else ():
                function = call.get("function") if isinstance(call, dict) else None
                if isinstance(call, dict) and isinstance(function, dict):
                    arguments = function.get("arguments")
                    context = _tool_context(call.get("id"), function.get("name"))
                    found.append((context, arguments if isinstance(arguments, str) else ""))
        return found

    def summed(self, response: Json, earlier: Sequence[Json]) -> Json:
        usage = response.get("usage")
        if not isinstance(usage, dict):
            return dict(response)
        total: JsonValue = None
        for other in earlier:
            if isinstance(previous := other.get("usage"), dict):
                total = add_usage(total, previous)
        return {**response, "usage": add_usage(total, usage)}

    # pieces ----------------------------------------------------------------------------------------

    def _choice(self, outs: list[Out], raw: Json, event: SseEvent, choice: Json, lane: int) -> _Struct | None:
        """Append one choice's pieces; the structural piece it ends with, if any."""
        delta = choice.get("delta")
        delta = delta if isinstance(delta, dict) else {}
        state = self._lanes.get(lane)
        if state is None:
            state = self._lanes[lane] = _Lane()
        reasoning: str | None = None
        for key in REASONING_KEYS:  # a loop, not a generator: this runs for every chunk
            if isinstance(found := delta.get(key), str) and found:
                reasoning = key
                break
        content = delta.get("content")
        calls = delta.get("tool_calls")
        fragments = [(f, False) for f in calls if isinstance(f, dict)] if isinstance(calls, list) else []
        consumed = {reasoning} if reasoning is not None else set()
        if isinstance(content, str) and content:
            consumed.add("content")
        if fragments:
            consumed.add("tool_calls")
        if isinstance(legacy := delta.get("function_call"), dict):  # the deprecated `functions` API
            fragments.append((legacy, True))
            consumed.add("function_call")
        part = Part(choice, delta, frozenset(consumed))
        if reasoning is not None:
            self._end_call(outs, state, lane)
            if state.thinking is None:
                state.thinking = self._key("thinking", lane)
            text = delta[reasoning]
            assert isinstance(text, str)
            render = self._content(raw, event, part, reasoning)
            outs.append(Out(render=render, text=text, stream=state.thinking, context=THINKING, lane=lane))
        if "content" in consumed:
            assert isinstance(content, str)
            self._end(outs, state, lane, everything=False)
            self._end_call(outs, state, lane)
            if state.text is None:
                state.text = self._key("text", lane)
            render = self._content(raw, event, part, "content")
            outs.append(Out(render=render, text=content, stream=state.text, context=TEXT, lane=lane))
        for fragment, old in fragments:
            index = "function_call" if old else fragment.get("index")
            function = fragment if old else fragment.get("function")
            function = function if isinstance(function, dict) else {}
            if state.call is None or state.call.index != index:
                self._end(outs, state, lane, everything=True)
                context = _tool_context(None if old else fragment.get("id"), function.get("name"))
                if state.last is not None and state.last.index == index:
                    context = state.last.context
                state.call = state.last = _Call(index, self._key("tool", lane), context)
            arguments = function.get("arguments")
            render = self._tool(raw, event, part, fragment, lane, legacy=old)
            text = arguments if isinstance(arguments, str) else ""
            call = state.call
            outs.append(Out(render=render, text=text, stream=call.key, context=call.context, lane=lane))
        finish = choice.get("finish_reason")
        if finish is None and consumed:
            return None
        if finish is not None:
            self._end(outs, state, lane, everything=True)
        struct = _Struct([part])
        outs.append(Out(render=self._struct(raw, event, struct, [])))
        return struct

    def _end(self, outs: list[Out], state: _Lane, lane: int, *, everything: bool) -> None:
        """Append `final` pieces for the lane's open reasoning (`everything`: prose and tool call too)."""
        if state.thinking is not None:
            outs.append(Out(render=_nothing, stream=state.thinking, context=THINKING, final=True, lane=lane))
            state.thinking = None
        if everything and state.text is not None:
            outs.append(Out(render=_nothing, stream=state.text, context=TEXT, final=True, lane=lane))
            state.text = None
        if everything:
            self._end_call(outs, state, lane)

    def _end_call(self, outs: list[Out], state: _Lane, lane: int) -> None:
        if state.call is not None:
            key, context = state.call.key, state.call.context
            outs.append(Out(render=_nothing, stream=key, context=context, final=True, lane=lane))
            state.call = None

    def _end_all(self) -> list[Out]:
        outs: list[Out] = []
        for lane, state in self._lanes.items():
            self._end(outs, state, lane, everything=True)
        return outs

    def _key(self, kind: str, lane: int) -> str:
        self._seq += 1
        return f"{self._attempt}:{kind}:{lane}:{self._seq}"

    def _raw(self, event: SseEvent) -> Out:
        return Out(render=lambda _: event.encode())

    def _content(self, raw: Json, event: SseEvent, part: Part, key: str) -> Render:
        attempt = self._attempt
        whole = part.delta[key] if _alone(raw, part, key) else None
        lane = part.choice["index"]

        def render(text: str) -> bytes:
            if not text:
                return b""
            if text == whole and isinstance(lane, int) and self._client.same(raw, lane):
                part.extras_sent = True
                return event.encode()  # what rebuilding the chunk would give: upstream's own event
            chunk = chunk_of(raw, [part.build({key: text}, finish=False)], usage=False)
            return self._client.emit(chunk, raw, event, attempt, self._earlier)

        return render

    def _tool(
        self, raw: Json, event: SseEvent, part: Part, fragment: Json, lane: int, *, legacy: bool
    ) -> Render:
        attempt = self._attempt
        upstream = fragment.get("index")
        rendered = False

        def render(text: str) -> bytes:
            nonlocal rendered
            items: Json
            if legacy:
                items = {
                    "function_call": {
                        **{k: v for k, v in fragment.items() if not rendered},
                        "arguments": text,
                    }
                }
            else:
                index = self._client.tool_index(attempt, lane, upstream if isinstance(upstream, int) else 0)
                items = {"tool_calls": [tool_fragment(fragment, text, index, head=not rendered)]}
            rendered = True
            chunk = chunk_of(raw, [part.build(items, finish=False)], usage=False)
            return self._client.emit(chunk, raw, event, attempt, self._earlier)

        return render

    def _struct(self, raw: Json, event: SseEvent, struct: _Struct, loose: list[JsonValue]) -> Render:
        attempt = self._attempt

        def render(_: str) -> bytes:
            choices: list[JsonValue] = [part.build({}, finish=True) for part in struct.parts]
            chunk = chunk_of(raw, [*choices, *loose], usage=struct.usage)
            return self._client.emit(chunk, raw, event, attempt, self._earlier)

        return render


def _alone(raw: Json, part: Part, key: str) -> bool:
    """Whether `key` is all of the chunk: its one choice's delta holds only it, with no finish reason and
    no usage beside it. Released whole, such a piece is the upstream chunk unchanged (the fast path)."""
    choices = raw.get("choices")
    return (
        isinstance(choices, list)
        and len(choices) == 1
        and len(part.delta) == 1
        and len(part.consumed) == 1  # `key` itself
        and part.choice.get("finish_reason") is None
        and raw.get("usage") is None
    )


def _tool_context(call_id: JsonValue, name: JsonValue) -> MatchContext:
    return MatchContext(
        source="tool",
        tool_name=name if isinstance(name, str) and name else None,
        tool_call_id=call_id if isinstance(call_id, str) and call_id else None,
    )


def _text(content: JsonValue) -> str:
    """A message's prose: the string, or the text of its parts (some servers answer with parts)."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    return "".join(t for p in content if isinstance(p, dict) and isinstance(t := p.get("text"), str))
